/* grading/score/grade_host.c: students whose lab run the grading host was too slow for (see
 * grade_host.h). */
#include "grading/score/grade_host.h"

#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"

const grade_lab *grade_student_host_problem(const grade_student *s) {
    for (size_t i = 0; i < s->n_labs; i++)
        if (s->labs[i].host_problem) return &s->labs[i];
    return NULL;
}

bool grade_student_mark_host_problem(grade_student *s) {
    const grade_lab *lab = grade_student_host_problem(s);
    if (!lab) return false;
    const char *why = lab->failure ? lab->failure : "the grading host was too slow";
    /* The lab's failure begins "not graded: " (or "in a re-run: not graded: "). */
    const char *at = strstr(why, "not graded: ");
    if (at) why = at + strlen("not graded: ");
    char *note = grade_strf("NOT GRADED: lab %s: %s", lab->lab, why);
    free(s->problem);
    s->problem = note;
    s->not_graded = true;
    return true;
}

char *grade_host_incomplete(size_t n, size_t total, const char *names, const char *again) {
    return grade_strf("This gradebook is INCOMPLETE: the grading host was too slow for the harness's own work in a "
                      "lab run of %zu of %zu students (%s). They are not graded (empty scores and a NOT GRADED "
                      "note naming the lab); their submissions are not at fault. When the host is less busy "
                      "(fewer --jobs, nothing else running), grade them again with:\n  %s\n",
                      n, total, names, again);
}
