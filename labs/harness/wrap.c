/* labs/harness/wrap.c: the lab report's prose at 80 columns (see wrap.h). */
#define _GNU_SOURCE
#include "labs/harness/wrap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "labs/harness/result_schema.h"

size_t lab_wrap_columns(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80) n++;
    return n;
}

static size_t leading_spaces(const char *line, size_t len) {
    size_t i = 0;
    while (i < len && line[i] == ' ') i++;
    return i;
}

/* The label column of a line, "  correct    " or "  stream 0   ": after the indent, one
 * or two words of at most 12 characters in all, then two spaces or more. Returns where the
 * text after it starts, or 0 when the line has none. */
static size_t label_column(const char *line, size_t len) {
    size_t i = leading_spaces(line, len), start = i, words = 0;
    while (i < len && words < 2) {
        while (i < len && line[i] != ' ') i++;
        words++;
        if (i - start > 12) return 0;
        if (i + 1 < len && line[i] == ' ' && line[i + 1] == ' ') {
            size_t j = i;
            while (j < len && line[j] == ' ') j++;
            return j < len ? j : 0;
        }
        if (i < len) i++; /* one space: the label's second word, if it has one */
    }
    return 0;
}

/* A label ending in ": " within the line's first 16 characters after its indent ("fix: ",
 * "Next: ", "left: ", "race 12: "). Returns where the text after it starts, or 0. */
static size_t colon_label(const char *line, size_t len) {
    size_t start = leading_spaces(line, len);
    for (size_t i = start; i + 1 < len && i < start + 16; i++) {
        if (line[i] == ':' && line[i + 1] == ' ' && i > start) return i + 2;
        if (line[i] == '(' || line[i] == '"') return 0;
    }
    return 0;
}

/* A line of C: it ends in ';', '{', '}' or ')', and starts with a call ("cudaStreamWaitEvent(",
 * "LAB_CHECK("), a keyword or type ("for (", "cudaEvent_t done[2];") or a brace. Prose
 * that ends in ';' ("H2D batch 0 (op 1825, on stream ...);") starts otherwise. */
static bool is_code(const char *line, size_t end) {
    static const char *const words[] = {"if", "for", "while", "do", "else", "return", "switch", "case",
                                        "struct", "static", "const", "unsigned", "int", "float", "double",
                                        "char", "void", "bool"};
    if (end == 0) return false;
    char last = line[end - 1];
    if (last != ';' && last != '{' && last != '}' && last != ')') return false;
    size_t i = leading_spaces(line, end), start = i;
    if (i < end && (line[i] == '{' || line[i] == '}')) return true;
    while (i < end && (isalnum((unsigned char)line[i]) || line[i] == '_')) i++;
    if (i == start || isdigit((unsigned char)line[start]) || i == end) return false;
    if (line[i] == '(') return true;
    size_t n = i - start;
    if (n > 2 && line[i - 2] == '_' && line[i - 1] == 't' && line[i] == ' ') return true;
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
        if (strlen(words[k]) == n && !strncmp(line + start, words[k], n) && (line[i] == ' ' || line[i] == '('))
            return true;
    return false;
}

bool lab_wrap_keeps(const char *line, size_t len) {
    /* Box drawing and block elements (U+2500..U+259F: E2 94..96 in UTF-8): a timeline,
     * its legend, a table's rules. */
    for (size_t i = 0; i + 1 < len; i++)
        if ((unsigned char)line[i] == 0xe2 && (unsigned char)line[i + 1] >= 0x94 && (unsigned char)line[i + 1] <= 0x96)
            return true;
    size_t end = len;
    while (end > 0 && line[end - 1] == ' ') end--;
    if (is_code(line, end)) return true;
    /* Columns aligned with spaces after the label column. */
    size_t from = label_column(line, len);
    if (!from) from = leading_spaces(line, len);
    for (size_t i = from; i + 1 < end; i++)
        if (line[i] == ' ' && line[i + 1] == ' ') return true;
    return false;
}

/* Whether the space at i lies inside site words ("address 0x... of your program",
 * LAB_SITE_WORDS_FORMAT): the grader finds them whole in the program's output, to put the
 * line they name in their place, so they are never broken. */
static bool in_site_words(const char *line, size_t len, size_t i) {
    const size_t longest = sizeof(LAB_SITE_WORDS_PREFIX) - 1 + 16 + sizeof(LAB_SITE_WORDS_SUFFIX) - 1;
    for (size_t s = i > longest ? i - longest : 0; s < i; s++) {
        size_t n = lab_site_words_at(line + s, len - s);
        if (n && i < s + n) return true;
    }
    return false;
}

/* Writes one line (no newline) wrapped, each piece followed by a newline. */
static void wrap_line(const char *line, size_t len, int width, FILE *out) {
    if (width < 20 || lab_wrap_columns(line, len) <= (size_t)width || lab_wrap_keeps(line, len)) {
        fwrite(line, 1, len, out);
        fputc('\n', out);
        return;
    }
    size_t indent = leading_spaces(line, len);
    size_t hang = label_column(line, len);
    if (!hang) hang = colon_label(line, len);
    if (!hang) hang = indent;
    if (hang > (size_t)width / 2) hang = indent;
    size_t at = 0; /* where the current output line's text starts */
    bool first = true;
    while (at < len) {
        size_t lead = first ? 0 : hang;
        if (!first) {
            while (at < len && line[at] == ' ') at++;
            if (at == len) break;
            fprintf(out, "%*s", (int)hang, "");
        }
        /* The longest run of whole words from at that fits in width - lead columns. */
        size_t room = (size_t)width - lead, end = at;
        bool fits = false;
        for (size_t i = at; i <= len; i++) {
            if (i == len || (line[i] == ' ' && i > at && line[i - 1] != ' ' && !in_site_words(line, len, i))) {
                size_t c = lab_wrap_columns(line + at, i - at);
                if (c <= room || !fits) {
                    end = i;
                    fits = true;
                    if (c > room) break; /* one word longer than the room: whole */
                } else {
                    break;
                }
            }
        }
        fwrite(line + at, 1, end - at, out);
        fputc('\n', out);
        at = end;
        first = false;
    }
}

void lab_wrap_text(const char *text, size_t len, int width, FILE *out) {
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        if (nl) {
            wrap_line(text + at, n, width, out);
        } else {
            /* A last line without a newline: wrapped, and left without one. */
            char *piece = NULL;
            size_t plen = 0;
            FILE *m = open_memstream(&piece, &plen);
            if (m) {
                wrap_line(text + at, n, width, m);
                fclose(m);
                if (plen) fwrite(piece, 1, plen - 1, out);
                free(piece);
            } else {
                fwrite(text + at, 1, n, out);
            }
        }
        at += n + (nl ? 1 : 0);
    }
}

FILE *lab_wrap_begin(lab_wrap *w, FILE *out, int width) {
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->width = width;
    w->mem = open_memstream(&w->buf, &w->len);
    return w->mem ? w->mem : out;
}

static void flush_wrapped(lab_wrap *w) {
    if (!w->mem) return;
    fflush(w->mem);
    if (w->len > w->done) lab_wrap_text(w->buf + w->done, w->len - w->done, w->width, w->out);
    w->done = w->len;
}

void lab_wrap_verbatim(lab_wrap *w, const char *text) {
    flush_wrapped(w);
    if (text) fputs(text, w->out);
}

void lab_wrap_end(lab_wrap *w) {
    if (!w->mem) return;
    flush_wrapped(w);
    fclose(w->mem);
    free(w->buf);
    w->mem = NULL;
    w->buf = NULL;
    w->len = w->done = 0;
}
