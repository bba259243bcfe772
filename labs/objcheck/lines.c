/* labs/objcheck/lines.c: the student's line for a place in a compiled lab file (see
 * lines.h), with elfutils' libdwfl. */
#define _GNU_SOURCE
#include "labs/objcheck/lines.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sources larger than this are not searched (a lab file is a few hundred lines). */
#define SOURCE_MAX (4u << 20)

struct lab_objcheck_lines {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Elf *elf;          /* the object with its sections laid out by libdwfl */
    Dwarf_Addr bias;
    char *source;      /* the student's file, as refusals name it */
    char *text;        /* its contents, or NULL */
    size_t text_len;
};

/* No separate debug files: the object's own DWARF or none. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name) {
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
    (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}

static const Dwfl_Callbacks callbacks = {
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static char *read_source(const char *path, size_t *len) {
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(SOURCE_MAX + 1);
    size_t n = buf ? fread(buf, 1, SOURCE_MAX, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

lab_objcheck_lines *lab_objcheck_lines_open(const char *path, const char *source) {
    lab_objcheck_lines *l = calloc(1, sizeof(*l));
    if (!l) abort();
    l->dwfl = dwfl_begin(&callbacks);
    if (l->dwfl) {
        l->mod = dwfl_report_offline(l->dwfl, "lab", path, -1);
        dwfl_report_end(l->dwfl, NULL, NULL);
    }
    if (l->mod) {
        Dwarf_Addr bias = 0;
        /* Reading the DWARF applies the debug sections' relocations. */
        if (dwfl_module_getdwarf(l->mod, &bias)) l->elf = dwfl_module_getelf(l->mod, &l->bias);
    }
    if (source) {
        l->source = strdup(source);
    } else if (l->elf) {
        Dwarf_Addr b;
        Dwarf_Die *cu = dwfl_module_nextcu(l->mod, NULL, &b);
        const char *name = cu ? dwarf_diename(cu) : NULL;
        if (name) l->source = strdup(name);
    }
    if (!l->source) {
        const char *slash = strrchr(path, '/');
        l->source = strdup(slash ? slash + 1 : path);
    }
    if (!l->source) abort();
    l->text = read_source(l->source, &l->text_len);
    return l;
}

void lab_objcheck_lines_close(lab_objcheck_lines *l) {
    if (!l) return;
    if (l->dwfl) dwfl_end(l->dwfl);
    free(l->source);
    free(l->text);
    free(l);
}

const char *lab_objcheck_lines_file(const lab_objcheck_lines *l) { return l->source; }

/* Whether a file name of the DWARF is the student's file. */
static bool is_source(const lab_objcheck_lines *l, const char *name) {
    if (!name) return false;
    size_t n = strlen(name), s = strlen(l->source);
    if (!strcmp(name, l->source)) return true;
    return n > s && name[n - s - 1] == '/' && !strcmp(name + n - s, l->source);
}

/* name as a refusal shows it: the student's file as given; Bazel's sandbox prefix dropped. */
static const char *shown(const lab_objcheck_lines *l, const char *name) {
    if (is_source(l, name)) return l->source;
    static const char cwd[] = "/proc/self/cwd/";
    if (!strncmp(name, cwd, sizeof(cwd) - 1)) return name + sizeof(cwd) - 1;
    return name;
}

static bool put(char *out, size_t out_len, const char *file, long line) {
    if (!file || line <= 0) return false;
    snprintf(out, out_len, "%s:%ld", file, line);
    return true;
}

/* The call site of an inlined scope: its file and line. */
static bool call_site(Dwarf_Die *cu, Dwarf_Die *scope, const char **file, long *line) {
    Dwarf_Attribute a;
    Dwarf_Word idx, ln;
    if (!dwarf_attr(scope, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) != 0) return false;
    if (!dwarf_attr(scope, DW_AT_call_line, &a) || dwarf_formudata(&a, &ln) != 0) return false;
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles) return false;
    *file = dwarf_filesrc(files, idx, NULL, NULL);
    *line = (long)ln;
    return *file != NULL;
}

bool lab_objcheck_lines_code(lab_objcheck_lines *l, size_t shndx, uint64_t offset, char *out, size_t out_len) {
    if (!l->elf) return false;
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(l->elf, shndx);
    if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC)) return false;
    Dwarf_Addr addr = sh.sh_addr + offset + l->bias;
    Dwfl_Line *row = dwfl_module_getsrc(l->mod, addr);
    int row_line = 0;
    const char *row_file = row ? dwfl_lineinfo(row, NULL, &row_line, NULL, NULL, NULL) : NULL;
    if (row_file && is_source(l, row_file)) return put(out, out_len, l->source, row_line);
    /* Code inlined from a header: the student's line it was inlined at. */
    Dwarf_Addr cubias;
    Dwarf_Die *cu = dwfl_module_addrdie(l->mod, addr, &cubias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, addr - cubias, &scopes) : 0;
    bool found = false;
    for (int i = 0; i < n && !found; i++) {
        const char *file;
        long line;
        if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine && call_site(cu, &scopes[i], &file, &line) &&
            is_source(l, file))
            found = put(out, out_len, l->source, line);
    }
    free(scopes);
    if (found) return true;
    return row_file ? put(out, out_len, shown(l, row_file), row_line) : false;
}

bool lab_objcheck_lines_decl(lab_objcheck_lines *l, const char *name, char *out, size_t out_len) {
    if (!l->elf) return false;
    Dwarf_Addr b;
    bool found = false;
    char other[512] = "";
    for (Dwarf_Die *cu = dwfl_module_nextcu(l->mod, NULL, &b); cu && !found; cu = dwfl_module_nextcu(l->mod, cu, &b)) {
        Dwarf_Die die;
        if (dwarf_child(cu, &die) != 0) continue;
        do {
            int tag = dwarf_tag(&die);
            if (tag != DW_TAG_variable && tag != DW_TAG_subprogram) continue;
            Dwarf_Attribute a;
            const char *n = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &a));
            int line = 0;
            if (!n || strcmp(n, name) != 0 || dwarf_decl_line(&die, &line) != 0) continue;
            const char *file = dwarf_decl_file(&die);
            if (is_source(l, file)) found = put(out, out_len, l->source, line);
            else if (!*other && file) put(other, sizeof(other), shown(l, file), line);
        } while (!found && dwarf_siblingof(&die, &die) == 0);
    }
    if (!found && *other) {
        snprintf(out, out_len, "%s", other);
        found = true;
    }
    return found;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

bool lab_objcheck_lines_grep(lab_objcheck_lines *l, const char *word, char *out, size_t out_len) {
    if (!l->text || !*word) return false;
    size_t w = strlen(word);
    long line = 1;
    const char *t = l->text, *end = l->text + l->text_len;
    while (t < end) {
        if (t[0] == '/' && t + 1 < end && t[1] == '*') {
            for (t += 2; t < end && !(t[0] == '*' && t + 1 < end && t[1] == '/'); t++) line += *t == '\n';
            t += 2;
            continue;
        }
        if (t[0] == '/' && t + 1 < end && t[1] == '/') {
            while (t < end && *t != '\n') t++;
            continue;
        }
        if (*t == '\n') line++;
        if ((size_t)(end - t) >= w && !memcmp(t, word, w) && (t == l->text || !(ident_char(t[-1]) || t[-1] == '.')) &&
            (t + w == end || !ident_char(t[w])))
            return put(out, out_len, l->source, line);
        t++;
    }
    return false;
}
