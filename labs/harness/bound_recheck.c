/* labs/harness/bound_recheck.c: the bound measured more than once: the median of three, and
 * a bound longer than the baseline measured again (bound_recheck.h). */
#include "labs/harness/bound_recheck.h"

#include <stdio.h>

int lab_bound_recheck(double *ideal_ns, double baseline_ns, int tries, const lab_bound_again *again) {
    int made = 0;
    while (made < tries && baseline_ns > 0 && *ideal_ns > baseline_ns) {
        double ns = 0;
        made++;
        if (again->measure(again->arg, &ns) != 0 || ns <= 0) break;
        if (ns < *ideal_ns) {
            again->keep(again->arg);
            *ideal_ns = ns;
        }
    }
    return made;
}

int lab_bound_median_index(const double *ideal_ns, int n) {
    if (n <= 0) return -1;
    /* The median by rank: the measurement with as many shorter ones as the middle needs
     * (ties broken by position, so that equal measurements still give one answer). */
    int want = (n - 1) / 2;
    for (int i = 0; i < n; i++) {
        int shorter = 0;
        for (int j = 0; j < n; j++)
            if (ideal_ns[j] < ideal_ns[i] || (ideal_ns[j] == ideal_ns[i] && j < i)) shorter++;
        if (shorter == want) return i;
    }
    return 0;
}

bool lab_bound_spread_text(const double *ms, int n, char *buf, size_t len) {
    if (n < 2 || len == 0) return false;
    double lo = ms[0], hi = ms[0];
    for (int i = 1; i < n; i++) {
        if (ms[i] < lo) lo = ms[i];
        if (ms[i] > hi) hi = ms[i];
    }
    double median = ms[lab_bound_median_index(ms, n)];
    if (!(lo > 0) || hi - lo <= 0.05 * median) return false;
    size_t used = (size_t)snprintf(buf, len, "measured %d times, before, during and after your runs (", n);
    for (int i = 0; i < n && used < len; i++) used += (size_t)snprintf(buf + used, len - used, "%s%.3f", i ? ", " : "", ms[i]);
    if (used < len) snprintf(buf + used, len - used, " ms): this machine's speed moved, and the median stands");
    return true;
}
