/* grading/reports/grade_report_junit.c: JUnit XML (see grade_report_junit.h). */
#include "grading/reports/grade_report_junit.h"

#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"

char *grade_xml_escape(const char *s) {
    /* First make it valid UTF-8 without control characters (XML 1.0 forbids most of them
     * even as references), then escape the five markup characters. */
    char *clean = grade_text_clean(s ? s : "", s ? strlen(s) : 0, (size_t)-1);
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    for (const char *p = clean; *p; p++) {
        switch (*p) {
        case '&': grade_buf_puts(&b, "&amp;"); break;
        case '<': grade_buf_puts(&b, "&lt;"); break;
        case '>': grade_buf_puts(&b, "&gt;"); break;
        case '"': grade_buf_puts(&b, "&quot;"); break;
        case '\'': grade_buf_puts(&b, "&apos;"); break;
        case '\n': grade_buf_puts(&b, "&#10;"); break;
        case '\t': grade_buf_puts(&b, "&#9;"); break;
        default: grade_buf_append(&b, p, 1);
        }
    }
    free(clean);
    return grade_buf_take(&b);
}

static void testcase(grade_buf *b, const char *classname, const char *name, const grade_check *k, double seconds) {
    char *cn = grade_xml_escape(classname), *n = grade_xml_escape(name);
    grade_buf_printf(b, "    <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\">\n", cn, n, seconds);
    char *reason = grade_xml_escape(k->reason);
    if (!k->passed)
        grade_buf_printf(b, "      <failure message=\"%s\" type=\"%s\">%.2f of %.2f points: %s</failure>\n", reason,
                         k->points > 0 ? "partial" : "failed", k->points, k->max, reason);
    else
        grade_buf_printf(b, "      <system-out>%.2f of %.2f points: %s</system-out>\n", k->points, k->max, reason);
    grade_buf_puts(b, "    </testcase>\n");
    free(reason);
    free(cn);
    free(n);
}

/* Whether the lab has properties: a late policy or the instructor's adjustment. */
static bool has_properties(const grade_lab *lab) {
    return lab->late_policy || lab->adjusted || lab->adjustment_note || lab->backend_note;
}

/* The late policy's days and points, and the instructor's adjustment, as property lines
 * (names after prefix) of a testsuite's properties element. */
static void properties(grade_buf *b, const grade_lab *lab, const char *prefix) {
    const char *in = "      ";
    if (lab->late_policy) {
        char *why = grade_xml_escape(lab->late_reason ? lab->late_reason : "");
        grade_buf_printf(b, "%s<property name=\"%slate_days\" value=\"%d\"/>\n", in, prefix, lab->late_days);
        grade_buf_printf(b, "%s<property name=\"%slate_penalty\" value=\"%.2f\"/>\n", in, prefix, lab->late_penalty);
        grade_buf_printf(b, "%s<property name=\"%slate\" value=\"%s\"/>\n", in, prefix, why);
        free(why);
    }
    if (lab->adjusted || lab->adjustment_note) {
        char *note = grade_xml_escape(lab->adjustment_note ? lab->adjustment_note : "");
        grade_buf_printf(b, "%s<property name=\"%sadjustment\" value=\"%.2f\"/>\n", in, prefix,
                         lab->adjusted ? lab->adjustment : 0.0);
        grade_buf_printf(b, "%s<property name=\"%sadjustment_note\" value=\"%s\"/>\n", in, prefix, note);
        free(note);
    }
    if (lab->backend_note) {
        char *why = grade_xml_escape(lab->backend_note);
        grade_buf_printf(b, "%s<property name=\"%sbackend\" value=\"sim\"/>\n", in, prefix);
        grade_buf_printf(b, "%s<property name=\"%sbackend_note\" value=\"%s\"/>\n", in, prefix, why);
        free(why);
    }
}

static int failures(const grade_lab *lab) {
    int f = 0;
    for (int c = 0; c < GRADE_CHECKS; c++) f += grade_lab_has_check(lab, (grade_check_id)c) && !lab->checks[c].passed;
    return f;
}

char *grade_report_junit_student(const grade_student *s) {
    grade_buf b;
    grade_buf_init(&b);
    char *student = grade_xml_escape(s->name);
    grade_buf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"streamlab: %s\">\n", student);
    for (size_t i = 0; i < s->n_labs; i++) {
        const grade_lab *lab = &s->labs[i];
        char *labname = grade_xml_escape(lab->lab);
        grade_buf_printf(&b, "  <testsuite name=\"%s: %s\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
                         student, labname, grade_lab_checks(lab), failures(lab), lab->seconds);
        if (has_properties(lab)) {
            grade_buf_puts(&b, "    <properties>\n");
            properties(&b, lab, "");
            grade_buf_puts(&b, "    </properties>\n");
        }
        char *classname = grade_strf("%s.%s", s->name, lab->lab);
        for (int c = 0; c < GRADE_CHECKS; c++)
            if (grade_lab_has_check(lab, (grade_check_id)c))
                testcase(&b, classname, grade_check_titles[c], &lab->checks[c], c == 0 ? lab->seconds : 0);
        free(classname);
        free(labname);
        grade_buf_puts(&b, "  </testsuite>\n");
    }
    grade_buf_puts(&b, "</testsuites>\n");
    free(student);
    return grade_buf_take(&b);
}

char *grade_report_junit_class(const grade_student *const *students, size_t n) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"streamlab\">\n");
    for (size_t i = 0; i < n; i++) {
        const grade_student *s = students[i];
        int tests = 0, fails = 0;
        for (size_t l = 0; l < s->n_labs; l++) {
            tests += grade_lab_checks(&s->labs[l]);
            fails += failures(&s->labs[l]);
        }
        char *student = grade_xml_escape(s->name);
        grade_buf_printf(&b, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
                         student, tests, fails, s->seconds);
        /* One properties element per testsuite: each lab's, named after the lab. */
        bool any = false;
        for (size_t l = 0; l < s->n_labs; l++) any |= has_properties(&s->labs[l]);
        if (any) grade_buf_puts(&b, "    <properties>\n");
        for (size_t l = 0; l < s->n_labs && any; l++) {
            char *prefix = grade_xml_escape(s->labs[l].lab);
            char *p = grade_strf("%s ", prefix);
            properties(&b, &s->labs[l], p);
            free(p);
            free(prefix);
        }
        if (any) grade_buf_puts(&b, "    </properties>\n");
        for (size_t l = 0; l < s->n_labs; l++) {
            const grade_lab *lab = &s->labs[l];
            char *classname = grade_strf("%s.%s", s->name, lab->lab);
            for (int c = 0; c < GRADE_CHECKS; c++)
                if (grade_lab_has_check(lab, (grade_check_id)c))
                    testcase(&b, classname, grade_check_titles[c], &lab->checks[c], c == 0 ? lab->seconds : 0);
            free(classname);
        }
        grade_buf_puts(&b, "  </testsuite>\n");
        free(student);
    }
    grade_buf_puts(&b, "</testsuites>\n");
    return grade_buf_take(&b);
}
