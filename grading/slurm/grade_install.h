/* grading/slurm/grade_install.h: `grade --install DIR`: a copy of the grader that stands on its
 * own, for a cluster's shared storage (or any folder that outlives Bazel's cache):
 *
 *   DIR/grade              the grader
 *   DIR/kits/<lab>_<backend>/  the prebuilt lab kits (their programs executable)
 *   DIR/rubric.json        the rubric
 *   DIR/labs/catalog.json  the lab catalog (the GPUs each lab needs)
 *   DIR/INSTALLED.txt      what was installed, from where, and when
 *
 * The copy finds its kits, rubric and catalog beside itself (grade_kit.h). `grade --slurm`
 * installs the labs it grades into OUT/slurm/grader, so that a running array's grades
 * never change with a rebuild, a new install or an edit of the rubric. */
#ifndef STREAMLAB_GRADE_INSTALL_H
#define STREAMLAB_GRADE_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_install_what {
    const char *grade;             /* the grader program to copy */
    const char *kits_dir;          /* the folder of kits */
    const char *const *labs;       /* only these labs' kits (ids), or NULL: every kit */
    size_t n_labs;
    const char *rubric;            /* the rubric file */
    const char *catalog;           /* labs/catalog.json, or NULL */
    const char *usage;             /* how the grader was run, for INSTALLED.txt */
} grade_install_what;

/* Whether path (existing) is dir or lies inside it, symbolic links resolved: an install
 * would remove what it copies from. */
bool grade_install_inside(const char *path, const char *dir);

/* Installs into dir: a new or empty folder, or an earlier install (replaced). Returns 0,
 * or -1 with err (a folder holding anything else is refused, and left as it was). */
int grade_install(const grade_install_what *w, const char *dir, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
