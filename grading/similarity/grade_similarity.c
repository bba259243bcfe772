/* grading/similarity/grade_similarity.c: the class's similarity report through Debian's
 * similarity-tester (see grade_similarity.h). */
#define _GNU_SOURCE
#include "grading/similarity/grade_similarity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"

char *grade_similarity_find_tool(const char *tool) {
    if (!tool || !*tool) tool = "sim_c";
    struct stat st;
    if (strchr(tool, '/'))
        return stat(tool, &st) == 0 && S_ISREG(st.st_mode) && access(tool, X_OK) == 0 ? grade_strdup(tool) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = grade_strdup(path);
    char *found = NULL;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *p = grade_path_join(*dir ? dir : ".", tool);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(copy);
    return found;
}

/* Runs argv in work with stdout into work/<out_name>; returns 0, or -1 with err (the exit
 * status and the first line sim_c wrote on stderr). */
static int run_tool(char **argv, const char *work, const char *out_name, char *err, size_t err_len) {
    char *out = grade_path_join(work, out_name);
    char *errf = grade_path_join(work, "stderr.txt");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "cannot start %s: %s", argv[0], strerror(errno));
        free(out);
        free(errf);
        return -1;
    }
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int n = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || n < 0 || chdir(work) != 0) _exit(126);
        dup2(n, 0);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int rc = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *text = NULL;
        size_t len = 0;
        char e2[256];
        char *first = NULL;
        if (grade_read_file(errf, 4096, &text, &len, NULL, e2, sizeof(e2)) == 0) {
            char *clean = grade_text_clean(text, len, 4096);
            first = grade_text_first_line(clean, 200);
            free(clean);
            free(text);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(err, err_len, "%s could not be run", argv[0]);
        else if (WIFEXITED(status))
            snprintf(err, err_len, "%s failed (exit status %d)%s%s", argv[0], WEXITSTATUS(status),
                     first && *first ? ": " : "", first ? first : "");
        else
            snprintf(err, err_len, "%s was killed by signal %d", argv[0], WTERMSIG(status));
        free(first);
        rc = -1;
    }
    free(out);
    free(errf);
    return rc;
}

static char *slurp(const char *work, const char *name, char *err, size_t err_len) {
    char *p = grade_path_join(work, name);
    char *text = NULL;
    size_t len = 0;
    int rc = grade_read_file(p, 256u << 20, &text, &len, NULL, err, err_len);
    free(p);
    return rc == 0 ? text : NULL;
}

/* "s012.c" at *p: the index, and p moved past it. */
static bool file_name(const char **p, size_t n, size_t *index) {
    const char *s = *p;
    if (*s != 's') return false;
    char *end;
    unsigned long v = strtoul(s + 1, &end, 10);
    if (end == s + 1 || strncmp(end, ".c", 2) != 0 || v >= n) return false;
    *index = v;
    *p = end + 2;
    return true;
}

/* "line 12-30" or "line 12" at *p. */
static bool line_range(const char **p, int *from, int *to) {
    const char *s = *p;
    if (strncmp(s, ": line ", 7) != 0) return false;
    char *end;
    *from = (int)strtol(s + 7, &end, 10);
    *to = *from;
    if (*end == '-') *to = (int)strtol(end + 1, &end, 10);
    *p = end;
    return true;
}

/* One line of sim_c -n: "s000.c: line 3-9   |s001.c: line 4-10   [57]" (the second
 * file may be another name, such as skeleton.c, when other is NULL). */
static bool parse_run(const char *line, size_t n, grade_similarity_run *r, bool other_is_student) {
    const char *p = line;
    if (!file_name(&p, n, &r->a) || !line_range(&p, &r->a_from, &r->a_to)) return false;
    while (*p == ' ') p++;
    if (*p++ != '|') return false;
    if (other_is_student) {
        if (!file_name(&p, n, &r->b) || !line_range(&p, &r->b_from, &r->b_to)) return false;
    } else {
        p = strchr(p, ':');
        if (!p || !line_range(&p, &r->b_from, &r->b_to)) return false;
    }
    const char *open = strrchr(p, '[');
    r->tokens = open ? atoi(open + 1) : 0;
    return true;
}

