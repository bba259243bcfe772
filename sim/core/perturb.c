/* sim/core/perturb.c: the perturbation generator (see perturb.h): splitmix64 seeding an
 * xorshift64* stream. */
#include "sim/core/perturb.h"

#include <math.h>


static struct {
    uint64_t state;
    double amount;
} P;

static uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t next(void) {
    uint64_t x = P.state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    P.state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

void sim_set_perturbation(uint64_t seed, double amount) {
    if (!isfinite(amount) || amount <= 0) {
        P.amount = 0;
        return;
    }
    /* Past 0.9 a duration could shrink to nothing. */
    P.amount = amount > 0.9 ? 0.9 : amount;
    P.state = splitmix64(seed);
    if (P.state == 0) P.state = 0x9E3779B97F4A7C15ull;
}

double sim_perturb_factor(void) {
    if (P.amount <= 0) return 1.0;
    double u = (double)(next() >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
    return 1.0 + P.amount * (2.0 * u - 1.0);
}

uint64_t sim_perturb_key(void) { return P.amount > 0 ? next() : 0; }

void sim_perturb_reset(void) {
    P.amount = 0;
    P.state = 0;
}
