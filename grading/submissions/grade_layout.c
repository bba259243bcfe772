/* grading/submissions/grade_layout.c: which layout a submissions folder has, and reading it (see
 * grade_layout.h). The platforms' own readers are grade_layout_gradescope.c,
 * grade_layout_canvas.c and grade_layout_moodle.c. */
#define _GNU_SOURCE
#include "grading/submissions/grade_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"

/* What a look at a submissions folder's entries found, for detection. */
typedef struct survey {
    size_t moodle, canvas, folders, entries;
    bool export_yml; /* it holds submission_metadata.yml */
} survey;

static bool detect_gradescope(const survey *s, char **why) {
    if (!s->export_yml) return false;
    *why = grade_strdup("it holds submission_metadata.yml");
    return true;
}

static bool detect_moodle(const survey *s, char **why) {
    if (!s->moodle) return false;
    *why = grade_strf("%zu of its %zu entries are named <Full Name>_<id>_assignsubmission_...", s->moodle, s->entries);
    return true;
}

static bool detect_canvas(const survey *s, char **why) {
    if (!s->canvas || s->folders) return false;
    *why = grade_strf("%zu of its %zu files are named lastfirst_<userid>_<attachmentid>_<name>", s->canvas, s->entries);
    return true;
}

static bool detect_folders(const survey *s, char **why) {
    (void)s;
    *why = grade_strdup("one folder, archive or .c file per student");
    return true;
}

static int read_folders(const char *dir, grade_submission_list *out, grade_buf *warn, char *err, size_t err_len) {
    int rc = grade_submissions_list(dir, out, err, err_len);
    if (rc == 0) {
        grade_buf_puts(warn, out->warnings);
        free(out->warnings);
        out->warnings = NULL;
    }
    return rc;
}

/* Every layout the grader reads, one row each, in the order detection tries them (the
 * documented layout last: it takes whatever the others do not). A new platform is a row
 * here, its reader and its name in grade_layout.h's enum. */
static const struct layout_row {
    grade_layout id;
    const char *name; /* --layout's word */
    const char *what; /* how the line that says which was read names it */
    bool (*detect)(const survey *s, char **why);
    /* Its reader: a whole folder's, or (a download) an entry's, with the platform's name
     * and how it names a student's files, for the error that refuses a misnamed entry. */
    int (*read)(const char *dir, grade_submission_list *out, grade_buf *warn, char *err, size_t err_len);
    grade_layout_visit visit;
    const char *platform, *naming;
} rows[] = {
    {GRADE_LAYOUT_GRADESCOPE, "gradescope-export", "a Gradescope \"Export submissions\" folder", detect_gradescope,
     grade_layout_read_gradescope, NULL, NULL, NULL},
    {GRADE_LAYOUT_MOODLE, "moodle", "a Moodle \"Download submissions\" folder", detect_moodle, NULL,
     grade_layout_visit_moodle, "Moodle",
     "<Full Name>_<id>_assignsubmission_file/ or <Full Name>_<id>_assignsubmission_file_<name>"},
    {GRADE_LAYOUT_CANVAS, "canvas", "a Canvas \"Download submissions\" folder", detect_canvas, NULL,
     grade_layout_visit_canvas, "Canvas", "lastfirst[_LATE]_<userid>_<attachmentid>_<name>"},
    {GRADE_LAYOUT_FOLDERS, "folders", "the documented layout", detect_folders, read_folders, NULL, NULL, NULL},
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static const struct layout_row *row_of(grade_layout l) {
    for (size_t i = 0; i < N_ROWS; i++)
        if (rows[i].id == l) return &rows[i];
    return NULL;
}

const char *grade_layout_name(grade_layout l) {
    const struct layout_row *r = row_of(l);
    return r ? r->name : "auto";
}

int grade_layout_parse(const char *s, grade_layout *out) {
    if (!strcmp(s, "auto")) {
        *out = GRADE_LAYOUT_AUTO;
        return 0;
    }
    for (size_t i = 0; i < N_ROWS; i++)
        if (!strcmp(s, rows[i].name)) {
            *out = rows[i].id;
            return 0;
        }
    return -1;
}

const char *grade_layout_choices(void) {
    static char list[256];
    if (!list[0]) {
        size_t at = (size_t)snprintf(list, sizeof(list), "auto");
        /* The documented layout first, as the usage gives them. */
        for (size_t k = 0; k < N_ROWS && at < sizeof(list); k++) {
            size_t i = (N_ROWS - 1 + k) % N_ROWS;
            at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", k + 1 == N_ROWS ? " or " : ", ",
                                   rows[i].name);
        }
    }
    return list;
}

