/* labs/harness/host_charge.c: the student's host work as a charge to the simulated host
 * (see host_charge.h). */
#include "labs/harness/host_charge.h"

void lab_host_charge_begin(lab_host_charge *c) { lab_host_charge_begin_with(c, LAB_HOST_CHARGE_START_NS); }

void lab_host_charge_begin_with(lab_host_charge *c, uint64_t credit_ns) {
    c->balance_ns = (int64_t)(credit_ns < LAB_HOST_CHARGE_CAP_NS ? credit_ns : LAB_HOST_CHARGE_CAP_NS);
}

uint64_t lab_host_charge_take(lab_host_charge *c, uint64_t spent_ns) {
    int64_t b = c->balance_ns + (int64_t)LAB_HOST_CHARGE_ALLOWANCE_NS;
    if (b > (int64_t)LAB_HOST_CHARGE_CAP_NS) b = (int64_t)LAB_HOST_CHARGE_CAP_NS;
    /* At most 5 s a command (no phase is longer): keeps the sum in range. */
    uint64_t limit = LAB_HOST_CHARGE_CAP_NS * 1000u;
    b -= (int64_t)(spent_ns < limit ? spent_ns : limit);
    if (b >= 0) {
        c->balance_ns = b;
        return 0;
    }
    uint64_t over = (uint64_t)-b;
    uint64_t charged = over / LAB_HOST_CHARGE_STEP_NS * LAB_HOST_CHARGE_STEP_NS;
    c->balance_ns = -(int64_t)(over - charged);
    return charged;
}
