/* tui/history.c: the labs' last verdicts (see history.h). */
#define _POSIX_C_SOURCE 200809L
#include "tui/history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tui_history_default_path(char *buf, size_t size) {
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (state && state[0] == '/')
        n = snprintf(buf, size, "%s/streamlab/last_results.json", state);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.local/state/streamlab/last_results.json", home);
    else
        return -1;
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static char *read_all(const char *path, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno != ENOENT && err) snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text) {
        size_t n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0) break;
        if (len + 1 == cap) {
            if (cap >= (4u << 20)) { /* a history this big is not ours */
                free(text);
                text = NULL;
                if (err) snprintf(err, err_size, "%s: too large; starting a new history", path);
                break;
            }
            char *t = realloc(text, cap * 2);
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (text) text[len] = '\0';
    return text;
}

void tui_history_open(tui_history *h, const char *path, char *err, size_t err_size) {
    memset(h, 0, sizeof(*h));
    if (err && err_size) err[0] = '\0';
    if (path && *path) snprintf(h->path, sizeof(h->path), "%s", path);
    char *text = h->path[0] ? read_all(h->path, err, err_size) : NULL;
    if (text) {
        h->root = cJSON_Parse(text);
        if (h->root && !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(h->root, "labs"))) {
            cJSON_Delete(h->root);
            h->root = NULL;
        }
        if (!h->root && err) snprintf(err, err_size, "%s is not a results file; starting a new one", h->path);
        free(text);
    }
    if (!h->root) {
        h->root = cJSON_CreateObject();
        if (h->root) cJSON_AddObjectToObject(h->root, "labs");
    }
}

void tui_history_close(tui_history *h) {
    cJSON_Delete(h->root);
    h->root = NULL;
}

bool tui_history_get(const tui_history *h, const char *lab, const char *variant, tui_last_result *out) {
    memset(out, 0, sizeof(*out));
    if (!h->root) return false;
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(h->root, "labs");
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(labs, lab), variant);
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, "status"));
    if (!cJSON_IsObject(entry) || !status) return false;
    snprintf(out->status, sizeof(out->status), "%s", status);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(entry, "speedup");
    if (cJSON_IsNumber(n)) out->speedup = n->valuedouble;
    n = cJSON_GetObjectItemCaseSensitive(entry, "target");
    if (cJSON_IsNumber(n)) out->target = n->valuedouble;
    n = cJSON_GetObjectItemCaseSensitive(entry, "when");
    if (cJSON_IsNumber(n) && n->valuedouble > 0 && n->valuedouble < 1e12) out->when = (time_t)n->valuedouble;
    return true;
}

/* mkdir -p of path's directory. */
static int make_parent(const char *path, char *err, size_t err_size) {
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            snprintf(err, err_size, "%s: %s", dir, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, err_size, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int tui_history_put(tui_history *h, const char *lab, const char *variant, const tui_last_result *r, char *err,
                    size_t err_size) {
    if (!h->root) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    cJSON *labs = cJSON_GetObjectItemCaseSensitive(h->root, "labs");
    cJSON *entry_lab = cJSON_GetObjectItemCaseSensitive(labs, lab);
    if (!cJSON_IsObject(entry_lab)) {
        cJSON_DeleteItemFromObjectCaseSensitive(labs, lab);
        entry_lab = cJSON_AddObjectToObject(labs, lab);
    }
    cJSON *e = cJSON_CreateObject();
    if (!entry_lab || !e) {
        cJSON_Delete(e);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    cJSON_AddStringToObject(e, "status", r->status);
    cJSON_AddNumberToObject(e, "speedup", r->speedup);
    cJSON_AddNumberToObject(e, "target", r->target);
    cJSON_AddNumberToObject(e, "when", (double)r->when);
    if (cJSON_GetObjectItemCaseSensitive(entry_lab, variant))
        cJSON_ReplaceItemInObjectCaseSensitive(entry_lab, variant, e);
    else
        cJSON_AddItemToObject(entry_lab, variant, e);
    if (!h->path[0]) return 0;
    if (make_parent(h->path, err, err_size) != 0) return -1;
    char *text = cJSON_Print(h->root);
    if (!text) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", h->path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int rc = 0;
    if (!f || fputs(text, f) == EOF || fputc('\n', f) == EOF) rc = -1;
    if (f && fclose(f) != 0) rc = -1;
    if (rc == 0 && rename(tmp, h->path) != 0) rc = -1;
    if (rc != 0) {
        snprintf(err, err_size, "%s: %s", h->path, strerror(errno));
        unlink(tmp);
    }
    cJSON_free(text);
    return rc;
}
