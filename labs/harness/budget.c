/* labs/harness/budget.c: the harness's time budget, scaled to the machine (see budget.h). */
#include "labs/harness/budget.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

/* An environment variable's whole number from 1 to hi, or 0 (unset, or said and ignored). */
static long long test_hook(const char *name, long long hi, bool *said) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    long long n;
    if (cli_int(v, 1, hi, &n)) return n;
    if (!*said) fprintf(stderr, "streamlab: %s=%s ignored: it must be a whole number from 1 to %lld\n", name, v, hi);
    *said = true;
    return 0;
}

unsigned lab_test_slow_baseline_ms(void) {
    static bool said;
    return (unsigned)test_hook("STREAMLAB_TEST_SLOW_BASELINE_MS", 86400000, &said);
}

double lab_test_harness_budget_s(void) {
    static bool said;
    return (double)test_hook("STREAMLAB_TEST_HARNESS_BUDGET_S", 86400, &said);
}

static double capped(double budget, int cap_s) {
    double hook = lab_test_harness_budget_s();
    if (hook > 0) budget = hook;
    return cap_s > 0 && budget > cap_s ? cap_s : budget;
}

double lab_harness_budget_start(int cap_s) { return capped(LAB_HARNESS_FLOOR_S, cap_s); }

double lab_harness_budget(double calibration_s, int units, double used_s, int cap_s) {
    if (!(calibration_s > 0)) calibration_s = 0;
    if (units < 0) units = 0;
    if (!(used_s > 0)) used_s = 0;
    double budget = used_s + LAB_HARNESS_FACTOR * calibration_s * units;
    return capped(budget > LAB_HARNESS_FLOOR_S ? budget : LAB_HARNESS_FLOOR_S, cap_s);
}
