/* grading/submissions/grade_layout_canvas.c: a Canvas "Download submissions" folder (see
 * grade_layout.h): flat files lastfirst[_LATE]_<userid>_<attachmentid>_<original name>, a
 * student's several files grouped by user id into one submission of files (archives among
 * them are opened), each under its original name with the "-N" Canvas adds to a name the
 * student had already uploaded taken off (lab-1.c is lab.c). The student's part of a name
 * holds no '_', so the first <userid>_<attachmentid> is Canvas's: a file a student named
 * after another student stays with its uploader, and the warnings and its report say so. */
#define _GNU_SOURCE
#include "grading/submissions/grade_layout.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/base/grade_fs.h"

static char *group(const char *s, const regmatch_t *m) {
    if (m->rm_so < 0) return grade_strdup("");
    return grade_strf("%.*s", (int)(m->rm_eo - m->rm_so), s + m->rm_so);
}

bool grade_canvas_name(const char *name, char **student, bool *late, char **user_id, char **original) {
    static regex_t re;
    static bool made;
    if (!made) {
        regcomp(&re, "^([^_]+)(_[Ll][Aa][Tt][Ee])?_([0-9]+)_([0-9]+)_(.+)$", REG_EXTENDED);
        made = true;
    }
    regmatch_t m[6];
    if (regexec(&re, name, 6, m, 0) != 0) return false;
    if (student) *student = group(name, &m[1]);
    if (late) *late = m[2].rm_so >= 0;
    if (user_id) *user_id = group(name, &m[3]);
    if (original) {
        char *o = group(name, &m[5]);
        /* lab-1.c -> lab.c, notes-12 -> notes */
        char *dot = strrchr(o, '.');
        size_t stem = dot && dot != o ? (size_t)(dot - o) : strlen(o);
        size_t k = stem;
        while (k > 0 && o[k - 1] >= '0' && o[k - 1] <= '9') k--;
        if (k < stem && k > 1 && o[k - 1] == '-') memmove(o + k - 1, o + stem, strlen(o + stem) + 1);
        *original = o;
    }
    return true;
}

int grade_layout_read_canvas(const char *dir, grade_submission_list *out, grade_buf *warn, char *err, size_t err_len) {
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
        char *student = NULL, *user = NULL, *original = NULL;
        bool late = false;
        struct stat st;
        bool file = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
        if (!file || !grade_canvas_name(e->d_name, &student, &late, &user, &original)) {
            char *shown = grade_text_clean(e->d_name, strlen(e->d_name), 200);
            if (n_bad++ < 10) grade_buf_printf(&bad, "\n  %s%s", shown, file ? "" : " (not a file)");
            free(shown);
            free(path);
            continue;
        }
        grade_submission *s = grade_submission_list_loose(out, user, student);
        /* Canvas's late flag (it knows each student's due date and extensions): a late
         * policy takes the student as late when any of their files has it (grade_late.h). */
        if (late) s->canvas_late = 2;
        else if (!s->canvas_late) s->canvas_late = 1;
        grade_submission_add_part(s, path, original);
        /* The first lastfirst_<userid>_<attachmentid>_ is Canvas's ([^_]+ cannot reach past
         * it); a file whose own name is another student's Canvas name stays with its
         * uploader, and both reports say so. */
        char *c_student = NULL, *c_user = NULL;
        if (grade_canvas_name(original, &c_student, NULL, &c_user, NULL) && strcmp(c_user, user)) {
            char *c_shown = grade_text_clean(c_student, strlen(c_student), 200);
            char *shown = grade_text_clean(e->d_name, strlen(e->d_name), 200);
            s->parts[s->n_parts - 1].claim =
                grade_strf("its own name claims another student, %s (Canvas user %s), but Canvas's prefix says %s "
                           "(user %s) uploaded it",
                           c_shown, c_user, s->name, user);
            grade_buf_printf(warn, "%s: its own name claims another student, %s (Canvas user %s); Canvas's prefix "
                                   "says %s (user %s) uploaded it: graded as %s's\n",
                             shown, c_shown, c_user, s->name, user, s->name);
            free(shown);
            free(c_shown);
        }
        free(c_student);
        free(c_user);
        free(student);
        free(user);
        free(original);
        free(path);
    }
    closedir(d);
    if (n_bad) {
        snprintf(err, err_len,
                 "--submissions %s, read as a Canvas download: %zu entr%s not named as Canvas names a student's "
                 "files (lastfirst[_LATE]_<userid>_<attachmentid>_<name>), so %s could not be given to a student:%s%s\n"
                 "Nothing was graded. Move %s out of the folder, or give --layout folders if it is not a Canvas "
                 "download.",
                 dir, n_bad, n_bad == 1 ? "y is" : "ies are", n_bad == 1 ? "it" : "they", bad.data,
                 n_bad > 10 ? "\n  ..." : "", n_bad == 1 ? "it" : "them");
        grade_buf_free(&bad);
        return -1;
    }
    grade_buf_free(&bad);
    grade_submission_list_finish(out, warn);
    return 0;
}
