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

/* One entry of the download: a Moodle-named file or folder of the file plugin goes to its
 * uploader's submission; another plugin's is skipped with a warning. */
bool grade_layout_visit_moodle(const grade_layout_entry *e, void *arg, const char **note) {
    (void)note;
    grade_layout_reading *r = arg;
    char *full = NULL, *id = NULL, *plugin = NULL, *rest = NULL;
    bool is_file = e->stat_ok && S_ISREG(e->st.st_mode), is_dir = e->stat_ok && S_ISDIR(e->st.st_mode);
    bool misnamed = false;
    if ((!is_file && !is_dir) || !grade_moodle_name(e->name, &full, &id, &plugin, &rest) || (is_file && !rest[0])) {
        misnamed = true;
    } else if (strcmp(plugin, "file") != 0) {
        grade_buf_printf(r->warn, "%s: skipped: Moodle's %s submission, not files\n", e->shown, plugin);
    } else {
        grade_submission *s = grade_submission_list_loose(r->out, id, full);
        grade_submission_add_part(s, e->path, is_dir ? e->name : rest);
        /* A file whose own name is another participant's Moodle name stays with its
         * uploader (the prefix Moodle wrote), and both reports say so. */
        char *c_full = NULL, *c_id = NULL;
        if (is_file && grade_moodle_name(rest, &c_full, &c_id, NULL, NULL) && strcmp(c_id, id))
            grade_layout_claimed(r, s, e->shown, "Moodle", "participant", "id", c_full, c_id, id);
        free(c_full);
        free(c_id);
    }
    free(full);
    free(id);
    free(plugin);
    free(rest);
    return misnamed;
}
