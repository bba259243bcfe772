/* grading/grade_layout_moodle.c: a Moodle "Download submissions" folder (see
 * grade_layout.h). Moodle names each student's files <Full Name>_<id>_assignsubmission_file
 * (a folder holding them, the default since Moodle 3.1) or
 * <Full Name>_<id>_assignsubmission_file_<name> (flat files, "Download submissions in
 * folders" off), with underscores in the name made spaces; other submission plugins
 * (assignsubmission_onlinetext) hold no lab files and are skipped with a warning. Entries
 * are grouped by id into one submission of files and folders. */
#define _GNU_SOURCE
#include "grading/grade_layout.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/grade_fs.h"

static char *group(const char *s, const regmatch_t *m) {
    if (m->rm_so < 0) return grade_strdup("");
    return grade_strf("%.*s", (int)(m->rm_eo - m->rm_so), s + m->rm_so);
}

bool grade_moodle_name(const char *name, char **full_name, char **id, char **plugin, char **rest) {
    static regex_t re;
    static bool made;
    if (!made) {
        regcomp(&re, "^(.+)_([0-9]+)_assignsubmission_([a-z]+)(_(.*))?$", REG_EXTENDED);
        made = true;
    }
    regmatch_t m[6];
    if (regexec(&re, name, 6, m, 0) != 0) return false;
    if (full_name) *full_name = group(name, &m[1]);
    if (id) *id = group(name, &m[2]);
    if (plugin) *plugin = group(name, &m[3]);
    if (rest) *rest = group(name, &m[5]);
    return true;
}

int grade_layout_read_moodle(const char *dir, grade_submission_list *out, grade_buf *warn, char *err, size_t err_len) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "submissions folder %s: %s", dir, strerror(errno));
        return -1;
    }
    grade_buf bad;
    grade_buf_init(&bad);
    grade_buf_append(&bad, "", 0);
    size_t n_bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *path = grade_path_join(dir, e->d_name);
        char *full = NULL, *id = NULL, *plugin = NULL, *rest = NULL;
        struct stat st;
        bool ok = lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
        char *shown = grade_text_clean(e->d_name, strlen(e->d_name), 200);
        if (!ok || !grade_moodle_name(e->d_name, &full, &id, &plugin, &rest) ||
            (S_ISREG(st.st_mode) && !rest[0])) {
            if (n_bad++ < 10) grade_buf_printf(&bad, "\n  %s", shown);
        } else if (strcmp(plugin, "file") != 0) {
            grade_buf_printf(warn, "%s: skipped: Moodle's %s submission, not files\n", shown, plugin);
        } else {
            grade_submission *s = NULL;
            for (size_t i = 0; i < out->n && !s; i++)
                if (!strcmp(out->items[i].platform_id, id)) s = &out->items[i];
            if (!s) {
                s = grade_submission_list_add(out);
                s->name = grade_text_clean(full, strlen(full), 200);
                s->kind = GRADE_SUB_FILES;
                s->loose = true;
                s->platform_id = grade_strdup(id);
            }
            grade_submission_add_part(s, path, S_ISDIR(st.st_mode) ? e->d_name : rest);
        }
        free(shown);
        free(full);
        free(id);
        free(plugin);
        free(rest);
        free(path);
    }
    closedir(d);
    if (n_bad) {
        snprintf(err, err_len,
                 "--submissions %s, read as a Moodle download: %zu entr%s not named as Moodle names a student's "
                 "files (<Full Name>_<id>_assignsubmission_file/ or <Full Name>_<id>_assignsubmission_file_<name>), "
                 "so %s could not be given to a student:%s%s\nNothing was graded. Move %s out of the folder, or give "
                 "--layout folders if it is not a Moodle download.",
                 dir, n_bad, n_bad == 1 ? "y is" : "ies are", n_bad == 1 ? "it" : "they", bad.data,
                 n_bad > 10 ? "\n  ..." : "", n_bad == 1 ? "it" : "them");
        grade_buf_free(&bad);
        return -1;
    }
    grade_buf_free(&bad);
    grade_submission_list_finish(out, warn);
    return 0;
}
