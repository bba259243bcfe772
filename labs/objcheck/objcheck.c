/* labs/objcheck/objcheck.c: the check of a student's compiled lab file before it is
 * linked (see objcheck.h). The object is read with libelf. */
#define _GNU_SOURCE
#include "labs/objcheck/objcheck.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "labs/objcheck/allow.h"
#include "labs/objcheck/lines.h"

#define WHERE_MAX 1024

static char *strf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) abort();
    va_end(ap);
    return s;
}

static void refuse(lab_objcheck_result *r, const char *symbol, const char *where, char *message) {
    r->refusals = realloc(r->refusals, (r->n + 1) * sizeof(*r->refusals));
    if (!r->refusals) abort();
    lab_objcheck_refusal *f = &r->refusals[r->n++];
    f->symbol = strdup(symbol);
    f->where = strdup(where);
    f->message = message;
    if (!f->symbol || !f->where) abort();
}

/* What the object holds, read once. */
typedef struct object {
    Elf *elf;
    size_t shstrndx;
    size_t nsections;
    GElf_Shdr *shdrs;     /* by section index */
    Elf_Data *symtab;     /* the symbol table's data, or NULL */
    size_t symtab_link;   /* its string table */
    size_t nsyms;
    uint16_t machine;
    bool sanitized;
    lab_objcheck_lines *lines;
} object;

static const char *section_name(const object *o, size_t i) {
    const char *n = i < o->nsections ? elf_strptr(o->elf, o->shstrndx, o->shdrs[i].sh_name) : NULL;
    return n ? n : "";
}

static bool symbol(const object *o, size_t i, GElf_Sym *sym, const char **name) {
    if (!o->symtab || i >= o->nsyms || !gelf_getsym(o->symtab, (int)i, sym)) return false;
    const char *n = elf_strptr(o->elf, o->symtab_link, sym->st_name);
    *name = n ? n : "";
    return true;
}

/* Code that runs outside setup/run/teardown: "a constructor", "a destructor" or NULL. */
static const char *startup_kind(const char *name, uint32_t type) {
    static const struct {
        const char *name;
        const char *kind;
    } sections[] = {
        {".init_array", "a constructor"}, {".preinit_array", "a constructor"}, {".ctors", "a constructor"},
        {".fini_array", "a destructor"},  {".dtors", "a destructor"},
    };
    for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
        size_t n = strlen(sections[i].name);
        if (!strncmp(name, sections[i].name, n) && (name[n] == '\0' || name[n] == '.')) return sections[i].kind;
    }
    if (!strcmp(name, ".init")) return "code run before main (.init)";
    if (!strcmp(name, ".fini")) return "code run after main (.fini)";
    if (type == SHT_INIT_ARRAY || type == SHT_PREINIT_ARRAY) return "a constructor";
    if (type == SHT_FINI_ARRAY) return "a destructor";
    return NULL;
}

/* The function of section shndx that holds offset: its name, or NULL. */
static const char *function_at(const object *o, size_t shndx, uint64_t offset) {
    for (size_t i = 1; i < o->nsyms; i++) {
        GElf_Sym s;
        const char *name;
        if (!symbol(o, i, &s, &name) || s.st_shndx != shndx || !*name) continue;
        int type = GELF_ST_TYPE(s.st_info);
        if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC) continue;
        if (offset == s.st_value || (offset > s.st_value && offset < s.st_value + s.st_size)) return name;
    }
    return NULL;
}

/* The student's line for a place: the code's line, else the declaration of the function
 * or variable that holds it, else the first line of the source naming it. */
static void place(const object *o, size_t shndx, uint64_t offset, const char *fallback, char *where) {
    if (lab_objcheck_lines_code(o->lines, shndx, offset, where, WHERE_MAX)) return;
    const char *holder = function_at(o, shndx, offset);
    if (holder && lab_objcheck_lines_decl(o->lines, holder, where, WHERE_MAX)) return;
    if (fallback && lab_objcheck_lines_grep(o->lines, fallback, where, WHERE_MAX)) return;
    snprintf(where, WHERE_MAX, "%s", lab_objcheck_lines_file(o->lines));
}

