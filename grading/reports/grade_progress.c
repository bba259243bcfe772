/* grading/reports/grade_progress.c: progress bar and summary table (see grade_progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "grading/reports/grade_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "grading/base/grade_text.h"
#include "grading/score/grade_score.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void grade_progress_start(grade_progress *p, size_t total, bool enabled) {
    memset(p, 0, sizeof(*p));
    p->total = total;
    p->enabled = enabled;
    p->tty = isatty(STDERR_FILENO);
    p->start = now_s();
    if (p->enabled && p->tty && total > 0) { /* (--resume with everyone graded: nothing to show) */
        fprintf(stderr, "\rgrading %zu submission%s...", total, total == 1 ? "" : "s");
        fflush(stderr);
    }
}

static int columns(void) {
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
    return 80;
}

void grade_progress_step(grade_progress *p, const grade_student *s) {
    p->done++;
    if (!p->enabled) return;
    double elapsed = now_s() - p->start;
    if (!p->tty) {
        fprintf(stderr, "[%zu/%zu] %s: %.2f / %.2f (%.0f s)\n", p->done, p->total, s->name, s->score, s->max_score,
                elapsed);
        return;
    }
    int width = columns() - 50;
    if (width < 10) width = 10;
    if (width > 40) width = 40;
    int filled = p->total ? (int)((double)width * (double)p->done / (double)p->total) : width;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    double eta = p->done ? elapsed / (double)p->done * (double)(p->total - p->done) : 0;
    char *name = grade_text_pad(s->name, 16);
    fprintf(stderr, "\r\033[K[%s] %zu/%zu  %2.0f:%02.0f elapsed, ~%.0f s left  %s", bar, p->done, p->total,
            (double)((long)elapsed / 60), (double)((long)elapsed % 60), eta, name);
    free(name);
    fflush(stderr);
}

