/* tui/textlog.c: the last lines of a child's output (see textlog.h). */
#include "tui/textlog.h"

#include <string.h>

void tui_textlog_clear(tui_textlog *log) {
    log->first = log->count = 0;
    log->partial_len = 0;
}

static void push(tui_textlog *log) {
    size_t at = (log->first + log->count) % TUI_TEXTLOG_LINES;
    memcpy(log->lines[at], log->partial, log->partial_len);
    log->lines[at][log->partial_len] = '\0';
    if (log->count < TUI_TEXTLOG_LINES)
        log->count++;
    else
        log->first = (log->first + 1) % TUI_TEXTLOG_LINES;
    log->partial_len = 0;
}

void tui_textlog_feed(tui_textlog *log, const char *bytes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = bytes[i];
        if (c == '\n') {
            push(log);
        } else if (c != '\r' && log->partial_len + 1 < TUI_TEXTLOG_LINE) {
            log->partial[log->partial_len++] = c;
        }
    }
}

void tui_textlog_flush(tui_textlog *log) {
    if (log->partial_len > 0) push(log);
}

size_t tui_textlog_count(const tui_textlog *log) { return log->count; }

const char *tui_textlog_line(const tui_textlog *log, size_t i) {
    if (i >= log->count) return NULL;
    return log->lines[(log->first + i) % TUI_TEXTLOG_LINES];
}

const char *tui_textlog_last(const tui_textlog *log) {
    for (size_t i = log->count; i > 0; i--) {
        const char *line = tui_textlog_line(log, i - 1);
        if (line[strspn(line, " \t")] != '\0') return line;
    }
    return NULL;
}
