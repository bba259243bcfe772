/* grading/score/grade_late.c: late policies (see grade_late.h). */
#define _GNU_SOURCE
#include "grading/score/grade_late.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/submissions/grade_roster.h"

static long long g_newest; /* nftw has no context argument */

static int newest_cb(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)path;
    (void)ftw;
    if (type == FTW_F && st->st_mtime > g_newest) g_newest = st->st_mtime;
    return 0;
}

/* The newest modification time of path's regular files (path itself when a file). */
static long long newest(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (!S_ISDIR(st.st_mode)) return S_ISREG(st.st_mode) ? (long long)st.st_mtime : 0;
    g_newest = 0;
    nftw(path, newest_cb, 16, FTW_PHYS);
    return g_newest;
}

int grade_late_fill_times(grade_submission_list *l, long long started, char *err, size_t err_len) {
    long long lo = 0, hi = 0;
    size_t n = 0, after = 0;
    const char *lo_name = NULL, *hi_name = NULL, *after_name = NULL;
    for (size_t i = 0; i < l->n; i++) {
        grade_submission *s = &l->items[i];
        if (s->has_time) continue;
        long long t = 0;
        if (s->kind == GRADE_SUB_FILES)
            for (size_t k = 0; k < s->n_parts; k++) {
                long long p = newest(s->parts[k].path);
                if (p > t) t = p;
            }
        else if (s->path)
            t = newest(s->path);
        if (t <= 0) continue;
        s->has_time = true;
        s->submitted_at = t;
        free(s->time_from);
        s->time_from = grade_strdup(s->canvas_late ? "the newest file's modification time, and Canvas's _LATE flag"
                                                   : "the newest modification time of the submission's files");
        if (!n || t < lo) lo = t, lo_name = s->name;
        if (!n || t > hi) hi = t, hi_name = s->name;
        if (t > started && !after++) after_name = s->name;
        n++;
    }
    if (after) {
        char *when = grade_late_time_text(started);
        snprintf(err, err_len,
                 "--file-times: %zu %s files were modified after the grading began (%s: %s), so their "
                 "modification times are not when they handed in: the class was copied or unpacked without its "
                 "times. Give --submitted-at FILE.csv (columns student,submitted_at), or unpack the download keeping "
                 "its times (unzip, tar -xp, cp -p, rsync -t): nothing was graded",
                 after, after == 1 ? "student's" : "students'", after_name, when);
        free(when);
        return -1;
    }
    if (n >= 2 && hi - lo <= 60) {
        char *a = grade_late_time_text(lo), *b = grade_late_time_text(hi);
        snprintf(err, err_len,
                 "--file-times: the files of all %zu students were modified within %lld s of each other (%s, %s; "
                 "%s, %s): those are the times of a copy (cp -r, git clone, rsync, an unpacked download), not when "
                 "students handed in, and would mark them late by the copy's date. Give --submitted-at FILE.csv "
                 "(columns student,submitted_at), or copy keeping the times (cp -p, rsync -t, tar -xp): nothing "
                 "was graded",
                 n, hi - lo, lo_name, a, hi_name, b);
        free(a);
        free(b);
        return -1;
    }
    return 0;
}

char *grade_late_warning(const grade_submission_list *l, const char *policy, bool file_times) {
    size_t none = 0, canvas = 0;
    grade_buf names;
    grade_buf_init(&names);
    grade_buf_append(&names, "", 0);
    for (size_t i = 0; i < l->n; i++) {
        const grade_submission *s = &l->items[i];
        if (s->has_time || s->problem || s->absent) continue;
        if (s->canvas_late == 2) canvas++;
        else if (s->canvas_late == 1) continue; /* Canvas says on time */
        else if (none++ < 5) grade_buf_printf(&names, "%s%s", none > 1 ? ", " : "", s->name);
    }
    grade_buf b;
    grade_buf_init(&b);
    if (none)
        grade_buf_printf(&b,
                         "grade: WARNING: late policy (%s): %zu of %zu students have no time of handing in (%s%s): they are NOT "
                         "marked late. The platform gave none; give --submitted-at FILE.csv (columns "
                         "student,submitted_at)%s\n",
                         policy, none, l->n, names.data, none > 5 ? ", ..." : "",
                         file_times ? ""
                                    : ", or --file-times to take their files' modification times (only where the "
                                      "files kept them: not after cp -r, git clone or an unpacked download)");
    if (canvas)
        grade_buf_printf(&b,
                         "grade: WARNING: late policy (%s): %zu student%s Canvas marked _LATE count as 1 day late: the download "
                         "says that they are late, not by how much; give --submitted-at FILE.csv with their times to "
                         "count the days\n",
                         policy, canvas, canvas == 1 ? "" : "s");
    grade_buf_free(&names);
    if (!b.len) {
        grade_buf_free(&b);
        return NULL;
    }
    return grade_buf_take(&b);
}

