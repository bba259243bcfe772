/* grading/reports/grade_gradebook.c: gradebook.csv (see grade_gradebook.h). */
#include "grading/reports/grade_gradebook.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"
#include "grading/score/grade_score.h"

/* Bytes of a space at s (ASCII white space, and the Unicode spaces a spreadsheet may trim
 * before it reads a formula: no-break, en/em and other fixed spaces, zero-width space and
 * byte order mark, ideographic space), or 0. */
static size_t space_at(const unsigned char *s) {
    if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' || *s == '\f') return 1;
    if (s[0] == 0xC2 && s[1] == 0xA0) return 2;                                      /* U+00A0 */
    /* U+2000-200B, U+202F */
    if (s[0] == 0xE2 && s[1] == 0x80 && ((s[2] >= 0x80 && s[2] <= 0x8B) || s[2] == 0xAF)) return 3;
    if (s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F) return 3;                      /* U+205F */
    if (s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80) return 3;                      /* U+3000 */
    if (s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) return 3;                      /* U+FEFF */
    return 0;
}

/* Whether a spreadsheet could run the cell as a formula: it starts with a tab or CR, or its
 * first character after spaces is = + - or @. The ' a cell was given is looked past, so that
 * a cell that reads like an escaped one is escaped again and reads back as it was. */
static bool formula_like(const char *cell) {
    const unsigned char *p = (const unsigned char *)cell;
    while (*p == '\'') p++;
    if (*p == '\t' || *p == '\r') return true;
    for (size_t k; (k = space_at(p)) > 0;) p += k;
    return *p && strchr("=+-@", *p);
}

char *grade_csv_field(const char *text) {
    char *s = grade_text_clean(text ? text : "", text ? strlen(text) : 0, 4096);
    /* A cell a spreadsheet would run as a formula gets a ' before it, which spreadsheets
     * show as text (OWASP's advice for CSV injection); numbers the grader writes are not
     * cells of text and stay numbers (-5.00). */
    if (formula_like(s)) {
        char *quoted = grade_strf("'%s", s);
        free(s);
        s = quoted;
    }
    if (!strpbrk(s, ",\"\r\n")) return s;
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"') grade_buf_append(&b, "\"", 1);
        grade_buf_append(&b, p, 1);
    }
    grade_buf_append(&b, "\"", 1);
    free(s);
    return grade_buf_take(&b);
}

const char *grade_csv_unescape(const char *cell) {
    if (cell[0] == '\'' && formula_like(cell + 1)) return cell + 1;
    return cell;
}

static void field(grade_buf *b, const char *s, bool first) {
    char *f = grade_csv_field(s);
    if (!first) grade_buf_append(b, ",", 1);
    grade_buf_puts(b, f);
    free(f);
}

static void number(grade_buf *b, double v) { grade_buf_printf(b, ",%.2f", v); }

static const grade_lab *find_lab(const grade_student *s, const char *id) {
    for (size_t k = 0; k < s->n_labs; k++)
        if (!strcmp(s->labs[k].lab, id)) return &s->labs[k];
    return NULL;
}

/* The adjustment (empty when none, for the instructor to type into) and its note. */
static void adjustment_cells(grade_buf *b, const grade_student *s, const char *id) {
    const grade_lab *lab = find_lab(s, id);
    if (lab && lab->adjusted)
        number(b, lab->adjustment);
    else
        grade_buf_puts(b, ",");
    field(b, lab ? lab->adjustment_note : NULL, false);
}

/* What went wrong, in a few words: the submission's problem or each failed lab's reason. */
static char *note(const grade_student *s) {
    if (s->problem) return grade_strdup(s->problem);
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    for (size_t i = 0; i < s->n_labs; i++) {
        const grade_lab *lab = &s->labs[i];
        const char *why = NULL;
        if (!lab->submitted) why = "not submitted";
        else if (lab->build_error) why = lab->build_error;
        else if (lab->failure) why = lab->failure;
        else if (grade_lab_error(lab)) why = grade_lab_error(lab);
        else if (!lab->checks[GRADE_CORRECT].passed) why = "wrong results";
        else if (!lab->checks[GRADE_RACE_FREE].passed) why = "races";
        else if (!lab->checks[GRADE_SPEEDUP].passed) why = "below the speed target";
        else if (grade_lab_has_check(lab, GRADE_MEASUREMENT) && !lab->checks[GRADE_MEASUREMENT].passed)
            why = "measurement not accepted";
        else if (lab->late_days > 0)
            why = lab->late_reason;
        if (!why) continue;
        char *first = grade_text_first_line(why, 160);
        grade_buf_printf(&b, "%s%s: %s", b.len ? "; " : "", lab->lab, first);
        free(first);
    }
    return grade_buf_take(&b);
}

