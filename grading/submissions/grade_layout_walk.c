/* grading/submissions/grade_layout_walk.c: the walk over a submissions folder's entries
 * (grade_layout_walk.h). */
#define _GNU_SOURCE
#include "grading/submissions/grade_layout_walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"

int grade_layout_walk(const char *dir, const char *skip, const char *sep, grade_layout_visit visit, void *arg,
                      grade_layout_misnamed *bad, char *err, size_t err_len) {
    memset(bad, 0, sizeof(*bad));
    grade_buf_init(&bad->list);
    grade_buf_append(&bad->list, "", 0);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "submissions folder %s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || (skip && !strcmp(de->d_name, skip))) continue;
        grade_layout_entry e;
        memset(&e, 0, sizeof(e));
        char *path = grade_path_join(dir, de->d_name);
        char *shown = grade_text_clean(de->d_name, strlen(de->d_name), 200);
        e.name = de->d_name;
        e.path = path;
        e.shown = shown;
        e.stat_ok = lstat(path, &e.st) == 0;
        e.stat_errno = e.stat_ok ? 0 : errno;
        const char *note = "";
        if (visit(&e, arg, &note) && bad->n++ < GRADE_LAYOUT_LISTED)
            grade_buf_printf(&bad->list, "%s%s%s", bad->n > 1 ? sep : "", shown, note);
        free(shown);
        free(path);
    }
    closedir(d);
    return 0;
}

void grade_layout_misnamed_free(grade_layout_misnamed *bad) {
    grade_buf_free(&bad->list);
    bad->n = 0;
}
