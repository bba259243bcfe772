/* puzzles/score.c: the player's record of solved puzzles (score.h). */
#define _POSIX_C_SOURCE 200809L
#include "puzzles/score.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

bool puzzle_score_path(char *buf, size_t len) {
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (state && *state)
        n = snprintf(buf, len, "%s/streamlab/puzzles.json", state);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.local/state/streamlab/puzzles.json", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

static cJSON *load(const char *path) {
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) return cJSON_CreateObject();
    char *text = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *t = realloc(text, cap);
            if (!t) break;
            text = t;
        }
        size_t got = fread(text + n, 1, 4096, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    cJSON *j = NULL;
    if (text) {
        text[n] = '\0';
        j = cJSON_Parse(text);
    }
    free(text);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return cJSON_CreateObject(); /* a broken record starts afresh */
    }
    return j;
}

static int count(const cJSON *entry, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(entry, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? v->valueint : 0;
}

void puzzle_score_get(const char *path, const char *id, int *tried, int *right) {
    cJSON *j = load(path);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, id);
    *tried = count(e, "tried");
    *right = count(e, "right");
    cJSON_Delete(j);
}

/* mkdir -p of the folder that holds path. */
static void make_parent(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
    mkdir(dir, 0755);
}

int puzzle_score_add(const char *path, const char *id, bool right) {
    cJSON *j = load(path);
    cJSON *e = cJSON_GetObjectItemCaseSensitive(j, id);
    if (!cJSON_IsObject(e)) {
        cJSON_DeleteItemFromObjectCaseSensitive(j, id);
        e = cJSON_AddObjectToObject(j, id);
    }
    int tried = count(e, "tried") + 1, good = count(e, "right") + (right ? 1 : 0);
    cJSON_DeleteItemFromObjectCaseSensitive(e, "tried");
    cJSON_DeleteItemFromObjectCaseSensitive(e, "right");
    cJSON_AddNumberToObject(e, "tried", tried);
    cJSON_AddNumberToObject(e, "right", good);
    make_parent(path);
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    int rc = -1;
    if (f) {
        bool ok = fputs(text, f) >= 0;
        if (fclose(f) == 0 && ok && rename(tmp, path) == 0) rc = 0;
    }
    cJSON_free(text);
    return rc;
}
