/* grading/build/grade_diag.c: the line of a build's diagnostics a reason quotes (see
 * grade_diag.h). */
#include "grading/build/grade_diag.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"

#define QUOTE_MAX 300

static const char *const error_marks[] = {": error:", ": fatal error:", "undefined reference", "multiple definition",
                                          "error:", NULL};

static const char *line_start(const char *text, const char *p) {
    while (p > text && p[-1] != '\n') p--;
    return p;
}

static const char *next_line(const char *p) {
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

/* Whether the line at p is a diagnostic of its own ("file:line:col: error: ..."), not a
 * note, a source excerpt (which starts with a space) or an "In function" header. */
static bool is_diagnostic(const char *p) {
    if (*p == ' ' || *p == '\t') return false;
    size_t n = strcspn(p, "\n");
    for (const char *const *m = error_marks; *m; m++) {
        const char *hit = strstr(p, *m);
        if (hit && (size_t)(hit - p) < n) return true;
    }
    const char *w = strstr(p, ": warning:");
    return w && (size_t)(w - p) < n;
}

/* The student's line that the notes after the error at `err` name: "FILE:L:C: note: in
 * expansion of macro 'M'" (the outermost expansion, in the student's file), up to the next
 * diagnostic. Returns the quote, or NULL when no note names the student's file. */
static char *through_macro(const char *err, const char *student_file) {
    size_t sf = strlen(student_file);
    const char *found = NULL;
    for (const char *p = next_line(err); p && *p && !is_diagnostic(p); p = next_line(p)) {
        if (strncmp(p, student_file, sf) != 0 || p[sf] != ':') continue;
        const char *note = strstr(p, ": note: in expansion of macro");
        size_t n = strcspn(p, "\n");
        if (note && (size_t)(note - p) < n) found = p;
    }
    if (!found) return NULL;
    /* "lab.c:46:5" from the note; "error: expected ..." from the error; the macro's name
     * and where the error lies from both. */
    const char *note = strstr(found, ": note: ");
    char *where = grade_text_first_line(found, (size_t)(note - found));
    char *what = grade_text_first_line(found + (note - found) + strlen(": note: "), QUOTE_MAX);
    const char *msg = NULL;
    size_t err_len = strcspn(err, "\n");
    for (const char *const *m = error_marks; *m && !msg; m++) {
        const char *hit = strstr(err, *m);
        if (hit && (size_t)(hit - err) < err_len) msg = hit;
    }
    char *quote;
    if (msg) {
        /* The header's place: the error line up to its ": error:". */
        char *header_at = grade_text_first_line(err, (size_t)(msg - err));
        char *message = grade_text_first_line(msg + 2, QUOTE_MAX);
        quote = grade_strf("%s: %s (%s from %s)", where, message, what, header_at);
        free(header_at);
        free(message);
    } else {
        char *error_line = grade_text_first_line(err, QUOTE_MAX);
        quote = grade_strf("%s: %s (%s)", where, error_line, what);
        free(error_line);
    }
    free(where);
    free(what);
    if (strlen(quote) > QUOTE_MAX * 2) quote[QUOTE_MAX * 2] = '\0';
    return quote;
}

char *grade_diag_first_error(const char *diag, const char *student_file) {
    size_t sf = strlen(student_file);
    /* First: the first error that is about the student's file, directly or through a
     * macro the student's line expands; the compiler's "error:" marks in order of how
     * surely they are errors. */
    for (const char *const *m = error_marks; *m; m++) {
        for (const char *hit = strstr(diag, *m); hit; hit = strstr(hit + 1, *m)) {
            const char *start = line_start(diag, hit);
            if (*start == ' ' || *start == '\t') continue; /* a source excerpt */
            if (!strncmp(start, student_file, sf)) return grade_text_first_line(start, QUOTE_MAX);
            char *via = through_macro(start, student_file);
            if (via) return via;
        }
    }
    /* Else the first error of any file. */
    for (const char *const *m = error_marks; *m; m++) {
        const char *hit = strstr(diag, *m);
        if (hit) return grade_text_first_line(line_start(diag, hit), QUOTE_MAX);
    }
    return *diag ? grade_text_first_line(diag, QUOTE_MAX) : grade_strdup("");
}

char *grade_diag_cuda_missing(const char *quoted) {
    /* gcc quotes names with ' in the C locale and with U+2018/U+2019 in C.UTF-8 (the sandbox's). */
    static const char *const kinds[] = {"unknown type name ", "error: ", "implicit declaration of function "};
    static const struct {
        const char *open, *close;
    } quotes[] = {{"'", "'"}, {"\xe2\x80\x98", "\xe2\x80\x99"}};
    for (size_t k = 0; quoted && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        for (size_t q = 0; q < sizeof(quotes) / sizeof(quotes[0]); q++) {
            char lead[64];
            snprintf(lead, sizeof(lead), "%s%s", kinds[k], quotes[q].open);
            const char *at = strstr(quoted, lead);
            if (!at) continue;
            const char *name = at + strlen(lead), *end = strstr(name, quotes[q].close);
            if (!end || end == name || end - name > 80) continue;
            size_t len = (size_t)(end - name);
            bool cuda = !strncmp(name, "cuda", 4) ||
                        (len > 2 && name[0] == 'c' && name[1] == 'u' && isupper((unsigned char)name[2]));
            /* "error: 'X' undeclared": only that form of the plain "error: " kind. */
            const char *after = end + strlen(quotes[q].close);
            if (cuda && (k != 1 || !strncmp(after, " undeclared", 11)))
                return grade_strf("%.*s is a part of CUDA the labs do not offer (docs/simulator.md says what the "
                                  "simulated runtime models)",
                                  (int)len, name);
        }
    }
    return grade_strdup("");
}