static int write_files(const char *const *texts, const size_t *lens, size_t n, const char *work, char *err,
                       size_t err_len) {
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "s%03zu.c", i);
        char *p = grade_path_join(work, name);
        int rc = grade_write_file(p, texts[i], lens[i], err, err_len);
        free(p);
        if (rc != 0) return -1;
    }
    return 0;
}

/* Blanks lines [from, to] (1-based) of s%03zu.c in work, keeping the line count. */
static int blank_lines(const char *work, size_t i, const grade_similarity_run *runs, size_t n_runs, char *err,
                       size_t err_len) {
    char name[32];
    snprintf(name, sizeof(name), "s%03zu.c", i);
    char *text = slurp(work, name, err, err_len);
    if (!text) return -1;
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    int line = 1;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool blank = false;
        for (size_t k = 0; k < n_runs && !blank; k++)
            blank = runs[k].a == i && line >= runs[k].a_from && line <= runs[k].a_to;
        if (!blank) grade_buf_append(&b, p, len);
        if (nl) grade_buf_puts(&b, "\n");
        p += len + (nl ? 1 : 0);
        line++;
    }
    char *p = grade_path_join(work, name);
    int rc = grade_write_file(p, b.data, b.len, err, err_len);
    free(p);
    grade_buf_free(&b);
    free(text);
    return rc;
}

static int pair_order(const void *x, const void *y) {
    const grade_similarity_pair *p = x, *q = y;
    int pm = p->a_in_b > p->b_in_a ? p->a_in_b : p->b_in_a, qm = q->a_in_b > q->b_in_a ? q->a_in_b : q->b_in_a;
    if (pm != qm) return qm - pm;
    int ps = p->a_in_b + p->b_in_a, qs = q->a_in_b + q->b_in_a;
    if (ps != qs) return qs - ps;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

int grade_similarity_compare(const char *tool, const char *skeleton, const char *const *texts, const size_t *lens,
                             size_t n, const char *work, grade_similarity_lab *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->own_tokens = calloc(n ? n : 1, sizeof(int));
    if (grade_mkdir_p(work, 0755, err, err_len) != 0 || write_files(texts, lens, n, work, err, err_len) != 0)
        return -1;
    size_t n_args = n + 12;
    char **argv = calloc(n_args, sizeof(char *));
    char (*names)[32] = calloc(n ? n : 1, sizeof(*names));
    for (size_t i = 0; i < n; i++) snprintf(names[i], sizeof(names[i]), "s%03zu.c", i);
    int rc = -1;
    char *text = NULL;

    /* 1. What each file shares with the skeleton: blanked. */
    if (skeleton) {
        char *sk = NULL;
        size_t sk_len = 0;
        char *dest = grade_path_join(work, "skeleton.c");
        int ok = grade_read_file(skeleton, 16u << 20, &sk, &sk_len, NULL, err, err_len) == 0 &&
                 grade_write_file(dest, sk, sk_len, err, err_len) == 0;
        free(sk);
        free(dest);
        if (!ok) goto out;
        size_t k = 0;
        argv[k++] = (char *)tool;
        argv[k++] = "-S";
        argv[k++] = "-n";
        argv[k++] = "-T";
        for (size_t i = 0; i < n; i++) argv[k++] = names[i];
        argv[k++] = "/";
        argv[k++] = "skeleton.c";
        argv[k] = NULL;
        if (run_tool(argv, work, "skeleton_runs.txt", err, err_len) != 0 ||
            !(text = slurp(work, "skeleton_runs.txt", err, err_len)))
            goto out;
        grade_similarity_run *boiler = NULL;
        size_t n_boiler = 0;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            grade_similarity_run r;
            if (!parse_run(line, n, &r, false)) continue;
            boiler = realloc(boiler, (n_boiler + 1) * sizeof(*boiler));
            boiler[n_boiler++] = r;
        }
        free(text);
        text = NULL;
        for (size_t i = 0; i < n && ok; i++) ok = blank_lines(work, i, boiler, n_boiler, err, err_len) == 0;
        free(boiler);
        if (!ok) goto out;
    }

    /* 2. Percentages, each pair in isolation and both ways. */
    char floor_arg[16];
    snprintf(floor_arg, sizeof(floor_arg), "%d", GRADE_SIMILARITY_FLOOR);
    size_t k = 0;
    argv[k++] = (char *)tool;
    argv[k++] = "-p";
    argv[k++] = "-a";
    argv[k++] = "-e";
    argv[k++] = "-s";
    argv[k++] = "-t";
    argv[k++] = floor_arg;
    for (size_t i = 0; i < n; i++) argv[k++] = names[i];
    argv[k] = NULL;
    if (run_tool(argv, work, "percentages.txt", err, err_len) != 0 ||
        !(text = slurp(work, "percentages.txt", err, err_len)))
        goto out;
    int *pct = calloc(n ? n * n : 1, sizeof(int));
    size_t seen_files = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t a, b;
        int v;
        const char *p = line;
        if (!strncmp(p, "File ", 5)) {
            p += 5;
            if (file_name(&p, n, &a) && sscanf(p, ": %d tokens", &v) == 1) {
                out->own_tokens[a] = v;
                seen_files++;
            }
            continue;
        }
        if (!file_name(&p, n, &a) || sscanf(p, " consists for %d %%", &v) != 1) continue;
        p = strstr(p, "% of ");
        if (!p) continue;
        p += 5;
        if (!file_name(&p, n, &b) || a == b) continue;
        if (v > pct[a * n + b]) pct[a * n + b] = v;
    }
    free(text);
    text = NULL;
    if (seen_files != n) {
        free(pct);
        snprintf(err, err_len, "%s's output was not understood (it named %zu of the %zu files)", tool, seen_files, n);
        goto out;
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            if (!pct[a * n + b] && !pct[b * n + a]) continue;
            out->pairs = realloc(out->pairs, (out->n_pairs + 1) * sizeof(*out->pairs));
            out->pairs[out->n_pairs++] = (grade_similarity_pair){a, b, pct[a * n + b], pct[b * n + a]};
        }
    free(pct);
    if (out->n_pairs) qsort(out->pairs, out->n_pairs, sizeof(*out->pairs), pair_order);

    /* 3. Where: the runs between the files of the pairs listed. */
    if (out->n_pairs) {
        k = 0;
        argv[k++] = (char *)tool;
        argv[k++] = "-n";
        argv[k++] = "-e";
        argv[k++] = "-s";
        argv[k++] = "-T";
        for (size_t i = 0; i < n; i++) argv[k++] = names[i];
        argv[k] = NULL;
        if (run_tool(argv, work, "runs.txt", err, err_len) != 0 || !(text = slurp(work, "runs.txt", err, err_len)))
            goto out;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            grade_similarity_run r;
            if (!parse_run(line, n, &r, true) || r.a == r.b) continue;
            if (r.a > r.b) {
                r = (grade_similarity_run){r.b, r.a, r.b_from, r.b_to, r.a_from, r.a_to, r.tokens};
            }
            out->runs = realloc(out->runs, (out->n_runs + 1) * sizeof(*out->runs));
            out->runs[out->n_runs++] = r;
        }
    }
    rc = 0;