/* Counts one entry into the survey (arg); none is misnamed. */
static bool survey_entry(const grade_layout_entry *e, void *arg, const char **note) {
    (void)note;
    survey *s = arg;
    s->entries++;
    bool is_dir = grade_is_dir(e->path);
    if (is_dir) s->folders++;
    if (grade_moodle_name(e->name, NULL, NULL, NULL, NULL)) s->moodle++;
    else if (!is_dir && grade_canvas_name(e->name, NULL, NULL, NULL, NULL)) s->canvas++;
    return false;
}

/* Looks at dir's entries: how many are named as Moodle and Canvas name them, whether any
 * is a folder, and whether it holds an export's metadata. */
static int survey_dir(const char *dir, survey *s, char *err, size_t err_len) {
    memset(s, 0, sizeof(*s));
    grade_layout_misnamed none;
    int rc = grade_layout_walk(dir, NULL, "", survey_entry, s, &none, err, err_len);
    grade_layout_misnamed_free(&none);
    if (rc != 0) return -1;
    char *yml = grade_path_join(dir, "submission_metadata.yml");
    s->export_yml = grade_is_file(yml);
    free(yml);
    return 0;
}

/* Reads a download (a row with a visit): walks dir, giving each entry to the row's visit.
 * When any is misnamed, nothing is graded: -1, with err naming the first few, the platform
 * and how it names a student's files. Else finishes out and returns 0. */
static int read_download(const struct layout_row *row, const char *dir, grade_submission_list *out, grade_buf *warn,
                         char *err, size_t err_len) {
    const char *platform = row->platform, *naming = row->naming;
    grade_layout_reading reading = {out, warn};
    grade_layout_misnamed bad;
    if (grade_layout_walk(dir, NULL, "\n  ", row->visit, &reading, &bad, err, err_len) != 0) {
        grade_layout_misnamed_free(&bad);
        return -1;
    }
    if (bad.n) {
        size_t n = bad.n;
        snprintf(err, err_len,
                 "--submissions %s, read as a %s download: %zu entr%s not named as %s names a student's files (%s), "
                 "so %s could not be given to a student:\n  %s%s\nNothing was graded. Move %s out of the folder, or "
                 "give --layout folders if it is not a %s download.",
                 dir, platform, n, n == 1 ? "y is" : "ies are", platform, naming, n == 1 ? "it" : "they",
                 bad.list.data, n > GRADE_LAYOUT_LISTED ? "\n  ..." : "", n == 1 ? "it" : "them", platform);
        grade_layout_misnamed_free(&bad);
        return -1;
    }
    grade_layout_misnamed_free(&bad);
    grade_submission_list_finish(out, warn);
    return 0;
}

void grade_layout_claimed(grade_layout_reading *r, grade_submission *s, const char *shown, const char *platform,
                          const char *person, const char *id_word, const char *c_name, const char *c_id,
                          const char *id) {
    char *c_shown = grade_text_clean(c_name, strlen(c_name), 200);
    s->parts[s->n_parts - 1].claim =
        grade_strf("its own name claims another %s, %s (%s %s %s), but %s's prefix says %s (%s %s) uploaded it", person,
                   c_shown, platform, id_word, c_id, platform, s->name, id_word, id);
    grade_buf_printf(r->warn,
                     "%s: its own name claims another %s, %s (%s %s %s); %s's prefix says %s (%s %s) uploaded it: "
                     "graded as %s's\n",
                     shown, person, c_shown, platform, id_word, c_id, platform, s->name, id_word, id, s->name);
    free(c_shown);
}

int grade_layout_read(const char *dir, grade_layout forced, const grade_roster *roster, grade_submission_list *out,
                      grade_layout *used, char **how, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    *how = NULL;
    const struct layout_row *row = row_of(forced);
    char *why = NULL;
    if (!row) {
        survey s;
        if (survey_dir(dir, &s, err, err_len) != 0) return -1;
        for (size_t i = 0; i < N_ROWS && !row; i++)
            if (rows[i].detect(&s, &why)) row = &rows[i];
    } else {
        why = grade_strdup("--layout");
    }
    grade_buf warn;
    grade_buf_init(&warn);
    grade_buf_append(&warn, "", 0);
    int rc = row->read ? row->read(dir, out, &warn, err, err_len) : read_download(row, dir, out, &warn, err, err_len);
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
    *used = row->id;
    *how = forced == GRADE_LAYOUT_AUTO
               ? grade_strf("--submissions %s: read as %s (--layout %s, detected: %s; give --layout to choose another)",
                            dir, row->what, row->name, why)
               : grade_strf("--submissions %s: read as %s (--layout %s)", dir, row->what, row->name);
    free(why);
    return 0;
}
