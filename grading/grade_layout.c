/* grading/grade_layout.c: which layout a submissions folder has, and reading it (see
 * grade_layout.h). The platforms' own readers are grade_layout_gradescope.c,
 * grade_layout_canvas.c and grade_layout_moodle.c. */
#define _GNU_SOURCE
#include "grading/grade_layout.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/grade_fs.h"

static const char *const names[] = {"auto", "folders", "gradescope-export", "canvas", "moodle"};

const char *grade_layout_name(grade_layout l) { return names[l]; }

int grade_layout_parse(const char *s, grade_layout *out) {
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *out = (grade_layout)i;
            return 0;
        }
    return -1;
}

/* Looks at dir's entries: how many are named as Moodle and Canvas name them, and whether
 * any is a folder. */
static int survey(const char *dir, size_t *moodle, size_t *canvas, size_t *folders, size_t *entries, char *err,
                  size_t err_len) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "submissions folder %s: %s", dir, strerror(errno));
        return -1;
    }
    *moodle = *canvas = *folders = *entries = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        (*entries)++;
        char *path = grade_path_join(dir, e->d_name);
        bool is_dir = grade_is_dir(path);
        free(path);
        if (is_dir) (*folders)++;
        if (grade_moodle_name(e->d_name, NULL, NULL, NULL, NULL)) (*moodle)++;
        else if (!is_dir && grade_canvas_name(e->d_name, NULL, NULL, NULL, NULL)) (*canvas)++;
    }
    closedir(d);
    return 0;
}

int grade_layout_read(const char *dir, grade_layout forced, const grade_roster *roster, grade_submission_list *out,
                      grade_layout *used, char **how, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    *how = NULL;
    grade_layout l = forced;
    char *why = NULL;
    if (l == GRADE_LAYOUT_AUTO) {
        size_t moodle, canvas, folders, entries;
        if (survey(dir, &moodle, &canvas, &folders, &entries, err, err_len) != 0) return -1;
        char *yml = grade_path_join(dir, "submission_metadata.yml");
        bool export = grade_is_file(yml);
        free(yml);
        if (export) {
            l = GRADE_LAYOUT_GRADESCOPE;
            why = grade_strdup("it holds submission_metadata.yml");
        } else if (moodle) {
            l = GRADE_LAYOUT_MOODLE;
            why = grade_strf("%zu of its %zu entries are named <Full Name>_<id>_assignsubmission_...", moodle, entries);
        } else if (canvas && !folders) {
            l = GRADE_LAYOUT_CANVAS;
            why = grade_strf("%zu of its %zu files are named lastfirst_<userid>_<attachmentid>_<name>", canvas,
                             entries);
        } else {
            l = GRADE_LAYOUT_FOLDERS;
            why = grade_strdup("one folder, archive or .c file per student");
        }
    } else {
        why = grade_strdup("--layout");
    }
    grade_buf warn;
    grade_buf_init(&warn);
    grade_buf_append(&warn, "", 0);
    int rc;
    switch (l) {
    case GRADE_LAYOUT_GRADESCOPE: rc = grade_layout_read_gradescope(dir, out, &warn, err, err_len); break;
    case GRADE_LAYOUT_CANVAS: rc = grade_layout_read_canvas(dir, out, &warn, err, err_len); break;
    case GRADE_LAYOUT_MOODLE: rc = grade_layout_read_moodle(dir, out, &warn, err, err_len); break;
    default: {
        rc = grade_submissions_list(dir, out, err, err_len);
        if (rc == 0) {
            grade_buf_puts(&warn, out->warnings);
            free(out->warnings);
            out->warnings = NULL;
        }
        break;
    }
    }
    if (rc != 0) {
        grade_buf_free(&warn);
        grade_submission_list_free(out);
        free(why);
        return -1;
    }
    if (roster) {
        /* Before the names become the roster's: a folder is found by its own name. */
        grade_roster_add_missing(roster, out, &warn);
        grade_roster_apply(roster, out, &warn);
        grade_submission_list_finish(out, &warn);
    }
    free(out->warnings);
    out->warnings = grade_buf_take(&warn);
    *used = l;
    static const char *const what[] = {"", "the documented layout", "a Gradescope \"Export submissions\" folder",
                                       "a Canvas \"Download submissions\" folder",
                                       "a Moodle \"Download submissions\" folder"};
    *how = forced == GRADE_LAYOUT_AUTO
               ? grade_strf("--submissions %s: read as %s (--layout %s, detected: %s; give --layout to choose another)",
                            dir, what[l], names[l], why)
               : grade_strf("--submissions %s: read as %s (--layout %s)", dir, what[l], names[l]);
    free(why);
    return 0;
}
