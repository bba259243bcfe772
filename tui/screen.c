/* tui/screen.c: the virtual screen (see screen.h). */
#include "tui/screen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tui_cell BLANK = {' ', TUI_COLOR_DEFAULT, 0};

tui_screen *tui_screen_create(int cols, int rows) {
    tui_screen *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    if (tui_screen_resize(s, cols, rows) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

void tui_screen_destroy(tui_screen *s) {
    if (!s) return;
    free(s->cells);
    free(s);
}

int tui_screen_resize(tui_screen *s, int cols, int rows) {
    if (cols < 1) cols = 1;
    if (rows < 1) rows = 1;
    if (cols != s->cols || rows != s->rows || !s->cells) {
        tui_cell *c = malloc((size_t)cols * (size_t)rows * sizeof(tui_cell));
        if (!c) return -1;
        free(s->cells);
        s->cells = c;
        s->cols = cols;
        s->rows = rows;
    }
    tui_screen_clear(s);
    return 0;
}

void tui_screen_clear(tui_screen *s) {
    size_t n = (size_t)s->cols * (size_t)s->rows;
    for (size_t i = 0; i < n; i++) s->cells[i] = BLANK;
}

tui_cell *tui_screen_at(tui_screen *s, int x, int y) {
    if (x < 0 || y < 0 || x >= s->cols || y >= s->rows) return NULL;
    return &s->cells[(size_t)y * (size_t)s->cols + (size_t)x];
}

const tui_cell *tui_screen_cell(const tui_screen *s, int x, int y) {
    if (x < 0 || y < 0 || x >= s->cols || y >= s->rows) return NULL;
    return &s->cells[(size_t)y * (size_t)s->cols + (size_t)x];
}

void tui_screen_put(tui_screen *s, int x, int y, uint32_t ch, tui_color color, unsigned attr) {
    tui_cell *c = tui_screen_at(s, x, y);
    if (!c) return;
    c->ch = ch;
    c->color = (uint8_t)color;
    c->attr = (uint8_t)attr;
}

void tui_screen_fill(tui_screen *s, int x, int y, int n, uint32_t ch, tui_color color, unsigned attr) {
    for (int i = 0; i < n; i++) tui_screen_put(s, x + i, y, ch, color, attr);
}

uint32_t tui_utf8_decode(const char *str, size_t n, size_t *len) {
    const unsigned char *s = (const unsigned char *)str;
    *len = 1;
    if (n == 0) return 0xFFFD;
    unsigned char c = s[0];
    if (c < 0x80) return c;
    size_t need;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
        need = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        need = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        need = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0xFFFD;
    }
    if (n < need) return 0xFFFD;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0xFFFD;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
    *len = need;
    return cp;
}

size_t tui_utf8_encode(uint32_t ch, char *out) {
    unsigned char *o = (unsigned char *)out;
    size_t n;
    if (ch > 0x10FFFF || (ch >= 0xD800 && ch <= 0xDFFF)) ch = 0xFFFD;
    if (ch < 0x80) {
        o[0] = (unsigned char)ch;
        n = 1;
    } else if (ch < 0x800) {
        o[0] = (unsigned char)(0xC0 | (ch >> 6));
        o[1] = (unsigned char)(0x80 | (ch & 0x3F));
        n = 2;
    } else if (ch < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (ch >> 12));
        o[1] = (unsigned char)(0x80 | ((ch >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (ch & 0x3F));
        n = 3;
    } else {
        o[0] = (unsigned char)(0xF0 | (ch >> 18));
        o[1] = (unsigned char)(0x80 | ((ch >> 12) & 0x3F));
        o[2] = (unsigned char)(0x80 | ((ch >> 6) & 0x3F));
        o[3] = (unsigned char)(0x80 | (ch & 0x3F));
        n = 4;
    }
    out[n] = '\0';
    return n;
}

size_t tui_utf8_columns(const char *s) {
    size_t cols = 0, n = strlen(s), len;
    for (size_t i = 0; i < n; i += len) {
        tui_utf8_decode(s + i, n - i, &len);
        cols++;
    }
    return cols;
}

int tui_screen_text(tui_screen *s, int x, int y, int max, const char *utf8, tui_color color, unsigned attr) {
    if (!utf8) return 0;
    if (max < 0) max = s->cols - x;
    int col = 0;
    size_t n = strlen(utf8), len;
    for (size_t i = 0; i < n && col < max; i += len) {
        uint32_t ch = tui_utf8_decode(utf8 + i, n - i, &len);
        if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0) || ch == 0xFFFD) ch = '?';
        tui_screen_put(s, x + col, y, ch, color, attr);
        col++;
    }
    return col;
}

int tui_screen_printf(tui_screen *s, int x, int y, int max, tui_color color, unsigned attr, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return tui_screen_text(s, x, y, max, buf, color, attr);
}

size_t tui_screen_row_text(const tui_screen *s, int y, char *buf, size_t size) {
    if (size == 0) return 0;
    buf[0] = '\0';
    if (y < 0 || y >= s->rows) return 0;
    size_t at = 0;
    for (int x = 0; x < s->cols; x++) {
        char enc[5];
        size_t n = tui_utf8_encode(tui_screen_cell(s, x, y)->ch, enc);
        if (at + n + 1 > size) break;
        memcpy(buf + at, enc, n);
        at += n;
    }
    buf[at] = '\0';
    return at;
}

char *tui_screen_dump(const tui_screen *s) {
    size_t line_cap = (size_t)s->cols * 4 + 1;
    char *line = malloc(line_cap);
    char *out = malloc(line_cap * (size_t)s->rows + 1);
    if (!line || !out) {
        free(line);
        free(out);
        return NULL;
    }
    size_t at = 0;
    for (int y = 0; y < s->rows; y++) {
        size_t n = tui_screen_row_text(s, y, line, line_cap);
        while (n > 0 && line[n - 1] == ' ') n--;
        memcpy(out + at, line, n);
        at += n;
        out[at++] = '\n';
    }
    out[at] = '\0';
    free(line);
    return out;
}

int tui_screen_find_row(const tui_screen *s, const char *needle, int from) {
    size_t cap = (size_t)s->cols * 4 + 1;
    char *line = malloc(cap);
    if (!line) return -1;
    int found = -1;
    for (int y = from < 0 ? 0 : from; y < s->rows && found < 0; y++) {
        tui_screen_row_text(s, y, line, cap);
        if (strstr(line, needle)) found = y;
    }
    free(line);
    return found;
}
