/* grading/build/grade_devices.c: the GPUs a lab needs and has, and the backend it is graded on
 * (see grade_devices.h). */
#define _GNU_SOURCE
#include "grading/build/grade_devices.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* A whole number from 0 to 4096, or -1. */
static int whole(const char *s) {
    if (!s || !*s) return -1;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 4096 || !isdigit((unsigned char)s[0])) return -1;
    return (int)v;
}

int grade_gpu_count(void) {
    int fake = whole(getenv("STREAMLAB_GRADE_GPUS"));
    if (fake >= 0) return fake;
    int n = 0;
    DIR *d = opendir("/dev");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (!strncmp(e->d_name, "nvidia", 6) && whole(e->d_name + 6) >= 0) n++;
        closedir(d);
    }
    /* A driver with no numbered device file in sight (some containers): at least one, as
     * the grader has always taken /dev/nvidiactl to mean a GPU. */
    if (n == 0 && access("/dev/nvidiactl", F_OK) == 0) n = 1;
    /* CUDA_VISIBLE_DEVICES=0 or =GPU-uuid,GPU-uuid: the programs see no more than listed
     * (an empty value hides every GPU). */
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible) {
        int listed = 0;
        for (const char *p = visible; *p;) {
            size_t len = strcspn(p, ",");
            if (len > 0) listed++;
            p += len;
            if (*p == ',') p++;
        }
        if (listed < n) n = listed;
    }
    return n;
}

int grade_catalog_devices(const char *catalog_json, const char *lab, char *err, size_t err_len) {
    if (err_len) err[0] = '\0';
    cJSON *root = cJSON_Parse(catalog_json);
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(root, "labs");
    if (!cJSON_IsArray(labs)) {
        snprintf(err, err_len, "the lab catalog is not JSON with a \"labs\" array");
        cJSON_Delete(root);
        return -1;
    }
    int rc = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, labs) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
        if (!id || strcmp(id, lab)) continue;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "devices");
        if (!d)
            rc = 1;
        else if (!cJSON_IsNumber(d) || d->valuedouble != (double)(int)d->valuedouble || d->valueint < 1 ||
                 d->valueint > 16)
            snprintf(err, err_len, "the lab catalog's entry \"%s\": \"devices\" must be a whole number from 1 to 16",
                     lab);
        else
            rc = d->valueint;
        break;
    }
    if (rc == -1 && !*err) snprintf(err, err_len, "the lab catalog has no entry \"%s\"", lab);
    cJSON_Delete(root);
    return rc;
}

const char *grade_backend_for_lab(const char *want, const char *lab, int need, int have, char *why, size_t why_len) {
    if (why_len) why[0] = '\0';
    if (strcmp(want, "gpu") || have >= need) return want;
    snprintf(why, why_len, "lab %s graded on the simulator: this machine has %d GPU%s, the lab needs %d", lab, have,
             have == 1 ? "" : "s", need);
    return "sim";
}