/* Calls each relocation of the sections that relocate section target (all sections when
 * target is 0, SHF_ALLOC ones only). Stops when fn returns true. */
typedef bool (*reloc_fn)(const object *o, size_t target, const GElf_Rela *rela, void *arg);

static void each_reloc(const object *o, size_t target, reloc_fn fn, void *arg) {
    for (size_t i = 1; i < o->nsections; i++) {
        const GElf_Shdr *sh = &o->shdrs[i];
        if (sh->sh_type != SHT_RELA && sh->sh_type != SHT_REL) continue;
        size_t t = sh->sh_info;
        if (t == 0 || t >= o->nsections || (target && t != target) || !(o->shdrs[t].sh_flags & SHF_ALLOC)) continue;
        Elf_Data *data = elf_getdata(elf_getscn(o->elf, i), NULL);
        if (!data || !sh->sh_entsize) continue;
        size_t n = sh->sh_size / sh->sh_entsize;
        for (size_t k = 0; k < n; k++) {
            GElf_Rela r;
            if (sh->sh_type == SHT_RELA) {
                if (!gelf_getrela(data, (int)k, &r)) break;
            } else {
                GElf_Rel rel;
                if (!gelf_getrel(data, (int)k, &rel)) break;
                r.r_offset = rel.r_offset;
                r.r_info = rel.r_info;
                r.r_addend = 0;
            }
            if (fn(o, t, &r, arg)) return;
        }
    }
}

/* ---- what sanitizers add ---------------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* A name of a sanitizer's runtime. */
static bool sanitizer_name(const char *name) {
    return starts_with(name, "__asan_") || starts_with(name, "__ubsan_") || starts_with(name, "__sanitizer_") ||
           starts_with(name, "__lsan_");
}

typedef struct module_arg {
    size_t shndx;
    uint64_t begin, end;
    bool other; /* a relocation in the function to something not the sanitizer's */
} module_arg;

static bool module_reloc(const object *o, size_t target, const GElf_Rela *rela, void *p);

/* Whether the function at shndx+value is a sanitizer's module constructor or destructor:
 * its compiler's name for one, and code that refers to nothing but the sanitizer's
 * runtime and the object's own data. */
static bool sanitizer_module_function(const object *o, const char *fn, size_t shndx, uint64_t value) {
    if (!o->sanitized || !fn) return false;
    if (!starts_with(fn, "_sub_I_00099_") && !starts_with(fn, "_sub_D_00099_") && strcmp(fn, "asan.module_ctor") != 0 &&
        strcmp(fn, "asan.module_dtor") != 0)
        return false;
    uint64_t size = 0;
    for (size_t i = 1; i < o->nsyms; i++) {
        GElf_Sym s;
        const char *name;
        if (symbol(o, i, &s, &name) && s.st_shndx == shndx && s.st_value == value && !strcmp(name, fn)) size = s.st_size;
    }
    if (!size) return false;
    module_arg a = {.shndx = shndx, .begin = value, .end = value + size};
    each_reloc(o, shndx, module_reloc, &a);
    return !a.other;
}

static bool module_reloc(const object *o, size_t target, const GElf_Rela *rela, void *p) {
    (void)target;
    module_arg *a = p;
    if (rela->r_offset < a->begin || rela->r_offset >= a->end) return false;
    GElf_Sym s;
    const char *name;
    if (!symbol(o, GELF_R_SYM(rela->r_info), &s, &name)) {
        a->other = true;
        return true;
    }
    bool undefined = s.st_shndx == SHN_UNDEF;
    /* The sanitizer's runtime, or a section of data (the globals' descriptions). */
    bool data = GELF_ST_TYPE(s.st_info) == STT_SECTION && s.st_shndx < o->nsections &&
                !(o->shdrs[s.st_shndx].sh_flags & SHF_EXECINSTR);
    if ((undefined && sanitizer_name(name)) || data || GELF_ST_TYPE(s.st_info) == STT_OBJECT) return false;
    a->other = true;
    return true;
}

