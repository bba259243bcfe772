/* grading/cmd/grade_mode_install.c: `grade --install DIR`: the grader, every kit, the rubric
 * and the lab catalog copied into DIR, to run from there (grade_install.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "grading/base/grade_fs.h"
#include "grading/cmd/grade_app.h"
#include "grading/slurm/grade_install.h"

/* --install DIR: the grader, every kit, the rubric and the catalog, to run from there. */
int grade_mode_install(grade_app *a) {
    char err[2048];
    char *grade = grade_absolute("/proc/self/exe");
    char *catalog = grade_workspace_runfile("labs/catalog.json");
    char *dir = grade_absolute(a->opt.install);
    grade_install_what w = {.grade = grade, .kits_dir = a->kits_dir, .rubric = a->rubric_path, .catalog = catalog,
                            .usage = a->usage};
    int rc = GRADE_EXIT_OK;
    if (grade_install(&w, dir, err, sizeof(err)) != 0)
        rc = grade_cannot_run("%s", err);
    else
        printf("grade: installed the grader, %zu kits, the rubric and the lab catalog in %s (%s/INSTALLED.txt).\n"
               "Run it from there, on any machine that sees the folder: %s/grade --help\n",
               a->all_kits.n, dir, dir, dir);
    free(dir);
    free(catalog);
    free(grade);
    return rc;
}
