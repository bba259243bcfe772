/* puzzles/source.c: the shown parts of a puzzle's source (source.h). */
#include "puzzles/source.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Whether the line [s, e) is a marker: optional blanks, then exactly mark. */
static bool is_marker(const char *s, const char *e, const char *mark) {
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    size_t n = strlen(mark);
    return (size_t)(e - s) == n && memcmp(s, mark, n) == 0;
}

char *puzzle_shown_code(const char *path) {
    const char *text = NULL;
    for (const puzzle_source_file *f = puzzle_source_files; f->path; f++)
        if (strcmp(f->path, path) == 0) text = f->text;
    if (!text) return NULL;
    size_t cap = strlen(text) + 64, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    bool inside = false, any = false;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        if (!e) e = s + strlen(s);
        if (is_marker(s, e, "// [show]")) {
            if (any) out[len++] = '\n';
            inside = any = true;
        } else if (is_marker(s, e, "// [/show]")) {
            inside = false;
        } else if (inside) {
            memcpy(out + len, s, (size_t)(e - s));
            len += (size_t)(e - s);
            out[len++] = '\n';
        }
        s = *e ? e + 1 : e;
    }
    out[len] = '\0';
    if (!any) {
        free(out);
        return NULL;
    }
    return out;
}
