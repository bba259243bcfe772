/* cli/state.c: state files kept between runs (state.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool cli_state_path(const char *name, char *buf, size_t len) {
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (state && *state)
        n = snprintf(buf, len, "%s/streamlab/%s", state, name);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.local/state/streamlab/%s", home, name);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

cJSON *cli_state_load(const char *path) {
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
        return cJSON_CreateObject(); /* a broken file starts afresh */
    }
    return j;
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

int cli_state_save(const char *path, const cJSON *state) {
    if (!path) return -1;
    make_parent(path);
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    char *text = cJSON_Print(state);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    int rc = -1;
    if (f) {
        bool ok = fputs(text, f) >= 0;
        if (fclose(f) == 0 && ok && rename(tmp, path) == 0) rc = 0;
    }
    cJSON_free(text);
    return rc;
}