out:
    free(text);
    free(names);
    free(argv);
    return rc;
}

void grade_similarity_lab_free(grade_similarity_lab *lab) {
    free(lab->own_tokens);
    free(lab->pairs);
    free(lab->runs);
    memset(lab, 0, sizeof(*lab));
}

static int run_order(const void *x, const void *y) {
    const grade_similarity_run *p = x, *q = y;
    if (p->a_from != q->a_from) return p->a_from - q->a_from;
    return p->b_from - q->b_from;
}

/* One lab's part of similarity.txt, and its lines of the summary. */
static void write_lab(const char *lab_id, const grade_similarity_lab *r, const char *const *who, size_t others,
                      const char *skeleton, grade_buf *file, grade_buf *summary) {
    grade_buf_printf(file, "== %s: %zu students' files compared", lab_id, r->n);
    if (others) grade_buf_printf(file, " (%zu other%s handed in none)", others, others == 1 ? "" : "s");
    grade_buf_printf(file, "\n%s\n\n",
                     skeleton ? "The skeleton's code was taken out of every file first."
                              : "NOTE: the grader's kit has no skeleton for this lab: nothing was taken out.");
    size_t shown = 0;
    grade_buf_printf(file, "Most similar pairs (%d%% or more either way):\n", GRADE_SIMILARITY_THRESHOLD);
    for (size_t k = 0; k < r->n_pairs; k++) {
        const grade_similarity_pair *p = &r->pairs[k];
        if (p->a_in_b < GRADE_SIMILARITY_THRESHOLD && p->b_in_a < GRADE_SIMILARITY_THRESHOLD) continue;
        grade_buf_printf(file, "  %s ~ %s: %d%% of %s's own code is in %s's file, %d%% of %s's in %s's\n", who[p->a],
                         who[p->b], p->a_in_b, who[p->a], who[p->b], p->b_in_a, who[p->b], who[p->a]);
        if (shown < 5)
            grade_buf_printf(summary, "  %s: %s ~ %s (%d%% / %d%%)\n", lab_id, who[p->a], who[p->b], p->a_in_b,
                             p->b_in_a);
        shown++;
    }
    if (!shown) {
        grade_buf_puts(file, "  none\n");
        grade_buf_printf(summary, "  %s: no pair at %d%% or more\n", lab_id, GRADE_SIMILARITY_THRESHOLD);
    } else if (shown > 5) {
        grade_buf_printf(summary, "  %s: and %zu more pairs (similarity.txt)\n", lab_id, shown - 5);
    }
    size_t low = 0;
    for (size_t k = 0; k < r->n_pairs; k++) {
        const grade_similarity_pair *p = &r->pairs[k];
        if (p->a_in_b >= GRADE_SIMILARITY_THRESHOLD || p->b_in_a >= GRADE_SIMILARITY_THRESHOLD) continue;
        if (!low++) grade_buf_printf(file, "\nBelow %d%% (from %d%%):\n", GRADE_SIMILARITY_THRESHOLD, GRADE_SIMILARITY_FLOOR);
        grade_buf_printf(file, "  %s ~ %s: %d%% / %d%%\n", who[p->a], who[p->b], p->a_in_b, p->b_in_a);
    }
    if (r->n_pairs) {
        grade_buf_puts(file, "\nWhere (lines of each student's own file; runs of 24 or more tokens):\n");
        for (size_t k = 0; k < r->n_pairs; k++) {
            const grade_similarity_pair *p = &r->pairs[k];
            grade_similarity_run *mine = NULL;
            size_t n_mine = 0;
            for (size_t j = 0; j < r->n_runs; j++) {
                if (r->runs[j].a != p->a || r->runs[j].b != p->b) continue;
                mine = realloc(mine, (n_mine + 1) * sizeof(*mine));
                mine[n_mine++] = r->runs[j];
            }
            if (!n_mine) continue;
            qsort(mine, n_mine, sizeof(*mine), run_order);
            grade_buf_printf(file, "  %s ~ %s:\n", who[p->a], who[p->b]);
            for (size_t j = 0; j < n_mine; j++)
                grade_buf_printf(file, "    %s lines %d-%d ~ %s lines %d-%d (%d tokens)\n", who[p->a], mine[j].a_from,
                                 mine[j].a_to, who[p->b], mine[j].b_from, mine[j].b_to, mine[j].tokens);
            free(mine);
        }
    }
    grade_buf_puts(file, "\nOwn code per student (tokens left once the skeleton is taken out):\n");
    for (size_t i = 0; i < r->n; i++) grade_buf_printf(file, "  %s: %d\n", who[i], r->own_tokens[i]);
    grade_buf_puts(file, "\n");
}

