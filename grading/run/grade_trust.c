/* grading/run/grade_trust.c: whether a lab run's result can be believed (see grade_trust.h). */
#include "grading/run/grade_trust.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "labs/harness/result_schema.h"
grade_trust grade_result_trust(const cJSON *result, uint64_t seed, unsigned results, double target_bound_fraction,
                               char *why, size_t why_len) {
    if (why_len) why[0] = '\0';
    if (results > 1) {
        snprintf(why, why_len,
                 "the run's result channel carried %u results where the harness sends one: a result not written by "
                 "the harness, so none is believed",
                 results);
        return GRADE_TRUST_NONE;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_SEED);
    if (!cJSON_IsNumber(s) || s->valuedouble < 0 || (uint64_t)s->valuedouble != seed) {
        snprintf(why, why_len,
                 "the result names seed %.0f, not the seed %" PRIu64 " this run was given: it is not this run's result",
                 cJSON_IsNumber(s) ? s->valuedouble : -1.0, seed);
        return GRADE_TRUST_NONE;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_TARGET_BOUND_FRACTION);
    if (target_bound_fraction > 0 &&
        (!cJSON_IsNumber(t) || fabs(t->valuedouble - target_bound_fraction) > 1e-9 * target_bound_fraction)) {
        snprintf(why, why_len,
                 "the result names a target of %.4g of the lab's bound, where the lab's own is %.4g (its pre-flight "
                 "run): no speed points for a result measured against another target",
                 cJSON_IsNumber(t) ? t->valuedouble : 0.0, target_bound_fraction);
        return GRADE_TRUST_NO_SPEED;
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_BOUND_FRACTION);
    if (cJSON_IsNumber(f) && f->valuedouble > GRADE_BOUND_FRACTION_MAX) {
        snprintf(why, why_len,
                 "the result claims %.0f%% of the lab's bound, the shortest time its workload can take: no speed "
                 "points for a figure no real run reaches",
                 100 * f->valuedouble);
        return GRADE_TRUST_NO_SPEED;
    }
    return GRADE_TRUST_OK;
}