/* ---- code outside setup/run/teardown ------------------------------------------------- */

typedef struct startup_arg {
    lab_objcheck_result *r;
    const char *section;
    const char *kind;
    size_t found;
} startup_arg;

static bool startup_entry(const object *o, size_t target, const GElf_Rela *rela, void *p) {
    startup_arg *a = p;
    GElf_Sym s;
    const char *name;
    if (!symbol(o, GELF_R_SYM(rela->r_info), &s, &name)) return false;
    char where[WHERE_MAX];
    const char *fn = name;
    /* A static function is named as section + offset. */
    bool in_section = GELF_ST_TYPE(s.st_info) == STT_SECTION;
    if (in_section) fn = function_at(o, s.st_shndx, (uint64_t)rela->r_addend);
    uint64_t at = in_section ? (uint64_t)rela->r_addend : s.st_value;
    if (sanitizer_module_function(o, fn, s.st_shndx, at)) {
        a->found++;
        return false;
    }
    /* The line: of a variable placed in the section (a section attribute), which is the
     * entry; else of the function; else of the source naming the section. */
    const char *holder = function_at(o, target, rela->r_offset);
    if (holder && lab_objcheck_lines_decl(o->lines, holder, where, WHERE_MAX)) {
        /* found */
    } else if (in_section) {
        if (!fn || !lab_objcheck_lines_decl(o->lines, fn, where, WHERE_MAX))
            place(o, s.st_shndx, (uint64_t)rela->r_addend, a->section, where);
    } else if (s.st_shndx == SHN_UNDEF || s.st_shndx >= o->nsections) {
        if (!lab_objcheck_lines_grep(o->lines, name, where, WHERE_MAX) &&
            !lab_objcheck_lines_grep(o->lines, a->section, where, WHERE_MAX))
            snprintf(where, WHERE_MAX, "%s", lab_objcheck_lines_file(o->lines));
    } else if (!lab_objcheck_lines_decl(o->lines, name, where, WHERE_MAX)) {
        place(o, s.st_shndx, s.st_value, a->section, where);
    }
    const char *shown = fn && *fn ? fn : "code";
    refuse(a->r, shown, where,
           strf("not accepted: %s is %s (%s): a lab's code runs only in setup, run and teardown", shown, a->kind,
                a->section));
    a->found++;
    return false;
}

/* Whether a section is one a C compiler makes (constructors apart): code, data, constants,
 * thread-local data, debug information, unwind tables, notes, and the object's own tables.
 * Any other is refused: the linker gives some input sections a meaning of their own (an
 * .interp names the program's loader, a .rela.dyn adds load-time relocations, .jcr and
 * .tm_clone_table are run at start-up), and an object's sections are only its compiler's. */
static bool compiler_section(const char *name, uint32_t type) {
    switch (type) {
    case SHT_SYMTAB: return !strcmp(name, ".symtab");
    case SHT_STRTAB: return !strcmp(name, ".strtab") || !strcmp(name, ".shstrtab");
    case SHT_RELA: return !strncmp(name, ".rela.", 6);
    case SHT_REL: return !strncmp(name, ".rel.", 5);
    case SHT_GROUP: return !strcmp(name, ".group");
    case SHT_SYMTAB_SHNDX: return !strcmp(name, ".symtab_shndx");
    default: break;
    }
    /* A table's name on a section of another kind. */
    if (!strncmp(name, ".rel", 4) || !strcmp(name, ".symtab") || !strcmp(name, ".strtab") || !strcmp(name, ".shstrtab"))
        return false;
    static const char *const prefixes[] = {
        ".text",    ".data",  ".rodata", ".bss",          ".tdata",           ".tbss",      ".lbss",
        ".ldata",   ".lrodata", ".debug_", ".comment",    ".eh_frame",        ".gcc_except_table",
        ".note.GNU-stack", ".note.gnu.property", ".gnu.attributes", ".ARM.attributes", ".ARM.exidx",
        ".ARM.extab", ".stack_sizes",
    };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t n = strlen(prefixes[i]);
        /* The name itself, or a name the compiler derives from it (.text.startup, .rodata.str1.1). */
        if (!strncmp(name, prefixes[i], n) && (name[n] == '\0' || name[n] == '.' || prefixes[i][n - 1] == '_'))
            return true;
    }
    return false;
}

