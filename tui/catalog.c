/* tui/catalog.c: labs/catalog.json (see catalog.h). */
#include "tui/catalog.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int tui_label_to_path(const char *label, char *out, size_t size) {
    if (strncmp(label, "//", 2) != 0) return -1;
    const char *pkg = label + 2;
    const char *colon = strchr(pkg, ':');
    if (!colon || colon == pkg || !colon[1] || strchr(colon + 1, ':')) return -1;
    if (strstr(label, "..") || strchr(label, '\\')) return -1;
    for (const char *p = pkg; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-./:", *p)) return -1;
    int n = snprintf(out, size, "%.*s/%s", (int)(colon - pkg), pkg, colon + 1);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static const char *string_field(const cJSON *o, const char *key) {
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

int tui_catalog_parse(const char *json, tui_catalog *out, char *err, size_t err_size) {
    memset(out, 0, sizeof(*out));
    cJSON *root = cJSON_Parse(json);
    if (!root) {
        snprintf(err, err_size, "not valid JSON");
        return -1;
    }
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(root, "labs");
    if (!cJSON_IsArray(labs)) {
        snprintf(err, err_size, "no \"labs\" array");
        cJSON_Delete(root);
        return -1;
    }
    int n = cJSON_GetArraySize(labs);
    out->labs = calloc((size_t)n + 1, sizeof(tui_lab));
    if (!out->labs) {
        snprintf(err, err_size, "out of memory");
        cJSON_Delete(root);
        return -1;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, labs) {
        tui_lab *lab = &out->labs[out->n];
        const char *id = string_field(e, "id"), *title = string_field(e, "title");
        const char *labels[2] = {string_field(e, "lab"), string_field(e, "reference")};
        const cJSON *number = cJSON_GetObjectItemCaseSensitive(e, "number");
        const char *bad = !cJSON_IsObject(e)              ? "is not an object"
                          : !id || !*id                   ? "has no \"id\""
                          : strlen(id) >= sizeof(lab->id) ? "has an id that is too long"
                          : !title                        ? "has no \"title\""
                          : !cJSON_IsNumber(number) || number->valuedouble < 0 || number->valuedouble > 999
                              ? "has no \"number\" from 0 to 999"
                          : !labels[0] ? "has no \"lab\" label"
                          : !labels[1] ? "has no \"reference\" label"
                                       : NULL;
        /* The timeline runs each lab's `<name>_run` launcher (labs/lab.bzl): `<name>` itself
         * bundles the timeline, for its --tui option. */
        for (int v = 0; !bad && v < 2; v++) {
            size_t cap = sizeof(lab->program[v]);
            if (tui_label_to_path(labels[v], lab->program[v], cap - 4) != 0)
                bad = v == 0 ? "has a \"lab\" that is not a //package:name label"
                             : "has a \"reference\" that is not a //package:name label";
            else
                strcat(lab->program[v], "_run");
        }
        for (size_t j = 0; !bad && j < out->n; j++)
            if (!strcmp(out->labs[j].id, id)) bad = "repeats an id";
        /* The student's file, a path in the workspace (optional). */
        const cJSON *sf = cJSON_GetObjectItemCaseSensitive(e, "student_file");
        if (!bad && sf) {
            const char *path = cJSON_GetStringValue(sf);
            if (!path || !*path || path[0] == '/' || strstr(path, "..") || strlen(path) >= sizeof(lab->student_file))
                bad = "has a \"student_file\" that is not a path in the workspace";
            else
                snprintf(lab->student_file, sizeof(lab->student_file), "%s", path);
        }
        if (bad) {
            snprintf(err, err_size, "entry %d%s%s%s %s", i, id ? " (" : "", id ? id : "", id ? ")" : "", bad);
            cJSON_Delete(root);
            tui_catalog_free(out);
            return -1;
        }
        snprintf(lab->id, sizeof(lab->id), "%s", id);
        snprintf(lab->title, sizeof(lab->title), "%s", title);
        lab->number = (int)number->valuedouble;
        out->n++;
        i++;
    }
    cJSON_Delete(root);
    return 0;
}

int tui_catalog_load(const char *path, tui_catalog *out, char *err, size_t err_size) {
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            if (cap > (16u << 20)) break;
            char *t = realloc(text, cap);
            if (!t) break;
            text = t;
        }
        size_t n = fread(text + len, 1, 4096, f);
        len += n;
        if (n == 0) break;
    }
    fclose(f);
    if (!text) {
        snprintf(err, err_size, "%s: could not be read", path);
        return -1;
    }
    text[len] = '\0';
    char inner[256];
    int rc = tui_catalog_parse(text, out, inner, sizeof(inner));
    free(text);
    if (rc) snprintf(err, err_size, "%s: %s", path, inner);
    return rc;
}

void tui_catalog_free(tui_catalog *c) {
    free(c->labs);
    c->labs = NULL;
    c->n = 0;
}

long tui_catalog_find(const tui_catalog *c, const char *name) {
    if (!name || !*name) return -1;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->labs[i].id, name)) return (long)i;
    char *end = NULL;
    errno = 0;
    long num = strtol(name, &end, 10);
    if (!errno && end && !*end) {
        for (size_t i = 0; i < c->n; i++)
            if (c->labs[i].number == num) return (long)i;
        return -1;
    }
    long found = -1;
    for (size_t i = 0; i < c->n; i++) {
        if (strncmp(c->labs[i].id, name, strlen(name)) != 0) continue;
        if (found >= 0) return -2;
        found = (long)i;
    }
    return found;
}