int grade_similarity_report(const grade_similarity_class *c, char **summary, char *err, size_t err_len) {
    *summary = NULL;
    char *tool = grade_similarity_find_tool(c->tool);
    if (!tool) {
        if (c->tool && strchr(c->tool, '/'))
            *summary = grade_strf("grade: --similarity: no similarity report: --similarity-tool %s is not an "
                                  "executable file (Debian's similarity-tester installs /usr/bin/sim_c); grades are "
                                  "not affected\n",
                                  c->tool);
        else
            *summary = grade_strf("grade: --similarity: no similarity report: %s (Debian's similarity-tester) is not "
                                  "installed; install it with `sudo apt-get install similarity-tester` (./setup.sh "
                                  "offers it), then run the same command with --resume to add the report without "
                                  "grading anyone again; grades are not affected\n",
                                  c->tool && *c->tool ? c->tool : "sim_c");
        return 1;
    }
    grade_buf file, sum;
    grade_buf_init(&file);
    grade_buf_init(&sum);
    grade_buf_printf(&file,
                     "Similarity of the students' lab files, %s\n"
                     "by Debian's similarity-tester (%s), for the instructor to read.\n\n"
                     "A reading aid, not a verdict: it shows where to look. Two students who followed the\n"
                     "lesson's TODOs closely can write alike; a high figure is a reason to read both files\n"
                     "side by side, never a finding by itself. Grades do not depend on it.\n\n"
                     "What it measures: sim_c compares C tokens, so renamed variables, changed numbers and\n"
                     "strings, comments and layout do not hide a copy. The lab's skeleton is boilerplate: the\n"
                     "code sim_c finds in the skeleton is taken out of every student's file first, so keeping\n"
                     "the same starting code does not make two students similar. \"A ~ B: x%% of A's own code is\n"
                     "in B's file\": x%% of the tokens A wrote (what is left of A's file without the skeleton)\n"
                     "sim_c also finds in B's file, in runs of at least 24 tokens; the other figure is the\n"
                     "other way round (they differ when one file is longer). Pairs from %d%% either way are\n"
                     "listed first; below %d%% pairs are not listed.\n\n",
                     c->when ? c->when : "", tool, GRADE_SIMILARITY_THRESHOLD, GRADE_SIMILARITY_FLOOR);
    grade_buf_printf(&sum, "similarity (%s; the skeleton taken out; a reading aid, not a verdict): pairs at %d%% or "
                           "more, in %s/similarity.txt\n",
                     tool, GRADE_SIMILARITY_THRESHOLD, c->out);
    int rc = 0;
    for (size_t l = 0; l < c->n_labs && rc == 0; l++) {
        const grade_kit *kit = &c->kits[l];
        const char **who = calloc(c->subs->n + 1, sizeof(char *));
        const char **texts = calloc(c->subs->n + 1, sizeof(char *));
        size_t *lens = calloc(c->subs->n + 1, sizeof(size_t));
        grade_wanted *got = calloc(c->subs->n + 1, sizeof(grade_wanted));
        size_t n = 0, others = 0;
        for (size_t i = 0; i < c->subs->n; i++) {
            const grade_submission *sub = &c->subs->items[i];
            grade_wanted *w = &got[i];
            w->path = kit->student_file;
            char e2[512];
            /* As the grader fetches it (grade_grader.c): loosely for a platform's upload
             * when one lab is graded. */
            if (sub->problem || grade_submission_fetch(sub, w, 1, sub->loose && c->n_labs == 1, e2, sizeof(e2)) != 0 ||
                !w->data) {
                others++;
                continue;
            }
            who[n] = sub->name;
            texts[n] = w->data;
            lens[n] = w->len;
            n++;
        }
        if (n < 2) {
            grade_buf_printf(&file, "== %s: %zu student%s handed in this lab: nothing to compare\n\n", kit->lab, n,
                             n == 1 ? "" : "s");
            grade_buf_printf(&sum, "  %s: fewer than two files, nothing to compare\n", kit->lab);
        } else {
            char *work = grade_strf("%s/similarity_%s", c->scratch, kit->lab);
            grade_similarity_lab r;
            if (grade_similarity_compare(tool, kit->skeleton, texts, lens, n, work, &r, err, err_len) != 0) {
                char *why = grade_strdup(err);
                *summary = grade_strf("grade: --similarity: no similarity report: %s (lab %s); grades are not "
                                      "affected\n",
                                      why, kit->lab);
                free(why);
                rc = 1;
            } else {
                write_lab(kit->lab, &r, who, others, kit->skeleton, &file, &sum);
            }
            grade_similarity_lab_free(&r);
            char e2[256];
            grade_rm_rf(work, e2, sizeof(e2));
            free(work);
        }
        for (size_t i = 0; i < c->subs->n; i++) grade_wanted_clear(&got[i]);
        free(got);
        free(lens);
        free(texts);
        free(who);
    }
    if (rc == 0) {
        char *path = grade_path_join(c->out, "similarity.txt");
        if (grade_write_file(path, file.data, file.len, err, err_len) != 0) rc = -1;
        free(path);
    }
    if (rc == 0) *summary = grade_buf_take(&sum);
    grade_buf_free(&file);
    grade_buf_free(&sum);
    free(tool);
    return rc;
}