static void check_sections(const object *o, lab_objcheck_result *r) {
    for (size_t i = 1; i < o->nsections; i++) {
        const GElf_Shdr *sh = &o->shdrs[i];
        const char *name = section_name(o, i);
        bool table = sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL;
        const char *kind = table ? NULL : startup_kind(name, sh->sh_type);
        if (!kind) {
            /* A relocation section relocates the section its name says, as compilers make them. */
            bool relocates_its_own = true;
            if (table) {
                const char *prefix = sh->sh_type == SHT_RELA ? ".rela" : ".rel";
                size_t n = strlen(prefix);
                relocates_its_own = sh->sh_info > 0 && sh->sh_info < o->nsections && !strncmp(name, prefix, n) &&
                                    !strcmp(name + n, section_name(o, sh->sh_info));
            }
            if (relocates_its_own && compiler_section(name, sh->sh_type)) continue;
            char where[WHERE_MAX];
            if (!*name || !lab_objcheck_lines_grep(o->lines, name, where, WHERE_MAX))
                snprintf(where, WHERE_MAX, "%s", lab_objcheck_lines_file(o->lines));
            refuse(r, name, where,
                   strf("not accepted: section %s is not one a C compiler makes: the linker would give it a "
                        "meaning of its own",
                        *name ? name : "(unnamed)"));
            continue;
        }
        startup_arg a = {.r = r, .section = name, .kind = kind};
        each_reloc(o, i, startup_entry, &a);
        if (a.found || sh->sh_size == 0) continue;
        /* Entries without relocations, or code placed there directly. */
        char where[WHERE_MAX];
        if (!lab_objcheck_lines_grep(o->lines, name, where, WHERE_MAX))
            snprintf(where, WHERE_MAX, "%s", lab_objcheck_lines_file(o->lines));
        refuse(r, name, where,
               strf("not accepted: section %s is %s: a lab's code runs only in setup, run and teardown", name, kind));
    }
}

/* ---- names ----------------------------------------------------------------------------- */

typedef struct use_arg {
    size_t sym;
    size_t target;
    GElf_Rela rela;
    bool found;
} use_arg;

static bool first_use(const object *o, size_t target, const GElf_Rela *rela, void *p) {
    (void)o;
    use_arg *a = p;
    if (GELF_R_SYM(rela->r_info) != a->sym) return false;
    a->target = target;
    a->rela = *rela;
    a->found = true;
    return true;
}

/* Whether the C library (or its maths library) defines name: for the wording of a refusal
 * only (a C library function a lab may not call, or a name defined nowhere, a helper the
 * student declared and did not write), never for the verdict. */
static bool in_c_library(const char *name) {
    /* What glibc links statically (libc_nonshared.a): not in the shared library. */
    static const char *const nonshared[] = {"atexit", "at_quick_exit", "pthread_atfork"};
    for (size_t i = 0; i < sizeof(nonshared) / sizeof(nonshared[0]); i++)
        if (!strcmp(name, nonshared[i])) return true;
    static const char *const libraries[] = {"libc.so.6", "libm.so.6"};
    for (size_t i = 0; i < sizeof(libraries) / sizeof(libraries[0]); i++) {
        void *lib = dlopen(libraries[i], RTLD_LAZY | RTLD_LOCAL);
        if (!lib) continue;
        bool found = dlsym(lib, name) != NULL;
        dlclose(lib);
        if (found) return true;
    }
    return false;
}

