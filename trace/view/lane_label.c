/* trace/view/lane_label.c: a stream lane's label in the columns a view gives it (see
 * lane_label.h). */
#include "trace/view/lane_label.h"

#include <stdio.h>
#include <string.h>

size_t trace_lane_label_columns(const char *s) {
    size_t n = 0;
    for (; s && *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

/* The byte offset of code point k of s (its length when s has fewer). */
static size_t offset_of(const char *s, size_t k) {
    size_t i = 0, seen = 0, n = strlen(s);
    while (i < n) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (seen == k) return i;
            seen++;
        }
        i++;
    }
    return n;
}

/* Cuts buf to at most cols code points. */
static void cut_to(char *buf, size_t cols) { buf[offset_of(buf, cols)] = '\0'; }

bool trace_lane_label_fit(const char *id, const char *name, const char *suffix, size_t cols, bool utf8, char *buf,
                          size_t len) {
    if (!len) return false;
    const char *sfx = suffix && *suffix ? suffix : "";
    const char *sep = *sfx ? " " : "";
    if (!name || !*name) {
        snprintf(buf, len, "%s%s%s", id, sep, sfx);
        cut_to(buf, cols);
        return false;
    }
    size_t fixed = trace_lane_label_columns(id) + 3 + trace_lane_label_columns(sep) + trace_lane_label_columns(sfx);
    size_t name_cols = trace_lane_label_columns(name);
    if (fixed + name_cols <= cols) {
        snprintf(buf, len, "%s \"%s\"%s%s", id, name, sep, sfx);
        return false;
    }
    if (fixed + 2 > cols) { /* not even one character and the ellipsis: cut */
        snprintf(buf, len, "%s \"%s\"%s%s", id, name, sep, sfx);
        cut_to(buf, cols);
        return true;
    }
    size_t room = cols - fixed - 1; /* the name's characters around the ellipsis */
    size_t head = (room + 1) / 2, tail = room - head;
    size_t h = offset_of(name, head), t = offset_of(name, name_cols - tail);
    snprintf(buf, len, "%s \"%.*s%s%s\"%s%s", id, (int)h, name, utf8 ? "\u2026" : "~", name + t, sep, sfx);
    return true;
}
