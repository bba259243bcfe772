/* labs/harness/sig_text.h: building a line of text inside a signal handler, where stdio
 * is off limits: strings, decimal and hexadecimal numbers appended to a fixed buffer,
 * cut short (never overrun) when it is full. */
#ifndef STREAMLAB_LAB_SIG_TEXT_H
#define STREAMLAB_LAB_SIG_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct lab_sig_text {
    char *buf;
    size_t cap; /* bytes in buf, the terminating NUL included */
    size_t len;
} lab_sig_text;

static inline lab_sig_text lab_sig_text_on(char *buf, size_t cap) {
    lab_sig_text t = {buf, cap, 0};
    if (cap) buf[0] = '\0';
    return t;
}

static inline void lab_sig_put(lab_sig_text *t, const char *s) {
    if (!t->cap) return;
    while (*s && t->len + 1 < t->cap) t->buf[t->len++] = *s++;
    t->buf[t->len] = '\0';
}

static inline void lab_sig_put_dec(lab_sig_text *t, uint64_t v) {
    char d[24];
    size_t n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    char s[24];
    for (size_t i = 0; i < n; i++) s[i] = d[n - 1 - i];
    s[n] = '\0';
    lab_sig_put(t, s);
}

static inline void lab_sig_put_hex(lab_sig_text *t, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    char s[19] = "0x";
    int shift = 60;
    while (shift > 0 && ((v >> shift) & 0xf) == 0) shift -= 4;
    size_t n = 2;
    for (; shift >= 0; shift -= 4) s[n++] = digits[(v >> shift) & 0xf];
    s[n] = '\0';
    lab_sig_put(t, s);
}

#endif