/* Whether a relocation is a call or a jump to its symbol. */
static bool is_call(const object *o, const use_arg *u) {
    if (!(o->shdrs[u->target].sh_flags & SHF_EXECINSTR)) return false;
    uint32_t type = (uint32_t)GELF_R_TYPE(u->rela.r_info);
    switch (o->machine) {
    case EM_X86_64: return type == R_X86_64_PLT32;
    case EM_AARCH64: return type == R_AARCH64_CALL26 || type == R_AARCH64_JUMP26;
    default: return true;
    }
}

static void check_use(const object *o, size_t i, const char *name, lab_objcheck_result *r) {
    if (lab_objcheck_may_use(name) || (o->sanitized && sanitizer_name(name))) return;
    use_arg u = {.sym = i};
    each_reloc(o, 0, first_use, &u);
    char where[WHERE_MAX];
    if (u.found) place(o, u.target, u.rela.r_offset, name, where);
    else if (!lab_objcheck_lines_grep(o->lines, name, where, WHERE_MAX))
        snprintf(where, WHERE_MAX, "%s", lab_objcheck_lines_file(o->lines));
    const char *verb = !u.found || is_call(o, &u) ? "calls" : "uses";
    const char *owner = lab_objcheck_owner(name);
    char *message = owner ? strf("not accepted: %s %s, %s", verb, name, owner)
                    : in_c_library(name)
                        ? strf("not accepted: %s %s, which a lab may not (docs/labs.md says what it may call)", verb,
                               name)
                        : strf("not accepted: %s %s, which is none of the functions a lab may call: a function of "
                               "yours must be defined in this file (static)",
                               verb, name);
    refuse(r, name, where, message);
}

static void check_definition(const object *o, const GElf_Sym *s, const char *name, lab_objcheck_result *r) {
    if (lab_objcheck_may_define(name)) return;
    /* ASan's one-definition-rule indicator of a global: the global itself is checked. */
    if (o->sanitized && starts_with(name, "__odr_asan.")) return;
    char where[WHERE_MAX];
    if (!lab_objcheck_lines_decl(o->lines, name, where, WHERE_MAX)) {
        if (s->st_shndx < o->nsections && s->st_shndx != SHN_UNDEF) place(o, s->st_shndx, s->st_value, name, where);
        else if (!lab_objcheck_lines_grep(o->lines, name, where, WHERE_MAX))
            snprintf(where, WHERE_MAX, "%s", lab_objcheck_lines_file(o->lines));
    }
    const char *how = GELF_ST_BIND(s->st_info) == STB_WEAK ? " (a weak definition)"
                      : s->st_shndx == SHN_COMMON         ? " (a common symbol)"
                                                          : "";
    const char *owner = lab_objcheck_owner(name);
    refuse(r, name, where,
           owner ? strf("not accepted: defines %s%s, %s", name, how, owner)
                 : strf("not accepted: defines %s%s, a global name: make it static (a lab file defines only "
                        "LAB_STUDENT)",
                        name, how));
}

static void check_symbols(const object *o, lab_objcheck_result *r) {
    for (size_t i = 1; i < o->nsyms; i++) {
        GElf_Sym s;
        const char *name;
        if (!symbol(o, i, &s, &name)) continue;
        int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
        if (type == STT_GNU_IFUNC) {
            char where[WHERE_MAX];
            /* Its declaration, else the first line naming it (the attribute's alias has no
             * DWARF of its own), else the resolver's code. */
            if (!lab_objcheck_lines_decl(o->lines, name, where, WHERE_MAX) &&
                !lab_objcheck_lines_grep(o->lines, name, where, WHERE_MAX))
                place(o, s.st_shndx, s.st_value, name, where);
            refuse(r, name, where,
                   strf("not accepted: %s is an indirect function (ifunc): its resolver runs while the program "
                        "is loaded, before main",
                        name));
            continue;
        }
        if (bind == STB_LOCAL || type == STT_SECTION || type == STT_FILE) continue;
        if (s.st_shndx == SHN_UNDEF) check_use(o, i, name, r);
        else check_definition(o, &s, name, r);
    }
}

/* ---- reading ----------------------------------------------------------------------------- */

