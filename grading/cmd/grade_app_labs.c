/* grading/cmd/grade_app_labs.c: the labs a run grades: chosen from --labs or the rubric, each
 * on the backend the machine and the lab allow (grade_devices.h), its kit installed in the
 * scratch folder; and the pre-flight run of each lab's skeleton (grade_preflight.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_devices.h"
#include "grading/cmd/grade_app.h"
#include "grading/run/grade_preflight.h"

int grade_app_choose_labs(grade_app *a, const char **backend, char *err, size_t err_len) {
    const char *ids[64];
    char *copy = NULL;
    size_t n = 0;
    if (a->opt.labs) {
        copy = grade_strdup(a->opt.labs);
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (!*t) continue;
            if (n == 64) break;
            const grade_rubric_lab *named = grade_rubric_lookup(&a->rubric, t);
            if (!named) {
                grade_buf b;
                grade_buf_init(&b);
                for (size_t i = 0; i < a->rubric.n_labs; i++)
                    grade_buf_printf(&b, "%s%s", i ? ", " : "", a->rubric.labs[i].id);
                char *list = grade_buf_take(&b);
                snprintf(err, err_len, "--labs: %s names no lab of the rubric %s, or more than one (it has: %s)", t,
                         a->rubric.shown, list);
                free(list);
                free(copy);
                return GRADE_EXIT_USAGE;
            }
            for (size_t i = 0; i < n; i++)
                if (!strcmp(ids[i], named->id)) {
                    snprintf(err, err_len, "--labs names %s twice%s%s%s: name each lab once", named->id,
                             strcmp(t, named->id) ? " (once as " : "", strcmp(t, named->id) ? t : "",
                             strcmp(t, named->id) ? ")" : "");
                    free(copy);
                    return GRADE_EXIT_USAGE;
                }
            ids[n++] = named->id;
        }
        if (n == 0) {
            snprintf(err, err_len, "--labs names no lab");
            free(copy);
            return GRADE_EXIT_USAGE;
        }
    } else {
        for (size_t i = 0; i < a->rubric.n_labs && n < 64; i++) ids[n++] = a->rubric.labs[i].id;
    }

    const char *want = a->opt.backend;
    int have = grade_gpu_count();
    if (!strcmp(want, "auto")) {
        bool all_gpu = true;
        for (size_t i = 0; i < n; i++) all_gpu &= grade_kit_set_find(&a->all_kits, ids[i], "gpu") != NULL;
        want = all_gpu && have > 0 ? "gpu" : "sim";
    } else if (!strcmp(want, "gpu") && have == 0 && !a->opt.merge && !a->opt.slurm) {
        snprintf(err, err_len, "--backend gpu: no NVIDIA GPU on this machine (no /dev/nvidia0)");
        free(copy);
        return GRADE_EXIT_CANNOT_RUN;
    }
    /* The GPUs each lab needs (labs/catalog.json's "devices"): a lab that needs more than
     * the machine has is graded on the simulator, and every report says so. The merge of a
     * Slurm run grades nobody: it takes the kits the tasks were asked for. */
    char *catalog_path = grade_workspace_runfile("labs/catalog.json");
    char *catalog = NULL;
    size_t catalog_len = 0;
    if (catalog_path && grade_read_file(catalog_path, 1u << 20, &catalog, &catalog_len, NULL, err, err_len) != 0) {
        free(catalog_path);
        free(copy);
        return GRADE_EXIT_CANNOT_RUN;
    }
    free(catalog_path);
    bool any_gpu = false;
    a->kits = calloc(n, sizeof(grade_kit));
    a->rules = calloc(n, sizeof(grade_rubric_lab *));
    a->backend_notes = calloc(n, sizeof(char *));
    a->targets = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        int need = 1;
        if (catalog && (need = grade_catalog_devices(catalog, ids[i], err, err_len)) < 0) need = 1;
        char why[256];
        bool here = !a->opt.merge && !a->opt.slurm; /* graded on this machine */
        why[0] = '\0';
        const char *use = here ? grade_backend_for_lab(want, ids[i], need, have, why, sizeof(why)) : want;
        if (*why) a->backend_notes[i] = grade_strdup(why);
        any_gpu |= !strcmp(use, "gpu");
        const grade_kit *kit = grade_kit_set_find(&a->all_kits, ids[i], use);
        if (!kit && !here) kit = grade_kit_set_find(&a->all_kits, ids[i], "sim");
        if (!kit) {
            snprintf(err, err_len,
                     "no %s kit for lab %s: the grader was built without it%s (kits are built by //grading:grade)",
                     use, ids[i], !strcmp(use, "gpu") ? " (no CUDA toolkit when it was built?)" : "");
            free(copy);
            free(catalog);
            return GRADE_EXIT_CANNOT_RUN;
        }
        a->rules[i] = grade_rubric_find(&a->rubric, ids[i]);
        char *dest = grade_strf("%s/kits/%s_%s", a->scratch, kit->lab, kit->backend);
        int rc = grade_kit_install(kit, dest, &a->kits[a->n_labs], err, err_len);
        free(dest);
        if (rc != 0) {
            free(copy);
            free(catalog);
            return GRADE_EXIT_CANNOT_RUN;
        }
        a->n_labs++;
    }
    *backend = any_gpu ? "gpu" : "sim";
    free(copy);
    free(catalog);
    return 0;
}

/* Each lab's skeleton built and run once with the instructor's settings: options the lab
 * refuses and a rubric that does not fit the lab's target stop the grader here. */
int grade_app_preflight(grade_app *a) {
    grade_run_settings run = {
        .runs = 1,
        .schedules = 0,
        .timeout_s = a->opt.timeout_s,
        .profile = a->opt.profile,
        .mem_mb = a->opt.mem_mb,
        .output_mb = a->opt.output_mb,
        .width = 100,
        .gpu_lock = a->gpu_lock,
    };
    char err[2048];
    for (size_t l = 0; l < a->n_labs && !grade_stop; l++) {
        char *dir = grade_strf("%s/preflight_%s", a->scratch, a->kits[l].lab);
        grade_lab_facts facts;
        int rc = grade_preflight_lab(&a->sandbox, &a->kits[l], &run, dir, &facts, err, sizeof(err));
        if (!a->opt.keep_scratch) {
            char e2[256];
            grade_rm_rf(dir, e2, sizeof(e2));
        }
        free(dir);
        if (rc == 0) rc = grade_preflight_check_rule(a->rubric.shown, a->rules[l], &facts, err, sizeof(err));
        if (rc == 0) a->targets[l] = facts.target_bound_fraction;
        if (rc != 0) {
            fprintf(stderr, "grade: %s\ngrade: nobody was graded\n", err);
            return GRADE_EXIT_CANNOT_RUN;
        }
    }
    return 0;
}