static bool same(const char *a, const char *b) { return a && b && *a && !strcasecmp(a, b); }

int grade_late_read_overrides(const char *path, grade_submission_list *l, char *err, size_t err_len) {
    char *text = NULL;
    size_t len = 0;
    bool cut = false;
    char why[512];
    if (grade_read_file(path, 16u << 20, &text, &len, &cut, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "--submitted-at %s", why);
        return -1;
    }
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3;
    int line = 1, rc = -1;
    char **head = NULL;
    char sep = grade_csv_separator(p, end); /* ';' from a spreadsheet in a decimal-comma locale */
    int nh = grade_csv_record_sep(&p, end, &head, &line, sep);
    int c_student = -1, c_time = -1;
    for (int i = 0; i < nh; i++) {
        if (!strcasecmp(head[i], "student")) c_student = i;
        if (!strcasecmp(head[i], "submitted_at")) c_time = i;
    }
    if (nh <= 0 || c_student < 0 || c_time < 0) {
        snprintf(err, err_len,
                 "--submitted-at %s: line 1: needs a header row naming the columns student and submitted_at "
                 "(student,submitted_at then alice,2026-12-02T10:00:00Z)",
                 path);
        goto out;
    }
    for (;;) {
        int at = line;
        char **f = NULL;
        int nf = grade_csv_record_sep(&p, end, &f, &line, sep);
        if (nf == 0) break;
        if (nf < 0) {
            snprintf(err, err_len, "--submitted-at %s: line %d: a quote is never closed", path, at);
            goto out;
        }
        if (nf == 1 && !*f[0]) {
            grade_csv_fields_free(f, nf);
            continue;
        }
        const char *who = c_student < nf ? f[c_student] : "", *when = c_time < nf ? f[c_time] : "";
        long long t;
        if (grade_time_parse(when, true, &t) != 0) {
            snprintf(err, err_len,
                     "--submitted-at %s: line %d: \"%.80s\" is not a time (like 2026-12-02T10:00:00Z, or with a zone "
                     "such as +01:00; without one it is UTC)",
                     path, at, when);
            grade_csv_fields_free(f, nf);
            goto out;
        }
        size_t matched = 0;
        for (size_t i = 0; i < l->n; i++) {
            grade_submission *s = &l->items[i];
            if (!(same(s->name, who) || same(s->sid, who) || same(s->email, who) || same(s->platform_id, who)))
                continue;
            matched++;
            s->has_time = true;
            s->submitted_at = t;
            s->canvas_late = 0; /* the instructor's time decides */
            free(s->time_from);
            s->time_from = grade_strf("--submitted-at %s", path);
        }
        if (!matched) {
            snprintf(err, err_len,
                     "--submitted-at %s: line %d: \"%.80s\" is no student of --submissions (give a name, sid, email or "
                     "platform id as the gradebook shows it)",
                     path, at, who);
            grade_csv_fields_free(f, nf);
            goto out;
        }
        grade_csv_fields_free(f, nf);
    }
    rc = 0;
out:
    if (nh > 0) grade_csv_fields_free(head, nh);
    free(text);
    return rc;
}

int grade_late_days(const grade_late_rule *rule, long long t, int canvas_late) {
    if (!rule->on || canvas_late == 1) return 0;
    long long over = t - rule->due - 60LL * rule->grace_minutes;
    long long days = over > 0 ? (over + 86399) / 86400 : 0;
    if (canvas_late == 2 && days < 1) days = 1; /* Canvas says late: at least a day */
    return days > 100000 ? 100000 : (int)days;
}

