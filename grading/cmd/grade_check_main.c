/* grading/cmd/grade_check_main.c: the student's own check, `bazel run //grading:check --
 * 03_double_buffer [FILE]`: grades the student's lab file (labs/<lab>/lab.c of their
 * checkout by default) exactly as the instructor's grader does, by running //grading:grade
 * in Gradescope mode on a submission holding that one file (the same kits, rubric,
 * sandbox and pre-flight run), and prints the rubric's points for each check with its
 * reason and the total; --report FILE keeps the grader's full report. Its working folder
 * ($TMPDIR or /tmp, streamlab-check.*) is removed however it ends: graded, an error, or
 * Ctrl-C/SIGTERM (passed on to the grader, which cleans up its own, then exit 130/143).
 * Exit status: 0 when the file was graded (whatever its score), 1 when it could not be,
 * 64 bad usage. See docs/course-guide.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_kit.h"
#include "grading/score/grade_rubric.h"

static const char *usage_name(void) {
    return getenv("BUILD_WORKSPACE_DIRECTORY") ? "bazel run //grading:check --" : "check";
}

/* Ctrl-C or SIGTERM: passed on to the grader; check waits for it, cleans up, and exits. */
static volatile sig_atomic_t g_signal;
static volatile pid_t g_child;

static void on_signal(int sig) {
    g_signal = sig;
    if (g_child > 0) kill(g_child, sig);
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: %s LAB [FILE] [--report FILE] [--runs K] [--seed S] [--profile NAME]\n"
            "          [--backend auto|sim|gpu]\n"
            "Grades your lab file as the course's grader does and prints the rubric's points for\n"
            "each check. LAB is a lab's id, number or prefix (03_double_buffer, 03); FILE is\n"
            "your file (default: labs/<lab>/lab.c of your checkout). --report FILE writes the\n"
            "grader's full report there (the compiler's words, races, timings, the timeline).\n"
            "Exit status: 0 graded (whatever the score), 1 could not be graded, 64 bad usage.\n",
            usage_name());
}

