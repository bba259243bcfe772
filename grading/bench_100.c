/* grading/bench_100.c: the grader's speed target as a benchmark: it makes 100 submissions
 * of lab 03 (a mix of the untouched skeleton, the reference, a racy pipeline and files
 * that do not compile, each made unique so nothing can be shared between students but
 * what the grader shares on purpose) in a temporary folder, grades them on the simulator
 * with the grader's defaults and --jobs 2, and prints the wall time against the target of
 * 10 minutes. The figure is recorded in docs/grading.md.
 *
 *   bazel run //grading:bench_100 [-- --jobs N --count N --keep] */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_kit.h"

#define TARGET_SECONDS 600.0

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *load(const char *runfile) {
    char *path = grade_workspace_runfile(runfile);
    if (!path) {
        fprintf(stderr, "bench_100: %s is missing from the runfiles\n", runfile);
        exit(1);
    }
    char *data = NULL;
    char err[512];
    if (grade_read_file(path, 1u << 20, &data, NULL, NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_100: %s\n", err);
        exit(1);
    }
    free(path);
    return data;
}

int main(int argc, char **argv) {
    int jobs = 2, count = 100;
    int keep = 0;
    static const struct option options[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"count", required_argument, NULL, 'n'},
        {"keep", no_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "j:n:kh", options, NULL)) != -1) {
        switch (c) {
        case 'j':
        case 'n': {
            long long v;
            if (!cli_int(optarg, 1, 10000, &v)) {
                fprintf(stderr, "%s: --%s must be a whole number from 1 to 10000, not '%s'\n", argv[0],
                        c == 'j' ? "jobs" : "count", optarg);
                return 64;
            }
            *(c == 'j' ? &jobs : &count) = (int)v;
            break;
        }
        case 'k': keep = 1; break;
        default:
            fprintf(c == 'h' ? stdout : stderr, "usage: %s [--jobs N] [--count N] [--keep]\n", argv[0]);
            return c == 'h' ? 0 : 64;
        }
    }
    if (jobs < 1 || jobs > 256 || count < 1 || count > 100000) {
        fprintf(stderr, "bench_100: --jobs must be 1..256 and --count 1..100000\n");
        return 64;
    }

    const char *kinds[] = {"skeleton", "reference", "racy", "broken"};
    char *sources[4] = {
        load("labs/03_double_buffer/lab.c"),
        load("solutions/03_double_buffer.c"),
        load("grading/testdata/racy_but_lucky/labs/03_double_buffer/lab.c"),
        NULL,
    };
    /* Broken: the skeleton with its first statement's semicolon gone. */
    sources[3] = grade_text_replace(sources[0], "#define NUM_STREAMS 1", "#define NUM_STREAMS 1;");
    /* 40% skeleton, 30% reference, 15% racy, 15% broken. */
    const int share[4] = {40, 30, 15, 15};
    int made[4] = {0, 0, 0, 0};

    char root_tmpl[] = "/tmp/streamlab-bench.XXXXXX";
    char *root = mkdtemp(root_tmpl);
    if (!root) {
        fprintf(stderr, "bench_100: cannot make a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    char *subs = grade_path_join(root, "submissions"), *out = grade_path_join(root, "out");
    char err[512];
    for (int i = 0; i < count; i++) {
        int k = 0;
        int slot = i % 100;
        for (int acc = share[0]; slot >= acc && k < 3; acc += share[++k]) {
        }
        made[k]++;
        char *dir = grade_strf("%s/student%03d/labs/03_double_buffer", subs, i);
        char *file = grade_strf("%s/lab.c", dir);
        /* Each student's file differs, as real ones do. */
        char *text = grade_strf("/* student %03d (%s) */\n%s", i, kinds[k], sources[k]);
        if (grade_mkdir_p(dir, 0755, err, sizeof(err)) != 0 || grade_write_file(file, text, strlen(text), err, sizeof(err)) != 0) {
            fprintf(stderr, "bench_100: %s\n", err);
            return 1;
        }
        free(text);
        free(file);
        free(dir);
    }
    char *grade = grade_workspace_runfile("grading/grade");
    if (!grade) {
        fprintf(stderr, "bench_100: the grader (grading/grade) is missing from the runfiles\n");
        return 1;
    }
    char jobs_s[16];
    snprintf(jobs_s, sizeof(jobs_s), "%d", jobs);
    printf("bench_100: %d submissions of lab 03 (%d skeleton, %d reference, %d racy, %d that do not compile)\n", count,
           made[0], made[1], made[2], made[3]);
    printf("bench_100: grade --submissions %s --out %s --backend sim --jobs %d --quiet\n", subs, out, jobs);
    fflush(stdout);

    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        execl(grade, grade, "--submissions", subs, "--out", out, "--backend", "sim", "--jobs", jobs_s, "--quiet",
              (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    double seconds = now_s() - t0;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc != 0) {
        fprintf(stderr, "bench_100: the grader failed (status %d)\n", rc);
        return 1;
    }
    /* The gradebook has a row per student: check the grader graded them all. */
    char *csv_path = grade_path_join(out, "gradebook.csv"), *csv = NULL;
    size_t len = 0;
    int rows = -1;
    if (grade_read_file(csv_path, 64u << 20, &csv, &len, NULL, err, sizeof(err)) == 0)
        for (size_t i = 0; i < len; i++) rows += csv[i] == '\n';
    printf("bench_100: graded %d of %d submissions with --jobs %d in %.1f s (%.2f s per submission); target %.0f s: %s\n",
           rows, count, jobs, seconds, seconds / count, TARGET_SECONDS * count / 100.0,
           seconds <= TARGET_SECONDS * count / 100.0 ? "met" : "MISSED");
    if (keep)
        printf("bench_100: kept %s\n", root);
    else if (grade_rm_rf(root, err, sizeof(err)) != 0)
        fprintf(stderr, "bench_100: %s\n", err);
    for (int i = 0; i < 4; i++) free(sources[i]);
    free(csv);
    free(csv_path);
    free(grade);
    free(subs);
    free(out);
    return rows == count ? 0 : 1;
}