/* The refusal's line, for sorting; refusals without one go last. */
static long line_of(const char *where) {
    const char *c = strrchr(where, ':');
    long n = c ? strtol(c + 1, NULL, 10) : 0;
    return n > 0 ? n : LONG_MAX;
}

/* In the order of their lines, as a compiler's errors; stable. */
static void sort_by_line(lab_objcheck_result *r) {
    for (size_t i = 1; i < r->n; i++) {
        lab_objcheck_refusal f = r->refusals[i];
        long line = line_of(f.where);
        size_t j = i;
        for (; j > 0 && line_of(r->refusals[j - 1].where) > line; j--) r->refusals[j] = r->refusals[j - 1];
        r->refusals[j] = f;
    }
}

static int read_object(object *o, int fd, lab_objcheck_result *out) {
    o->elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!o->elf) {
        out->error = strf("not an ELF object (%s)", elf_errmsg(-1));
        return -1;
    }
    if (elf_kind(o->elf) != ELF_K_ELF) {
        out->error = strf("not an ELF object");
        return -1;
    }
    GElf_Ehdr eh;
    if (!gelf_getehdr(o->elf, &eh) || eh.e_type != ET_REL) {
        out->error = strf("not a relocatable object (.o)");
        return -1;
    }
    o->machine = eh.e_machine;
    if (elf_getshdrstrndx(o->elf, &o->shstrndx) != 0 || elf_getshdrnum(o->elf, &o->nsections) != 0) {
        out->error = strf("its section headers cannot be read (%s)", elf_errmsg(-1));
        return -1;
    }
    o->shdrs = calloc(o->nsections ? o->nsections : 1, sizeof(GElf_Shdr));
    if (!o->shdrs) abort();
    for (size_t i = 1; i < o->nsections; i++) {
        Elf_Scn *scn = elf_getscn(o->elf, i);
        if (!scn || !gelf_getshdr(scn, &o->shdrs[i])) {
            out->error = strf("section %zu cannot be read (%s)", i, elf_errmsg(-1));
            return -1;
        }
        if (o->shdrs[i].sh_type != SHT_SYMTAB) continue;
        if (o->symtab) {
            out->error = strf("it has two symbol tables");
            return -1;
        }
        o->symtab = elf_getdata(scn, NULL);
        o->symtab_link = o->shdrs[i].sh_link;
        o->nsyms = o->shdrs[i].sh_entsize ? o->shdrs[i].sh_size / o->shdrs[i].sh_entsize : 0;
        if (!o->symtab) {
            out->error = strf("its symbol table cannot be read (%s)", elf_errmsg(-1));
            return -1;
        }
    }
    /* Every object a compiler writes has one; without it nothing could be checked. */
    if (!o->symtab) {
        out->error = strf("it has no symbol table");
        return -1;
    }
    return 0;
}

int lab_objcheck_file(const char *path, const lab_objcheck_options *options, lab_objcheck_result *out) {
    memset(out, 0, sizeof(*out));
    const char *source = options ? options->source : NULL;
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out->error = strf("cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    object o = {.sanitized = options && options->sanitized};
    if (read_object(&o, fd, out) == 0) {
        o.lines = lab_objcheck_lines_open(path, source);
        check_sections(&o, out);
        check_symbols(&o, out);
        lab_objcheck_lines_close(o.lines);
        sort_by_line(out);
    }
    free(o.shdrs);
    if (o.elf) elf_end(o.elf);
    close(fd);
    return out->error || out->n ? 1 : 0;
}

void lab_objcheck_result_free(lab_objcheck_result *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->refusals[i].symbol);
        free(r->refusals[i].where);
        free(r->refusals[i].message);
    }
    free(r->refusals);
    free(r->error);
    memset(r, 0, sizeof(*r));
}

void lab_objcheck_print(const lab_objcheck_result *r, const char *path, FILE *to) {
    if (r->error) fprintf(to, "%s: not accepted: %s\n", path, r->error);
    for (size_t i = 0; i < r->n; i++) fprintf(to, "%s: %s\n", r->refusals[i].where, r->refusals[i].message);
}
