/* grading/submissions/grade_layout_moodle.c: a Moodle "Download submissions" folder (see
 * grade_layout.h). Moodle names each student's files <Full Name>_<id>_assignsubmission_file
 * (a folder holding them, the default since Moodle 3.1) or
 * <Full Name>_<id>_assignsubmission_file_<name> (flat files, "Download submissions in
 * folders" off), with underscores in the name made spaces; other submission plugins
 * (assignsubmission_onlinetext) hold no lab files and are skipped with a warning. Entries
 * are grouped by id into one submission of files and folders. The first
 * <Full Name>_<id>_assignsubmission_ of a name is Moodle's: a flat file that a student
 * named after another participant ("Alice Adams_111_assignsubmission_file_lab.c", exported
 * as "Bob Baker_222_assignsubmission_file_Alice Adams_111_assignsubmission_file_lab.c")
 * stays with its uploader, Bob, and is said in the warnings and Bob's report. */
#define _GNU_SOURCE
#include "grading/submissions/grade_layout.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/base/grade_fs.h"

/* Moodle writes <Full Name>_<id>_assignsubmission_<plugin>[_<name>]: the first
 * "_<id>_assignsubmission_" of an entry's name is Moodle's (its full names hold no '_': it
 * makes them spaces), and what follows the plugin is the student's own file name, which may
 * hold anything, another such prefix too. */
bool grade_moodle_name(const char *name, char **full_name, char **id, char **plugin, char **rest) {
    static const char tag[] = "_assignsubmission_";
    const char *t = strstr(name, tag);
    if (!t) return false;
    const char *d = t;
    while (d > name && d[-1] >= '0' && d[-1] <= '9') d--;
    /* <Full Name> (not empty) '_' <digits> */
    if (d == t || d - name < 2 || d[-1] != '_') return false;
    const char *p = t + strlen(tag), *q = p;
    while (*q >= 'a' && *q <= 'z') q++;
    if (q == p || (*q && *q != '_')) return false;
    if (full_name) *full_name = grade_strf("%.*s", (int)(d - 1 - name), name);
    if (id) *id = grade_strf("%.*s", (int)(t - d), d);
    if (plugin) *plugin = grade_strf("%.*s", (int)(q - p), p);
    if (rest) *rest = grade_strdup(*q ? q + 1 : "");
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
            grade_submission *s = grade_submission_list_loose(out, id, full);
            grade_submission_add_part(s, path, S_ISDIR(st.st_mode) ? e->d_name : rest);
            /* A file whose own name is another participant's Moodle name stays with its
             * uploader (the prefix Moodle wrote), and both reports say so. */
            char *c_full = NULL, *c_id = NULL;
            if (S_ISREG(st.st_mode) && grade_moodle_name(rest, &c_full, &c_id, NULL, NULL) && strcmp(c_id, id)) {
                char *c_shown = grade_text_clean(c_full, strlen(c_full), 200);
                s->parts[s->n_parts - 1].claim =
                    grade_strf("its own name claims another participant, %s (Moodle id %s), but Moodle's prefix says "
                               "%s (id %s) uploaded it",
                               c_shown, c_id, s->name, id);
                grade_buf_printf(warn, "%s: its own name claims another participant, %s (Moodle id %s); Moodle's "
                                       "prefix says %s (id %s) uploaded it: graded as %s's\n",
                                 shown, c_shown, c_id, s->name, id, s->name);
                free(c_shown);
            }
            free(c_full);
            free(c_id);
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