char *grade_late_time_text(long long t) {
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];
    gmtime_r(&tt, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
    return grade_strdup(buf);
}

void grade_late_rescore(const grade_late_rule *rule, grade_lab *lab) {
    int days = lab->late_days;
    lab->late_policy = rule->on;
    lab->late_penalty = 0;
    if (!rule->on) {
        lab->late_days = 0;
        free(lab->late_reason);
        lab->late_reason = NULL;
        return;
    }
    if (days <= 0) return; /* on time: its reason stands */
    double checks = 0, max = 0;
    for (int c = 0; c < GRADE_CHECKS; c++) {
        checks += lab->checks[c].points;
        max += lab->checks[c].max;
    }
    double want = days > rule->max_days ? max : rule->per_day * days;
    lab->late_penalty = grade_round_points(want < checks ? want : checks);
    char *first = grade_text_first_line(lab->late_reason ? lab->late_reason : "", 400);
    char *cut = strstr(first, "; ");
    if (cut) *cut = '\0';
    free(lab->late_reason);
    lab->late_reason = days > rule->max_days
                           ? grade_strf("%s; more than %d day%s late is not accepted, so the lab's points are taken: "
                                        "-%.2f",
                                        first, rule->max_days, rule->max_days == 1 ? "" : "s", lab->late_penalty)
                           : grade_strf("%s; %g points a day: -%.2f", first, rule->per_day, lab->late_penalty);
    free(first);
}

void grade_late_apply(const grade_late_rule *rule, const grade_submission *sub, grade_lab *lab) {
    if (!rule->on) return;
    lab->late_policy = true;
    lab->late_days = 0;
    lab->late_penalty = 0;
    free(lab->late_reason);
    char *due = grade_late_time_text(rule->due);
    if (!sub->has_time && sub->canvas_late == 2) {
        /* Canvas says late, and not by how much: one day. */
        double checks = 0;
        for (int c = 0; c < GRADE_CHECKS; c++) checks += lab->checks[c].points;
        lab->late_days = 1;
        lab->late_penalty = grade_round_points(rule->per_day < checks ? rule->per_day : checks);
        lab->late_reason = grade_strf("1 day late: Canvas marked the submission _LATE and its download does not say "
                                      "by how much, so 1 day is counted (due %s); %g points a day: -%.2f",
                                      due, rule->per_day, lab->late_penalty);
        free(due);
        return;
    }
    if (!sub->has_time) {
        lab->late_reason = grade_strf("on time: no time of handing in is known (due %s); no penalty", due);
        free(due);
        return;
    }
    char *when = grade_late_time_text(sub->submitted_at);
    int days = grade_late_days(rule, sub->submitted_at, sub->canvas_late);
    double checks = 0, max = 0;
    for (int c = 0; c < GRADE_CHECKS; c++) {
        checks += lab->checks[c].points;
        max += lab->checks[c].max;
    }
    char grace[64] = "";
    if (rule->grace_minutes) snprintf(grace, sizeof(grace), " with %d minutes' grace", rule->grace_minutes);
    if (days == 0) {
        lab->late_reason = grade_strf("on time: handed in %s (%s), due %s%s", when, sub->time_from ? sub->time_from : "",
                                      due, grace);
    } else {
        double want = days > rule->max_days ? max : rule->per_day * days;
        lab->late_days = days;
        lab->late_penalty = grade_round_points(want < checks ? want : checks);
        if (days > rule->max_days)
            lab->late_reason =
                grade_strf("%d day%s late: handed in %s (%s), due %s%s; more than %d day%s late is not accepted, so "
                           "the lab's points are taken: -%.2f",
                           days, days == 1 ? "" : "s", when, sub->time_from ? sub->time_from : "", due, grace,
                           rule->max_days, rule->max_days == 1 ? "" : "s", lab->late_penalty);
        else
            lab->late_reason = grade_strf("%d day%s late: handed in %s (%s), due %s%s; %g points a day: -%.2f", days,
                                          days == 1 ? "" : "s", when, sub->time_from ? sub->time_from : "", due, grace,
                                          rule->per_day, lab->late_penalty);
    }
    free(when);
    free(due);
}
