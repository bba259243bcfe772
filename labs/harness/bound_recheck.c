/* labs/harness/bound_recheck.c: a bound measured longer than the baseline is measured again
 * (bound_recheck.h). */
#include "labs/harness/bound_recheck.h"

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
