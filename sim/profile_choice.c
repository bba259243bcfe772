/* sim/profile_choice.c: choosing the device profile (see profile_choice.h): by built-in
 * name or path, parsed by sim/core/profile.c; and the sim_profile_name / sim_profile_names /
 * sim_last_message entry points of streamlab_sim.h (sim_select_profile, which asks whether
 * the device is in use first, is sim/reset.c's). */
#define _POSIX_C_SOURCE 200809L
#include "sim/profile_choice.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamlab_sim.h"

static sim_profile g_profile;
static bool g_loaded;
static bool g_failed; /* the default failed to load; not retried until a select/forget */
static char g_message[1024];

void sim_set_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof(g_message), fmt, ap);
    va_end(ap);
}

const char *sim_last_message(void) { return g_message; }

static int fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- choosing ----------------------------------------------------------------------- */

static const sim_profile_blob *find_blob(const char *name) {
    for (size_t i = 0; i < sim_profile_blob_count; i++)
        if (!strcmp(sim_profile_blobs[i].name, name)) return &sim_profile_blobs[i];
    return NULL;
}

static bool looks_like_path(const char *s) {
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n > 5 && !strcmp(s + n - 5, ".json"));
}

static void known_names(char *buf, size_t size) {
    buf[0] = '\0';
    for (size_t i = 0; i < sim_profile_blob_count; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? ", " : "", sim_profile_blobs[i].name);
    }
}

static int read_file(const char *path, char **data, size_t *size, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, err_size, "profile %s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return fail(err, err_size, "profile %s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap >= (size_t)16 << 20) {
                free(buf);
                fclose(f);
                return fail(err, err_size, "profile %s: larger than 16 MiB, not a profile", path);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return fail(err, err_size, "profile %s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return fail(err, err_size, "profile %s: read error", path);
    }
    *data = buf;
    *size = n;
    return 0;
}

/* Loads a profile by built-in name or path into *out. */
static int load(const char *name_or_path, sim_profile *out, char *err, size_t err_size) {
    if (!name_or_path || !*name_or_path)
        return fail(err, err_size, "no profile name given");
    const sim_profile_blob *blob = find_blob(name_or_path);
    if (blob) return sim_profile_parse(blob->json, blob->size, blob->name, out, err, err_size);
    if (!looks_like_path(name_or_path)) {
        char names[256];
        known_names(names, sizeof(names));
        return fail(err, err_size,
                    "unknown profile \"%s\": the built-in ones are %s (or give a path to a profile "
                    "file)",
                    name_or_path, names);
    }
    char *data = NULL;
    size_t size = 0;
    if (read_file(name_or_path, &data, &size, err, err_size)) return -1;
    int rc = sim_profile_parse(data, size, name_or_path, out, err, err_size);
    free(data);
    return rc;
}

int sim_profile_choose(const char *name_or_path) {
    sim_profile p;
    char err[sizeof(g_message)];
    if (load(name_or_path, &p, err, sizeof(err))) {
        sim_set_message("%s", err);
        return -1;
    }
    g_profile = p;
    g_loaded = true;
    g_failed = false;
    return 0;
}

const sim_profile *sim_profile_current(void) {
    if (g_loaded) return &g_profile;
    if (g_failed) return NULL;
    const char *env = getenv("STREAMLAB_PROFILE");
    const char *choice = (env && *env) ? env : "h200";
    char err[sizeof(g_message)];
    if (load(choice, &g_profile, err, sizeof(err))) {
        sim_set_message("STREAMLAB_PROFILE=%s: %s", choice, err);
        fprintf(stderr, "streamlab simulated GPU: %s\n", g_message);
        g_failed = true;
        return NULL;
    }
    g_loaded = true;
    return &g_profile;
}

void sim_profile_forget(void) {
    g_loaded = false;
    g_failed = false;
}

const char *sim_profile_name(void) {
    const sim_profile *p = sim_profile_current();
    return p ? p->name : NULL;
}

const char *const *sim_profile_names(void) {
    static const char *names[16];
    static bool filled;
    if (!filled) {
        size_t n = sim_profile_blob_count < 15 ? sim_profile_blob_count : 15;
        for (size_t i = 0; i < n; i++) names[i] = sim_profile_blobs[i].name;
        names[n] = NULL;
        filled = true;
    }
    return names;
}
