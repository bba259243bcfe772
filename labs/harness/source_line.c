/* labs/harness/source_line.c: code address to source line with addr2line, from a signal
 * handler (see source_line.h). */
#define _GNU_SOURCE
#include "labs/harness/source_line.h"

#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/addr2line.h"
#include "labs/harness/result_schema.h"
#include "labs/harness/sig_text.h"

#define MAX_SEGMENTS 8

static struct {
    bool prepared;
    bool no_subprocess;
    char binary[4096];
    char student[4096]; /* the student's binary, when it runs apart ("" when not) */
    char addr2line[4096];
    uintptr_t bias; /* where the binary is loaded, less its link-time addresses */
    struct {
        uintptr_t lo, hi; /* run-time addresses of an executable segment */
    } seg[MAX_SEGMENTS];
    size_t n_seg;
} L;

/* The first object dl_iterate_phdr reports is the program itself. */
static int take_program(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    L.bias = (uintptr_t)info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum && L.n_seg < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        L.seg[L.n_seg].lo = L.bias + ph->p_vaddr;
        L.seg[L.n_seg].hi = L.bias + ph->p_vaddr + ph->p_memsz;
        L.n_seg++;
    }
    return 1; /* stop: only the program */
}

void lab_source_line_prepare(void) {
    memset(&L, 0, sizeof(L));
    const char *no = getenv("STREAMLAB_NO_SUBPROCESS");
    L.no_subprocess = no && *no && strcmp(no, "0") != 0;
    ssize_t n = readlink("/proc/self/exe", L.binary, sizeof(L.binary) - 1);
    L.binary[n > 0 ? n : 0] = '\0';
    dl_iterate_phdr(take_program, NULL);
    cli_addr2line_find(L.addr2line, sizeof(L.addr2line));
    L.prepared = true;
}

const char *lab_source_line_binary(void) { return L.binary; }

const char *lab_source_line_student(void) { return L.student; }

void lab_source_line_set_student(const char *path) {
    size_t n = strlen(path);
    if (n >= sizeof(L.student)) n = 0;
    memcpy(L.student, path, n);
    L.student[n] = '\0';
}

static bool in_binary(uintptr_t pc) {
    for (size_t i = 0; i < L.n_seg; i++)
        if (pc >= L.seg[i].lo && pc < L.seg[i].hi) return true;
    return false;
}

lab_line_result lab_source_line_of(const uintptr_t *pcs, size_t n, char *out, size_t out_len, uintptr_t *offset) {
    if (out_len) out[0] = '\0';
    *offset = 0;
    /* The addresses inside the binary, relative to its load address. */
    enum { MAX = 16 };
    char text[MAX][20];
    char *argv[MAX + 4];
    size_t argc = 0, k = 0;
    if (!L.prepared) return LAB_LINE_FAILED;
    /* Addresses in the student's own binary, when there are any, are the ones to look up. */
    bool student = false;
    for (size_t i = 0; i < n && L.student[0]; i++) student |= (pcs[i] & LAB_SOURCE_LINE_STUDENT) != 0;
    const char *binary = student ? L.student : L.binary;
    argv[argc++] = "addr2line";
    argv[argc++] = "-e";
    argv[argc++] = (char *)binary;
    for (size_t i = 0; i < n && k < MAX; i++) {
        uintptr_t rel;
        if (student) {
            if (!(pcs[i] & LAB_SOURCE_LINE_STUDENT)) continue;
            rel = pcs[i] & ~LAB_SOURCE_LINE_STUDENT;
        } else {
            if (!in_binary(pcs[i])) continue;
            rel = pcs[i] - L.bias;
        }
        if (k == 0) *offset = rel;
        lab_sig_text t = lab_sig_text_on(text[k], sizeof(text[k]));
        lab_sig_put_hex(&t, rel);
        argv[argc++] = text[k++];
    }
    argv[argc] = NULL;
    if (k == 0) return LAB_LINE_NOT_IN_BINARY;
    if (L.no_subprocess) return LAB_LINE_NOT_ALLOWED;
    if (!L.addr2line[0] || !binary[0]) return LAB_LINE_NO_TOOL;
    char answer[8192];
    size_t len = cli_addr2line_run(L.addr2line, argv, answer, sizeof(answer));
    if (len == 0) return LAB_LINE_FAILED;
    const char *line = answer;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t m = nl ? (size_t)(nl - line) : strlen(line);
        if (cli_addr2line_take(line, m, out, out_len)) return LAB_LINE_FOUND;
        if (!nl) break;
        line = nl + 1;
    }
    return LAB_LINE_NO_INFO;
}

lab_line_result lab_source_line_words(uint64_t site, char *out, size_t out_len, uintptr_t *offset) {
    uintptr_t pc = (uintptr_t)site - 1, at = 0;
    out[0] = '\0';
    if (offset) *offset = 0;
    if (!site) return LAB_LINE_NOT_IN_BINARY;
    char line[600];
    lab_line_result found = lab_source_line_of(&pc, 1, line, sizeof(line), &at);
    if (offset) *offset = at;
    if (found == LAB_LINE_FOUND) {
        const char *shown = line, *slash = strrchr(line, '/');
        if (strlen(line) >= out_len && slash) shown = slash + 1; /* too long a path: the file's name */
        size_t n = strlen(shown) < out_len - 1 ? strlen(shown) : out_len - 1;
        memcpy(out, shown, n);
        out[n] = '\0';
    } else if (found == LAB_LINE_NOT_ALLOWED && at) {
        snprintf(out, out_len, LAB_SITE_WORDS_FORMAT, (unsigned long long)at);
    }
    return found;
}