char *grade_gradebook_csv(const grade_student *const *students, size_t n) {
    grade_buf b;
    grade_buf_init(&b);
    /* Who each student is, when a platform's export or a roster said: sid, email and the
     * platform's id, after the name (a class of plain folders has no such columns). */
    bool who = false;
    for (size_t i = 0; i < n; i++)
        who |= students[i]->sid || students[i]->email || students[i]->platform_id;
    grade_buf_puts(&b, who ? "student,sid,email,platform_id,score,max_score" : "student,score,max_score");
    /* A column per lab any row has (a course folder graded one lab at a time keeps the
     * earlier labs' results), in the labs' order, and per check the lab has: one rubric,
     * so the first row with the lab says which. */
    const char **ids = NULL;
    size_t n_ids = grade_students_labs(students, n, &ids);
    const grade_lab **model = calloc(n_ids ? n_ids : 1, sizeof(grade_lab *));
    bool *late = calloc(n_ids ? n_ids : 1, sizeof(bool));
    for (size_t l = 0; l < n_ids; l++)
        for (size_t i = 0; i < n; i++) {
            const grade_lab *lab = find_lab(students[i], ids[l]);
            if (!lab) continue;
            if (!model[l]) model[l] = lab;
            late[l] |= lab->late_policy;
        }
    for (size_t l = 0; l < n_ids; l++) {
        for (int c = 0; c < GRADE_CHECKS; c++) {
            if (!grade_lab_has_check(model[l], (grade_check_id)c)) continue;
            char *col = grade_strf("%s %s", ids[l], grade_check_names[c]);
            field(&b, col, false);
            free(col);
        }
        /* After the lab's checks: its late policy's columns (a lab with one), and the
         * instructor's adjustment with its note (every lab; grade_adjust.h). */
        static const char *const extra[] = {"late_days", "late_penalty", "adjustment", "adjustment_note"};
        for (int k = late[l] ? 0 : 2; k < 4; k++) {
            char *col = grade_strf("%s %s", ids[l], extra[k]);
            field(&b, col, false);
            free(col);
        }
    }
    grade_buf_puts(&b, ",note\r\n");
    for (size_t i = 0; i < n; i++) {
        const grade_student *s = students[i];
        field(&b, s->name, true);
        if (who) {
            field(&b, s->sid, false);
            field(&b, s->email, false);
            field(&b, s->platform_id, false);
        }
        if (s->not_graded) {
            /* Empty cells, not zeros: nobody should read a grade into them. */
            grade_buf_puts(&b, ",,");
            for (size_t l = 0; l < n_ids; l++) {
                for (int c = 0; c < GRADE_CHECKS; c++)
                    if (grade_lab_has_check(model[l], (grade_check_id)c)) grade_buf_puts(&b, ",");
                if (late[l]) grade_buf_puts(&b, ",,");
                /* The instructor's adjustment is kept even here, for the run that finishes. */
                adjustment_cells(&b, s, ids[l]);
            }
            field(&b, s->problem ? s->problem : "NOT GRADED", false);
            grade_buf_puts(&b, "\r\n");
            continue;
        }
        number(&b, s->score);
        number(&b, s->max_score);
        for (size_t l = 0; l < n_ids; l++) {
            const grade_lab *lab = find_lab(s, ids[l]);
            /* A lab this student has no result for (not in the class when it was graded):
             * empty cells, not zeros. */
            for (int c = 0; c < GRADE_CHECKS; c++) {
                if (!grade_lab_has_check(model[l], (grade_check_id)c)) continue;
                if (lab)
                    number(&b, lab->checks[c].points);
                else
                    grade_buf_puts(&b, ",");
            }
            if (late[l]) {
                if (lab && lab->late_policy) {
                    grade_buf_printf(&b, ",%d", lab->late_days);
                    number(&b, lab->late_penalty);
                } else {
                    grade_buf_puts(&b, lab ? ",0,0.00" : ",,");
                }
            }
            adjustment_cells(&b, s, ids[l]);
        }
        char *nt = note(s);
        field(&b, nt, false);
        free(nt);
        grade_buf_puts(&b, "\r\n");
    }
    free(ids);
    free(model);
    free(late);
    return grade_buf_take(&b);
}