int main(int argc, char **argv) {
    static const struct option opts[] = {
        {"runs", required_argument, NULL, 'r'},    {"seed", required_argument, NULL, 's'},
        {"profile", required_argument, NULL, 'p'}, {"backend", required_argument, NULL, 'b'},
        {"report", required_argument, NULL, 'o'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *keep_report = NULL;
    const char *pass[8];
    int n_pass = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': pass[n_pass++] = "--runs"; pass[n_pass++] = optarg; break;
        case 's': pass[n_pass++] = "--seed"; pass[n_pass++] = optarg; break;
        case 'p': pass[n_pass++] = "--profile"; pass[n_pass++] = optarg; break;
        case 'b': pass[n_pass++] = "--backend"; pass[n_pass++] = optarg; break;
        case 'o': keep_report = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "check: unknown option or missing value: %s\n", argv[optind - 1]);
            usage(stderr);
            return 64;
        }
    }
    if (optind >= argc || argc - optind > 2) {
        fprintf(stderr, "check: name the lab to check (and, if not labs/<lab>/lab.c, your file)\n");
        usage(stderr);
        return 64;
    }
    char err[2048];
    int status_out = 1;
    char *work = NULL; /* the working folder, removed at the end */
    bool have_rubric = false;
    grade_rubric rubric;
    char *deflt = NULL, *in_checkout = NULL, *data = NULL, *sub = NULL, *dest = NULL, *dest_dir = NULL,
         *results = NULL, *report = NULL, *json = NULL;
    cJSON *j = NULL;
    char *rubric_path = grade_runfile("rubric.json");
    char *grade = grade_runfile("grade");
    if (!rubric_path || !grade || grade_rubric_load(rubric_path, &rubric, err, sizeof(err)) != 0) {
        fprintf(stderr, "check: %s\n", rubric_path && grade ? err : "the grader was not found beside check: build it with bazel run //grading:check");
        goto done;
    }
    have_rubric = true;
    const grade_rubric_lab *lab = grade_rubric_lookup(&rubric, argv[optind]);
    if (!lab) {
        fprintf(stderr, "check: %s names no lab, or more than one; the labs are:", argv[optind]);
        for (size_t i = 0; i < rubric.n_labs; i++) fprintf(stderr, " %s", rubric.labs[i].id);
        fputc('\n', stderr);
        status_out = 64;
        goto done;
    }
    /* The student's file: theirs to name, relative to where they typed the command. */
    char buf[4096];
    deflt = grade_strf("labs/%s/lab.c", lab->id);
    const char *root = getenv("BUILD_WORKSPACE_DIRECTORY");
    in_checkout = root && *root ? grade_path_join(root, deflt) : grade_strdup(deflt);
    const char *file = optind + 1 < argc ? cli_user_path(argv[optind + 1], buf, sizeof(buf)) : in_checkout;
    size_t len = 0;
    bool cut = false;
    if (grade_read_file(file, 1u << 20, &data, &len, &cut, err, sizeof(err)) != 0 || cut) {
        fprintf(stderr, "check: %s\n", cut ? "the file is larger than 1 MiB: not a lab file" : err);
        goto done;
    }
    /* Where --report goes: the student's path, as typed. */
    char report_buf[4096];
    const char *report_to = keep_report ? cli_user_path(keep_report, report_buf, sizeof(report_buf)) : NULL;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char *tmpl = grade_strf("%s/streamlab-check.XXXXXX", tmp);
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "check: cannot make a folder in %s: %s\n", tmp, strerror(errno));
        free(tmpl);
        goto done;
    }
    work = tmpl;
    sub = grade_strf("%s/submission", tmpl);
    /* The file keeps its own name: the grader's rule for a lab file's name decides, as for
     * an upload (grade_lab_file_name: lab.c, Lab.C, lab (1).c, or the only .c file). */
    const char *own = strrchr(file, '/');
    dest = grade_strf("%s/labs/%s/%s", sub, lab->id, own ? own + 1 : file);
    dest_dir = grade_strf("%s/labs/%s", sub, lab->id);
    results = grade_strf("%s/results.json", tmpl);
    report = grade_strf("%s/report.txt", tmpl);
    if (grade_mkdir_p(dest_dir, 0755, err, sizeof(err)) != 0 || grade_write_file(dest, data, len, err, sizeof(err)) != 0) {
        fprintf(stderr, "check: %s\n", err);
        goto done;
    }
    printf("checking %s as the grader does (lab %s) ...\n", file, lab->id);
    fflush(stdout);
    if (g_signal) goto done;
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "check: cannot start the grader: %s\n", strerror(errno));
        goto done;
    }
    if (pid == 0) {
        int fd = open(report, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 1);
        const char *args[32] = {grade, "--gradescope", "--labs", lab->id, "--submission-dir", sub, "--results",
                                results, "--no-progress", "--jobs", "1"};
        int n = 11;
        for (int i = 0; i < n_pass; i++) args[n++] = pass[i];
        args[n] = NULL;
        setenv("STREAMLAB_USAGE_NAME", usage_name(), 1);
        execv(grade, (char *const *)args);
        _exit(127);
    }
    g_child = pid;
    if (g_signal) kill(pid, g_signal); /* (a signal between fork and here) */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child = 0;
    if (g_signal) {
        fprintf(stderr, "check: interrupted: nothing was graded\n");
        goto done;
    }
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    size_t jlen = 0;
    if (rc == 0 && grade_read_file(results, 64u << 20, &json, &jlen, NULL, err, sizeof(err)) == 0)
        j = cJSON_ParseWithLength(json, jlen);
    if (!j) {
        fprintf(stderr, "check: your file could not be graded (the grader's words are above%s)\n",
                rc == 0 ? "; it wrote no results" : "");
        status_out = rc ? rc : 1;
        goto done;
    }
    const cJSON *t;
    printf("\n%-40s %8s\n", "check", "points");
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tests")) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
        const char *out = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "output"));
        double score = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "score"));
        double max = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "max_score"));
        char *why = grade_text_first_line(out ? out : "", 160);
        printf("%-40s %6.2f / %.2f\n    %s\n", name ? name : "?", score, max, why);
        free(why);
    }
    double score = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "score"));
    double max = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tests"))
        max += cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "max_score"));
    printf("%-40s %6.2f / %.2f\n", "total", score, max);
    if (report_to) {
        char *text = NULL;
        size_t tlen = 0;
        if (grade_read_file(report, 64u << 20, &text, &tlen, NULL, err, sizeof(err)) != 0 ||
            grade_write_file(report_to, text, tlen, err, sizeof(err)) != 0) {
            fprintf(stderr, "check: --report: %s\n", err);
            free(text);
            goto done;
        }
        free(text);
        printf("\nthe grader's full report: %s\n", report_to);
    } else {
        printf("\nthe grader's full report (the compiler's words, races, timings, the timeline): add --report FILE\n");
    }
    status_out = 0;
done:
    if (work) {
        char e2[512];
        if (grade_rm_rf(work, e2, sizeof(e2)) != 0) fprintf(stderr, "check: %s\n", e2);
        free(work);
    }
    if (g_signal) status_out = 128 + g_signal;
    cJSON_Delete(j);
    free(json);
    free(data);
    free(in_checkout);
    free(deflt);
    free(sub);
    free(dest);
    free(dest_dir);
    free(results);
    free(report);
    free(grade);
    free(rubric_path);
    if (have_rubric) grade_rubric_free(&rubric);
    return status_out;
}
