/* grading/submissions/grade_layout_canvas.c: a Canvas "Download submissions" folder (see
 * grade_layout.h): flat files lastfirst[_LATE]_<userid>_<attachmentid>_<original name>, a
 * student's several files grouped by user id into one submission of files (archives among
 * them are opened), each under its original name with the "-N" Canvas adds to a name the
 * student had already uploaded taken off (lab-1.c is lab.c). The student's part of a name
 * holds no '_', so the first <userid>_<attachmentid> is Canvas's: a file a student named
 * after another student stays with its uploader, and the warnings and its report say so. */
#define _GNU_SOURCE
#include "grading/submissions/grade_layout.h"

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

/* One entry of the download: a Canvas-named file goes to its uploader's submission. */
bool grade_layout_visit_canvas(const grade_layout_entry *e, void *arg, const char **note) {
    grade_layout_reading *r = arg;
    char *student = NULL, *user = NULL, *original = NULL;
    bool late = false;
    bool file = e->stat_ok && S_ISREG(e->st.st_mode);
    if (!file || !grade_canvas_name(e->name, &student, &late, &user, &original)) {
        if (!file) *note = " (not a file)";
        return true;
    }
    grade_submission *s = grade_submission_list_loose(r->out, user, student);
    /* Canvas's late flag (it knows each student's due date and extensions): a late
     * policy takes the student as late when any of their files has it (grade_late.h). */
    if (late) s->canvas_late = 2;
    else if (!s->canvas_late) s->canvas_late = 1;
    grade_submission_add_part(s, e->path, original);
    /* The first lastfirst_<userid>_<attachmentid>_ is Canvas's ([^_]+ cannot reach past
     * it); a file whose own name is another student's Canvas name stays with its
     * uploader, and both reports say so. */
    char *c_student = NULL, *c_user = NULL;
    if (grade_canvas_name(original, &c_student, NULL, &c_user, NULL) && strcmp(c_user, user))
        grade_layout_claimed(r, s, e->shown, "Canvas", "student", "user", c_student, c_user, user);
    free(c_student);
    free(c_user);
    free(student);
    free(user);
    free(original);
    return false;
}
