/* grading/base/grade_text.c: string buffers and cleaning of untrusted text (see grade_text.h). */
#define _GNU_SOURCE
#include "grading/base/grade_text.h"

#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("grade: out of memory\n", stderr);
        abort();
    }
    return q;
}

void grade_buf_init(grade_buf *b) { memset(b, 0, sizeof(*b)); }

void grade_buf_free(grade_buf *b) {
    free(b->data);
    memset(b, 0, sizeof(*b));
}

static void reserve(grade_buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void grade_buf_append(grade_buf *b, const char *bytes, size_t n) {
    reserve(b, n);
    if (n) memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void grade_buf_puts(grade_buf *b, const char *s) { grade_buf_append(b, s ? s : "", s ? strlen(s) : 0); }

static void buf_vprintf(grade_buf *b, const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return;
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void grade_buf_printf(grade_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *grade_buf_take(grade_buf *b) {
    char *s = b->data ? b->data : grade_strdup("");
    memset(b, 0, sizeof(*b));
    return s;
}

char *grade_strf(const char *fmt, ...) {
    grade_buf b;
    grade_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return grade_buf_take(&b);
}

char *grade_strdup(const char *s) {
    if (!s) s = "";
    size_t n = strlen(s);
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n + 1);
    return d;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t avail) {
    unsigned char c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (avail < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
    /* C1 controls (U+0080..U+009F) drive some terminals: treat as invalid. */
    if (cp >= 0x80 && cp <= 0x9F) return 0;
    return n;
}

char *grade_text_clean(const char *bytes, size_t n, size_t max_bytes) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    if (!bytes) return grade_buf_take(&b);
    size_t keep = n > max_bytes ? max_bytes : n;
    const unsigned char *p = (const unsigned char *)bytes;
    size_t i = 0;
    while (i < keep) {
        unsigned char c = p[i];
        if (c == '\n' || c == '\t') {
            grade_buf_append(&b, (const char *)p + i, 1);
            i++;
        } else if (c == '\r') {
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            grade_buf_append(&b, "?", 1);
            i++;
        } else {
            size_t len = utf8_len(p + i, keep - i);
            if (len == 0) {
                grade_buf_append(&b, "\xEF\xBF\xBD", 3);
                i++;
            } else {
                grade_buf_append(&b, (const char *)p + i, len);
                i += len;
            }
        }
    }
    if (n > keep) {
        if (b.len && b.data[b.len - 1] != '\n') grade_buf_append(&b, "\n", 1);
        grade_buf_printf(&b, "[... %zu more bytes not shown]\n", n - keep);
    }
    return grade_buf_take(&b);
}

char *grade_text_first_line(const char *s, size_t max) {
    if (!s) return grade_strdup("");
    size_t n = strcspn(s, "\n");
    if (n > max) {
        /* Do not cut inside a UTF-8 sequence. */
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *grade_text_replace(const char *s, const char *from, const char *to) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    if (!s) return grade_buf_take(&b);
    size_t flen = from ? strlen(from) : 0;
    if (flen == 0) {
        grade_buf_puts(&b, s);
        return grade_buf_take(&b);
    }
    const char *p = s;
    const char *hit;
    while ((hit = strstr(p, from)) != NULL) {
        grade_buf_append(&b, p, (size_t)(hit - p));
        grade_buf_puts(&b, to);
        p = hit + flen;
    }
    grade_buf_puts(&b, p);
    return grade_buf_take(&b);
}

/* The code point of the UTF-8 sequence at p and its length (a byte that starts no valid
 * sequence counts as one character of one byte). */
static uint32_t decode(const char *p, size_t *len) {
    const unsigned char *u = (const unsigned char *)p;
    size_t n = utf8_len(u, strnlen(p, 4));
    if (n <= 1) {
        *len = 1;
        return u[0];
    }
    uint32_t cp = u[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < n; i++) cp = (cp << 6) | (u[i] & 0x3F);
    *len = n;
    return cp;
}

/* Columns a character takes: wcwidth in a UTF-8 locale (whatever locale the program
 * runs in); one for what wcwidth does not know. */
static int char_width(uint32_t cp) {
    static locale_t utf8;
    static int tried;
    if (!tried) {
        tried = 1;
        utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    }
    if (cp < 0x80) return 1;
    if (!utf8) return 1;
    locale_t old = uselocale(utf8);
    int w = wcwidth((wchar_t)cp);
    uselocale(old);
    return w < 0 ? 1 : w;
}

size_t grade_text_width(const char *s) {
    size_t w = 0, len;
    for (const char *p = s ? s : ""; *p && *p != '\n'; p += len) w += (size_t)char_width(decode(p, &len));
    return w;
}

char *grade_text_pad(const char *s, size_t width) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    size_t w = 0, len;
    for (const char *p = s ? s : ""; *p && *p != '\n'; p += len) {
        size_t cw = (size_t)char_width(decode(p, &len));
        if (w + cw > width) break;
        grade_buf_append(&b, p, len);
        w += cw;
    }
    for (; w < width; w++) grade_buf_append(&b, " ", 1);
    return grade_buf_take(&b);
}
