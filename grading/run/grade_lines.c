/* grading/run/grade_lines.c: the source lines a sandboxed run names by address (see
 * grade_lines.h). */
#define _POSIX_C_SOURCE 200809L
#include "grading/run/grade_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/addr2line.h"
#include "labs/harness/result_schema.h"

/* The distinct call sites looked up in one addr2line run, and the strings of a result that
 * hold site words (every wait's line, the reasons and the race texts that repeat it). */
#define MAX_SITES 64
#define MAX_STRINGS 512

/* Looks up n sites ("0x..." addresses in binary) with one addr2line run: lines[i] gets
 * site i's line, relative to build_dir where the binary was built from it, or "" where
 * addr2line has none. */
static void look_up(const char *binary, const char *build_dir, const char *const *sites, size_t n,
                    char lines[][1024]) {
    for (size_t i = 0; i < n; i++) lines[i][0] = '\0';
    if (n == 0) return;
    char tool[4096];
    cli_addr2line_find(tool, sizeof(tool));
    char *argv[MAX_SITES + 4];
    size_t argc = 0;
    argv[argc++] = "addr2line";
    argv[argc++] = "-e";
    argv[argc++] = (char *)binary;
    for (size_t i = 0; i < n; i++) argv[argc++] = (char *)sites[i];
    argv[argc] = NULL;
    static char answer[32768];
    if (cli_addr2line_run(tool, argv, answer, sizeof(answer)) == 0) return;
    size_t dir = build_dir ? strlen(build_dir) : 0;
    while (dir > 1 && build_dir[dir - 1] == '/') dir--;
    const char *at = answer;
    for (size_t i = 0; i < n && *at; i++) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        char line[1024];
        if (cli_addr2line_take(at, len, line, sizeof(line))) {
            const char *shown = line;
            if (dir && strncmp(line, build_dir, dir) == 0 && line[dir] == '/') shown = line + dir + 1;
            snprintf(lines[i], sizeof(lines[i]), "%s", shown);
        }
        if (!nl) break;
        at = nl + 1;
    }
}

/* The next "address 0x... of your program" in text from at: its start and length, and the
 * address ("0x..."), or false. */
static bool next_site_words(const char *text, size_t at, size_t *start, size_t *len, char *hex, size_t hex_cap) {
    const size_t prefix = strlen(LAB_SITE_WORDS_PREFIX), suffix = strlen(LAB_SITE_WORDS_SUFFIX);
    for (const char *p = strstr(text + at, LAB_SITE_WORDS_PREFIX); p; p = strstr(p + 1, LAB_SITE_WORDS_PREFIX)) {
        size_t n = lab_site_words_at(p, strlen(p));
        if (!n) continue;
        *start = (size_t)(p - text);
        *len = n;
        snprintf(hex, hex_cap, "0x%.*s", (int)(n - prefix - suffix), p + prefix);
        return true;
    }
    return false;
}

/* Every string of the result that holds site words (a refusal, the error that repeats it,
 * a wait's line and the reasons that name it), up to MAX_STRINGS of them. */
static void strings_with_words(cJSON *node, cJSON **found, size_t *n) {
    for (cJSON *c = node ? node->child : NULL; c && *n < MAX_STRINGS; c = c->next) {
        if (cJSON_IsString(c) && c->valuestring && strstr(c->valuestring, LAB_SITE_WORDS_PREFIX))
            found[(*n)++] = c;
        else if (cJSON_IsObject(c) || cJSON_IsArray(c))
            strings_with_words(c, found, n);
    }
}

/* Site words in the result's strings become the line they name, where addr2line has one. */
static void fill_words(const char *binary, const char *build_dir, cJSON *result) {
    static cJSON *strings[MAX_STRINGS];
    size_t n_strings = 0;
    strings_with_words(result, strings, &n_strings);
    char hex[MAX_SITES][24];
    const char *sites[MAX_SITES] = {0};
    size_t n = 0;
    for (size_t i = 0; i < n_strings; i++) {
        size_t at = 0, start, len;
        char h[24];
        while (n < MAX_SITES && next_site_words(strings[i]->valuestring, at, &start, &len, h, sizeof(h))) {
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++) seen = strcmp(hex[k], h) == 0;
            if (!seen) {
                snprintf(hex[n], sizeof(hex[n]), "%s", h);
                sites[n] = hex[n];
                n++;
            }
            at = start + len;
        }
    }
    if (n == 0) return;
    static char lines[MAX_SITES][1024];
    look_up(binary, build_dir, sites, n, lines);
    for (size_t i = 0; i < n_strings; i++) {
        const char *text = strings[i]->valuestring;
        size_t at = 0, start, len, words = 0;
        char h[24];
        while (next_site_words(text, at, &start, &len, h, sizeof(h))) {
            words++;
            at = start + len;
        }
        /* Each phrase becomes a line of at most 1023 bytes. */
        char *out = malloc(strlen(text) + 1 + words * sizeof(lines[0]));
        if (!out) return;
        size_t used = 0;
        at = 0;
        while (next_site_words(text, at, &start, &len, h, sizeof(h))) {
            const char *line = NULL;
            for (size_t k = 0; k < n && !line; k++)
                if (strcmp(hex[k], h) == 0 && lines[k][0]) line = lines[k];
            memcpy(out + used, text + at, start - at);
            used += start - at;
            /* Words addr2line had no line for stay as they are: an address to look up. */
            const char *put = line ? line : text + start;
            size_t put_len = line ? strlen(line) : len;
            memcpy(out + used, put, put_len);
            used += put_len;
            at = start + len;
        }
        size_t rest = strlen(text + at);
        memcpy(out + used, text + at, rest);
        out[used + rest] = '\0';
        cJSON_SetValuestring(strings[i], out);
        free(out);
    }
}

char *grade_lines_in_text(const char *binary, const char *build_dir, const char *text) {
    if (!text || !strstr(text, LAB_SITE_WORDS_PREFIX)) return NULL;
    cJSON *holder = cJSON_CreateObject();
    cJSON *item = holder ? cJSON_AddStringToObject(holder, "text", text) : NULL;
    char *out = NULL;
    if (item) {
        fill_words(binary, build_dir, holder);
        out = strdup(item->valuestring);
    }
    cJSON_Delete(holder);
    return out;
}

void grade_lines_fill(const char *binary, const char *build_dir, cJSON *result) {
    fill_words(binary, build_dir, result);
}
