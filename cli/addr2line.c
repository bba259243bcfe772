/* cli/addr2line.c: reading addr2line's answer (see addr2line.h). */
#include "cli/addr2line.h"

#include <string.h>

bool cli_addr2line_take(const char *line, size_t n, char *out, size_t out_len) {
    if (out_len) out[0] = '\0';
    if (n >= 2 && line[0] == '?' && line[1] == '?') return false;
    size_t end = 0;
    while (end < n && line[end] != ' ') end++; /* drops " (discriminator N)" */
    size_t colon = end;
    while (colon > 0 && line[colon - 1] != ':') colon--;
    if (colon == 0 || colon >= end) return false;
    if (end - colon == 1 && (line[colon] == '0' || line[colon] == '?')) return false;
    static const char cwd[] = "/proc/self/cwd/";
    size_t start = 0;
    if (end >= sizeof(cwd) - 1 && memcmp(line, cwd, sizeof(cwd) - 1) == 0) start = sizeof(cwd) - 1;
    if (!out_len) return true;
    size_t m = end - start < out_len - 1 ? end - start : out_len - 1;
    memcpy(out, line + start, m);
    out[m] = '\0';
    return true;
}
