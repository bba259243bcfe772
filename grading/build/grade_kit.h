/* grading/build/grade_kit.h: a grading kit as the grader sees it (grading/kit.bzl makes them):
 * the manifest's compiler, flags and libraries, where the kits are, copying one into the
 * scratch folder (where an unprivileged build can read it), and the command lines that
 * compile a student's file and link it against the kit. */
#ifndef STREAMLAB_GRADE_KIT_H
#define STREAMLAB_GRADE_KIT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_kit_lib {
    char *path; /* relative to the kit's folder */
    bool alwayslink;
    bool shared;
} grade_kit_lib;

typedef struct grade_kit {
    char *dir;          /* the kit's folder */
    char *lab;          /* "03_double_buffer" */
    char *backend;      /* "sim" or "gpu" */
    char *student_file; /* "labs/03_double_buffer/lab.c" */
    char *skeleton;     /* the lab's own starting file in the kit (the grader's pre-flight run
                           builds it), or NULL for a kit made without one */
    char *compiler, *linker;
    char **compile;     /* with @KIT@ @SRC@ @OBJ@ */
    size_t n_compile;
    char **link;        /* with @OUT@ and @LIBS@ */
    size_t n_link;
    grade_kit_lib *libs;
    size_t n_libs;
    char **link_flags;
    size_t n_link_flags;
    bool sanitized;     /* built with -fsanitize=...: no address-space limit for its binaries */
    char *objcheck;     /* the check of the student's object before it is linked (labs/objcheck) */
    char *referee;      /* the lab binary: runs the student's program and referees it
                           (`referee --student PATH`, docs/referee.md) */
} grade_kit;

typedef struct grade_kit_set {
    grade_kit *kits;
    size_t n;
} grade_kit_set;

/* Reads dir/manifest.json. Returns 0, or -1 with the file and the problem in err. */
int grade_kit_load(const char *dir, grade_kit *kit, char *err, size_t err_len);
void grade_kit_free(grade_kit *kit);

/* Every kit in the sub-folders of kits_dir. Returns 0 (possibly with none), or -1. */
int grade_kit_set_load(const char *kits_dir, grade_kit_set *set, char *err, size_t err_len);
void grade_kit_set_free(grade_kit_set *set);
const grade_kit *grade_kit_set_find(const grade_kit_set *set, const char *lab, const char *backend);

/* Where the kits are when none is given: the program's runfiles
 * (<runfiles>/streamlab/grading/kits), else a kits/ folder beside the program; for an
 * installed grader (INSTALLED.txt beside it, grade_install.h) only the one beside it. The
 * same for another runfile of //grading (e.g. "rubric.json"). malloc'd, or NULL. */
char *grade_kit_default_dir(void);
char *grade_runfile(const char *name);
/* A runfile of the workspace by its path ("labs/catalog.json"), or for an installed grader
 * that path beside it; NULL when there is none. */
char *grade_workspace_runfile(const char *path);

/* Copies kit into dest (created) and loads the copy into *copy. */
int grade_kit_install(const grade_kit *kit, const char *dest, grade_kit *copy, char *err, size_t err_len);

/* NULL-terminated argv (argv[0] the compiler) compiling src to obj; free with
 * grade_argv_free. */
char **grade_kit_compile_argv(const grade_kit *kit, const char *src, const char *obj);
/* NULL-terminated argv linking obj with the kit into out. */
char **grade_kit_link_argv(const grade_kit *kit, const char *obj, const char *out);
void grade_argv_free(char **argv);

#ifdef __cplusplus
}
#endif

#endif
