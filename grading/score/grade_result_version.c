/* grading/score/grade_result_version.c: whether this grader reads a lab's result (see
 * grade_result_version.h). */
#include "grading/score/grade_result_version.h"

#include <math.h>
#include <stdio.h>

#include "labs/harness/result_schema.h"

int grade_result_version_check(const cJSON *result, bool required, char *why, size_t why_len) {
    if (why_len) why[0] = '\0';
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_VERSION);
    if (!v) {
        if (!required) return 0; /* stored by a kit before versions: version 1 */
        snprintf(why, why_len,
                 "the lab binary writes a result with no \"%s\"; this grader reads version %d: rebuild the grader from "
                 "the same kit",
                 LAB_KEY_VERSION, LAB_RESULT_VERSION);
        return -1;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble != floor(v->valuedouble)) {
        char *text = cJSON_PrintUnformatted(v);
        snprintf(why, why_len,
                 "the lab's result has \"%s\": %s, which is no version; this grader reads version %d: rebuild the "
                 "grader and the lab from the same kit",
                 LAB_KEY_VERSION, text ? text : "?", LAB_RESULT_VERSION);
        cJSON_free(text);
        return -1;
    }
    if (v->valuedouble > LAB_RESULT_VERSION) {
        snprintf(why, why_len,
                 "the lab binary writes result version %.0f; this grader reads version %d: rebuild the grader from the "
                 "same kit",
                 v->valuedouble, LAB_RESULT_VERSION);
        return -1;
    }
    return 0;
}

int grade_student_version_check(const grade_student *s, char *why, size_t why_len) {
    for (size_t l = 0; l < s->n_labs; l++) {
        char one[400];
        if (!s->labs[l].result || grade_result_version_check(s->labs[l].result, false, one, sizeof(one)) == 0) continue;
        snprintf(why, why_len, "the stored result of %s, lab %s: %s", s->name ? s->name : "?", s->labs[l].lab, one);
        return -1;
    }
    return 0;
}
