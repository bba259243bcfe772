/* grading/out/grade_student_dir.c: a student's report folder from their name (see
 * grade_student_dir.h). */
#define _GNU_SOURCE
#include "grading/out/grade_student_dir.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grading/base/grade_hash.h"
#include "grading/base/grade_text.h"

/* What the grader writes in --out for the class (grade_outdir.c, grade_main.c,
 * grade_similarity.c, grade_slurm.c), and names kept for it. The state folder and the lock
 * start with a dot, which no student's folder does. */
static const char *const class_files[] = {"gradebook.csv", "junit.xml", "INCOMPLETE.txt", "similarity.txt",
                                          "slurm",         "summary.txt"};

bool grade_class_file_name(const char *name) {
    for (size_t i = 0; i < sizeof(class_files) / sizeof(class_files[0]); i++) {
        size_t n = strlen(class_files[i]);
        /* The file, or one beside it of its name and more (its temporary file while it is
         * written: gradebook.csv.tmp.<pid>). */
        if (!strncasecmp(name, class_files[i], n) && (name[n] == '\0' || name[n] == '.')) return true;
    }
    return false;
}

static bool unsafe_byte(unsigned char c) { return c == '/' || c == '\\' || c < 0x20 || c == 0x7f; }

char *grade_student_dirname(const char *name) {
    size_t n = strlen(name);
    char *s = grade_strdup(name);
    for (size_t i = 0; i < n; i++)
        if (unsafe_byte((unsigned char)s[i])) s[i] = '_';
    /* No leading dot (hidden, ".", "..", the grader's state), space or '_' left by a '/'. */
    size_t lead = strspn(s, " ._");
    memmove(s, s + lead, n - lead + 1);
    n -= lead;
    if (n > GRADE_STUDENT_DIR_MAX) {
        n = GRADE_STUDENT_DIR_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--; /* between UTF-8 characters */
        s[n] = '\0';
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '.')) s[--n] = '\0';
    if (n == 0) {
        free(s);
        s = grade_strdup("student");
    }
    bool class_file = grade_class_file_name(s);
    if (!strcmp(s, name) && !class_file) return s;
    if (class_file) {
        /* Any suffix would leave it a class file's name with more after a '.'. */
        char *prefixed = grade_strf("student_%s", s);
        free(s);
        s = prefixed;
    }
    char hex[17];
    grade_hash_hex(grade_hash_str(GRADE_HASH_START, name), hex);
    char *out = grade_strf("%s-%.8s", s, hex);
    free(s);
    return out;
}

typedef struct slot {
    const char *name;
    char *dir;
    size_t i;
    bool kept; /* the name is its own folder */
} slot;

static int by_claim(const void *x, const void *y) {
    const slot *a = x, *b = y;
    /* Names that are their own folder claim it first; then by name. */
    if (a->kept != b->kept) return a->kept ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

static bool taken(char *const *dirs, size_t n, const char *dir) {
    for (size_t k = 0; k < n; k++)
        if (dirs[k] && !strcasecmp(dirs[k], dir)) return true;
    return false;
}

char **grade_student_dirnames(const char *const *names, size_t n) {
    char **dirs = calloc(n ? n : 1, sizeof(char *));
    slot *slots = calloc(n ? n : 1, sizeof(slot));
    for (size_t i = 0; i < n; i++) {
        slots[i].name = names[i] ? names[i] : "";
        slots[i].dir = grade_student_dirname(slots[i].name);
        slots[i].i = i;
        slots[i].kept = !strcmp(slots[i].dir, slots[i].name);
    }
    if (n) qsort(slots, n, sizeof(slot), by_claim);
    for (size_t k = 0; k < n; k++) {
        char *dir = slots[k].dir;
        for (unsigned m = 2; taken(dirs, n, dir); m++) {
            if (dir != slots[k].dir) free(dir);
            dir = grade_strf("%s-%u", slots[k].dir, m);
        }
        if (dir != slots[k].dir) free(slots[k].dir);
        dirs[slots[k].i] = dir;
    }
    free(slots);
    return dirs;
}

void grade_student_dirnames_free(char **dirs, size_t n) {
    for (size_t i = 0; dirs && i < n; i++) free(dirs[i]);
    free(dirs);
}