void grade_progress_finish(grade_progress *p) {
    if (p->enabled && p->tty) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

/* "wrong", "wrong and racy", "racy, slow and measurement". */
static void join_words(grade_buf *b, const char *const *words, int n) {
    for (int i = 0; i < n; i++) grade_buf_printf(b, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", words[i]);
}

/* ", 2 days late (-20)", ", adjusted +5": what took the lab's points from its checks' (the
 * summary shows the lab's points after them, as the gradebook's score counts them). */
static void after_checks(grade_buf *b, const grade_lab *lab) {
    if (lab->late_days > 0)
        grade_buf_printf(b, ", %d day%s late (-%.4g)", lab->late_days, lab->late_days == 1 ? "" : "s",
                         grade_round_points(lab->late_penalty));
    if (lab->adjusted && lab->adjustment != 0)
        grade_buf_printf(b, ", adjusted %+.4g", grade_round_points(lab->adjustment));
}

char *grade_lab_outcome(const grade_lab *lab) {
    grade_buf b;
    grade_buf_init(&b);
    double score = grade_round_points(grade_lab_score(lab));
    bool changed = lab->late_days > 0 || (lab->adjusted && lab->adjustment != 0);
    if (!lab->submitted || lab->build_error) {
        if (changed) grade_buf_printf(&b, "%.4g: ", score);
        grade_buf_puts(&b, !lab->submitted                                   ? "not submitted"
                           : !strncmp(lab->build_error, "does not link", 13) ? "does not link"
                           : !strncmp(lab->build_error, "not accepted", 12)  ? "not accepted"
                                                                             : "does not compile");
        after_checks(&b, lab);
        return grade_buf_take(&b);
    }
    double max = 0;
    bool all = true;
    for (int c = 0; c < GRADE_CHECKS; c++) {
        if (!grade_lab_has_check(lab, (grade_check_id)c)) continue;
        max += lab->checks[c].max;
        all &= lab->checks[c].passed;
    }
    if (lab->failure) {
        /* The whole first line: "crashed with SIGSEGV in run() of your lab". */
        char *first = grade_text_first_line(lab->failure, 200);
        grade_buf_printf(&b, "%.4g: %s", score, first);
        free(first);
        after_checks(&b, lab);
        return grade_buf_take(&b);
    }
    const char *error = grade_lab_error(lab);
    if (error) {
        /* "0/100: error: your setup() returned 1 after cudaHostRegister failed: ...". */
        char *first = grade_text_first_line(error, 200);
        grade_buf_printf(&b, "%.4g/%.4g: error: %s", score, grade_round_points(max), first);
        free(first);
        after_checks(&b, lab);
        return grade_buf_take(&b);
    }
    if (all) {
        grade_buf_printf(&b, "%.4g: pass", score);
        after_checks(&b, lab);
        return grade_buf_take(&b);
    }
    /* Every check missed, in words. Speed is only scored for a correct, race-free lab, and
     * a measurement for a correct one: "slow" and "measurement" only where they were. */
    const char *words[GRADE_CHECKS];
    int n = 0;
    bool correct = lab->checks[GRADE_CORRECT].passed, race_free = lab->checks[GRADE_RACE_FREE].passed;
    if (!correct) words[n++] = "wrong";
    if (!race_free) words[n++] = "racy";
    if (correct && race_free && !lab->checks[GRADE_SPEEDUP].passed) words[n++] = "slow";
    if (correct && grade_lab_has_check(lab, GRADE_MEASUREMENT) && !lab->checks[GRADE_MEASUREMENT].passed)
        words[n++] = "measurement";
    grade_buf_printf(&b, "%.4g/%.4g: ", score, grade_round_points(max));
    join_words(&b, words, n);
    after_checks(&b, lab);
    return grade_buf_take(&b);
}

/* Names longer than this many columns are cut in the table (the gradebook has them whole). */
#define NAME_COLUMNS 32

char *grade_summary_table(const grade_student *const *students, size_t n) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    if (n == 0) return grade_buf_take(&b);
    /* A column per lab any row has (a course folder graded one lab at a time keeps the
     * earlier labs), in the labs' order; a row without a lab's result has an empty cell. */
    const char **ids = NULL;
    size_t n_labs = grade_students_labs(students, n, &ids);
    /* Columns are measured in what a terminal shows (a name like "Zoë Šimůnková" has
     * more bytes than characters); every lab's column is as wide as its widest outcome,
     * and the last is not padded. */
    size_t name_w = 7;
    for (size_t i = 0; i < n; i++) {
        size_t w = grade_text_width(students[i]->name);
        if (w > name_w) name_w = w > NAME_COLUMNS ? NAME_COLUMNS : w;
    }
    char ***outcomes = calloc(n, sizeof(char **));
    size_t *lab_w = calloc(n_labs ? n_labs : 1, sizeof(size_t));
    for (size_t l = 0; l < n_labs; l++) lab_w[l] = grade_text_width(ids[l]);
    for (size_t i = 0; i < n; i++) {
        outcomes[i] = calloc(n_labs ? n_labs : 1, sizeof(char *));
        for (size_t l = 0; l < n_labs; l++) {
            const grade_lab *lab = grade_student_lab(students[i], ids[l]);
            /* A row an interrupted run or a Slurm task that died left without a grade. */
            outcomes[i][l] = students[i]->not_graded ? grade_strdup("not graded")
                             : lab                   ? grade_lab_outcome(lab)
                                                     : grade_strdup("");
            size_t w = grade_text_width(outcomes[i][l]);
            if (w > lab_w[l]) lab_w[l] = w;
        }
    }
    char *head = grade_text_pad("student", name_w);
    grade_buf_printf(&b, "%s  %15s", head, "score");
    free(head);
    for (size_t l = 0; l < n_labs; l++) {
        char *cell = l + 1 < n_labs ? grade_text_pad(ids[l], lab_w[l]) : grade_strdup(ids[l]);
        grade_buf_printf(&b, "  %s", cell);
        free(cell);
    }
    grade_buf_puts(&b, "\n");
    double sum = 0, max = students[0]->max_score;
    size_t graded = 0;
    for (size_t i = 0; i < n; i++) {
        const grade_student *s = students[i];
        char *name = grade_text_pad(s->name, name_w);
        char score[40];
        if (s->not_graded)
            snprintf(score, sizeof(score), "NOT GRADED");
        else
            snprintf(score, sizeof(score), "%.2f / %.2f", s->score, s->max_score);
        grade_buf_printf(&b, "%s  %15s", name, score);
        free(name);
        if (s->problem && s->n_labs == 0) grade_buf_printf(&b, "  %s", s->problem);
        for (size_t l = 0; l < n_labs; l++) {
            char *cell = l + 1 < n_labs ? grade_text_pad(outcomes[i][l], lab_w[l]) : grade_strdup(outcomes[i][l]);
            grade_buf_printf(&b, "  %s", cell);
            free(cell);
        }
        grade_buf_puts(&b, "\n");
        if (!s->not_graded) {
            if (!graded++) max = s->max_score;
            sum += s->score;
        }
        for (size_t l = 0; l < n_labs; l++) free(outcomes[i][l]);
        free(outcomes[i]);
    }
    free(outcomes);
    free(lab_w);
    free(ids);
    if (graded == n)
        grade_buf_printf(&b, "%zu student%s, mean score %.2f / %.2f\n", n, n == 1 ? "" : "s", sum / (double)n, max);
    else
        grade_buf_printf(&b, "%zu student%s, %zu NOT GRADED; mean score of the %zu graded %.2f / %.2f\n", n,
                         n == 1 ? "" : "s", n - graded, graded, graded ? sum / (double)graded : 0.0, max);
    return grade_buf_take(&b);
}
