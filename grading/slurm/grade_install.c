/* grading/slurm/grade_install.c: a standalone copy of the grader, its kits, rubric and lab
 * catalog (see grade_install.h). */
#define _GNU_SOURCE
#include "grading/slurm/grade_install.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_kit.h"

#define MARKER "INSTALLED.txt"

/* Whether dir is missing, empty, or an earlier install. */
static int check_target(const char *dir, char *err, size_t err_len) {
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return 0;
        snprintf(err, err_len, "--install %s: %s", dir, strerror(errno));
        return -1;
    }
    bool empty = true;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = false;
    closedir(d);
    char *marker = grade_path_join(dir, MARKER);
    bool installed = grade_is_file(marker);
    free(marker);
    if (empty || installed) return 0;
    snprintf(err, err_len,
             "--install %s: the folder holds files of something else (no %s): give a new or empty folder, or an "
             "earlier install to replace",
             dir, MARKER);
    return -1;
}

/* Copies a file with mode. */
static int copy_file(const char *src, const char *dst, mode_t mode, char *err, size_t err_len) {
    char *data = NULL;
    size_t len = 0;
    bool cut = false;
    if (grade_read_file(src, 1u << 30, &data, &len, &cut, err, err_len) != 0) return -1;
    int rc = -1;
    if (cut) {
        snprintf(err, err_len, "%s: larger than 1 GiB", src);
    } else if (unlink(dst) != 0 && errno != ENOENT) {
        snprintf(err, err_len, "%s: %s", dst, strerror(errno));
    } else {
        rc = grade_write_new_file(dst, data, len, mode, err, err_len);
        if (rc == 0 && chmod(dst, mode) != 0) { /* (the umask) */
            snprintf(err, err_len, "%s: %s", dst, strerror(errno));
            rc = -1;
        }
    }
    free(data);
    return rc;
}

bool grade_install_inside(const char *path, const char *dir) {
    char *p = realpath(path, NULL), *d = realpath(dir, NULL);
    bool inside = p && d && !strncmp(p, d, strlen(d)) && (p[strlen(d)] == '/' || p[strlen(d)] == '\0');
    free(p);
    free(d);
    return inside;
}

static bool wanted(const grade_install_what *w, const char *lab) {
    if (!w->labs) return true;
    for (size_t i = 0; i < w->n_labs; i++)
        if (!strcmp(w->labs[i], lab)) return true;
    return false;
}

int grade_install(const grade_install_what *w, const char *dir, char *err, size_t err_len) {
    if (check_target(dir, err, err_len) != 0) return -1;
    if (grade_install_inside(w->kits_dir, dir)) {
        snprintf(err, err_len,
                 "--install %s: the kits come from that folder itself (%s), which installing replaces: install from "
                 "the build (bazel run //grading:grade -- --install %s) or into another folder",
                 dir, w->kits_dir, dir);
        return -1;
    }
    grade_kit_set set = {0};
    if (grade_kit_set_load(w->kits_dir, &set, err, err_len) != 0) return -1;
    int rc = -1;
    char *kits = grade_path_join(dir, "kits"), *labs = grade_path_join(dir, "labs");
    char *prog = grade_path_join(dir, "grade"), *rubric = grade_path_join(dir, "rubric.json");
    char *catalog = grade_path_join(labs, "catalog.json"), *marker = grade_path_join(dir, MARKER);
    grade_buf list;
    grade_buf_init(&list);
    /* An earlier install's kits may be of other labs: replaced whole. */
    if (grade_mkdir_p(dir, 0755, err, err_len) != 0 || chmod(dir, 0755) != 0 || grade_rm_rf(kits, err, err_len) != 0 ||
        grade_rm_rf(labs, err, err_len) != 0 || grade_mkdir_p(kits, 0755, err, err_len) != 0)
        goto out;
    size_t n = 0;
    for (size_t i = 0; i < set.n; i++) {
        const grade_kit *k = &set.kits[i];
        if (!wanted(w, k->lab)) continue;
        char *base = grade_strdup(k->dir);
        size_t blen = strlen(base);
        while (blen > 1 && base[blen - 1] == '/') base[--blen] = '\0';
        const char *slash = strrchr(base, '/');
        char *dest = grade_path_join(kits, slash ? slash + 1 : base);
        grade_kit copy;
        int k_rc = grade_kit_install(k, dest, &copy, err, err_len);
        if (k_rc == 0) {
            grade_buf_printf(&list, "  kits/%s\n", slash ? slash + 1 : base);
            grade_kit_free(&copy);
            n++;
        }
        free(dest);
        free(base);
        if (k_rc != 0) goto out;
    }
    if (n == 0) {
        snprintf(err, err_len, "--install: no kit of the labs to install in %s", w->kits_dir);
        goto out;
    }
    if (copy_file(w->grade, prog, 0755, err, err_len) != 0 || copy_file(w->rubric, rubric, 0644, err, err_len) != 0)
        goto out;
    if (w->catalog &&
        (grade_mkdir_p(labs, 0755, err, err_len) != 0 || copy_file(w->catalog, catalog, 0644, err, err_len) != 0))
        goto out;
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
    char *text = grade_strf("streamlab grader installed by `%s --install` on %s, from\n  %s (the grader)\n  %s (the "
                            "kits)\n  %s (the rubric)\nIt finds its kits, rubric and lab catalog beside itself: run "
                            "%s/grade --help. Installed:\n  grade\n  rubric.json\n%s%s",
                            w->usage, when, w->grade, w->kits_dir, w->rubric, dir, w->catalog ? "  labs/catalog.json\n" : "",
                            list.data ? list.data : "");
    rc = grade_write_file(marker, text, strlen(text), err, err_len);
    free(text);
out:
    grade_buf_free(&list);
    grade_kit_set_free(&set);
    free(kits);
    free(labs);
    free(prog);
    free(rubric);
    free(catalog);
    free(marker);
    return rc;
}
