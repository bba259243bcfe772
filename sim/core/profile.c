/* sim/core/profile.c: parsing and checking a device profile (see profile.h). */
#include "sim/core/profile.h"
#include "sim/core/profile_link.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ------------------------------------------------------------------------ */

typedef struct param_info {
    const char *section;
    const char *key;
    bool integer;
    double min, max;
    size_t offset;
} param_info;

static const param_info k_params[] = {
#define SIM_PROFILE_INFO(section, key, integer, min, max) \
    {#section, #key, integer, (double)(min), (double)(max), offsetof(sim_profile, key)},
    SIM_PROFILE_PARAMS(SIM_PROFILE_INFO)
#undef SIM_PROFILE_INFO
};
static const size_t k_param_count = sizeof(k_params) / sizeof(k_params[0]);

static const char *const k_sections[] = {"device", "copy", "compute", "host"};

#define COPY_AXIS {"bytes", "a larger copy cannot take less"}
const sim_profile_curve_info sim_profile_curves[SIM_PROFILE_CURVES] = {
    {"copy", "h2d_pageable_curve", offsetof(sim_profile, h2d_pageable_curve), COPY_AXIS},
    {"copy", "d2h_pageable_curve", offsetof(sim_profile, d2h_pageable_curve), COPY_AXIS},
    {"host", "host_copy_curve", offsetof(sim_profile, host_copy_curve), COPY_AXIS},
    {"host", "host_copy_cold_curve", offsetof(sim_profile, host_copy_cold_curve), COPY_AXIS},
    /* The driver serves small allocations from memory it keeps: 1 MiB may cost less than
     * 8 KiB did (docs/calibration.md, "Device memory and cudaFreeHost"). */
    {"host", "malloc_curve", offsetof(sim_profile, malloc_curve), {"bytes", NULL}},
    {"host", "free_curve", offsetof(sim_profile, free_curve), {"bytes", NULL}},
    {"device", "wake_curve", offsetof(sim_profile, wake_curve), {"idle_ns", "a longer idle cannot cost less"}},
};
#undef COPY_AXIS

const sim_profile_curve_info *sim_profile_curve_named(const char *section, const char *key) {
    for (size_t i = 0; i < SIM_PROFILE_CURVES; i++)
        if (!strcmp(sim_profile_curves[i].section, section) && !strcmp(sim_profile_curves[i].key, key))
            return &sim_profile_curves[i];
    return NULL;
}

static int fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

static int copy_string(const cJSON *root, const char *key, char *dst, size_t dst_size,
                       const char *origin, char *err, size_t err_size) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsString(item) || item->valuestring[0] == '\0')
        return fail(err, err_size, "profile %s: \"%s\" must be a non-empty string", origin, key);
    if (strlen(item->valuestring) >= dst_size)
        return fail(err, err_size, "profile %s: \"%s\" is longer than %zu characters", origin, key,
                    dst_size - 1);
    snprintf(dst, dst_size, "%s", item->valuestring);
    return 0;
}

static const param_info *find_param(const char *section, const char *key) {
    for (size_t i = 0; i < k_param_count; i++)
        if (!strcmp(k_params[i].section, section) && !strcmp(k_params[i].key, key)) return &k_params[i];
    return NULL;
}

/* Parameters a profile written before them may lack, and the one each then takes its value
 * from: what the simulator charged before (a calibration written by an older
 * //sim:calibrate still reads). cudaFreeHost paid cudaFree's cost before it had a fixed
 * cost of its own. */
static const struct {
    const char *section, *key, *from;
} k_fallbacks[] = {
    {"host", "free_host_ns", "free_ns"},
};

static const param_info *fallback_of(const param_info *p) {
    for (size_t i = 0; i < sizeof(k_fallbacks) / sizeof(k_fallbacks[0]); i++)
        if (!strcmp(k_fallbacks[i].section, p->section) && !strcmp(k_fallbacks[i].key, p->key))
            return find_param(k_fallbacks[i].section, k_fallbacks[i].from);
    return NULL;
}

static int parse_sections(const cJSON *root, const char *origin, sim_profile *out, char *err,
                          size_t err_size) {
    bool seen[sizeof(k_params) / sizeof(k_params[0])] = {false};
    for (size_t s = 0; s < sizeof(k_sections) / sizeof(k_sections[0]); s++) {
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, k_sections[s]);
        if (!cJSON_IsObject(sec))
            return fail(err, err_size, "profile %s: section \"%s\" is missing or not an object",
                        origin, k_sections[s]);
        const cJSON *entry;
        cJSON_ArrayForEach(entry, sec) {
            const sim_profile_curve_info *curve = sim_profile_curve_named(k_sections[s], entry->string);
            if (curve) {
                sim_pageable_curve *c = SIM_PROFILE_CURVE(out, curve);
                if (c->n)
                    return fail(err, err_size, "profile %s: \"%s.%s\" is given twice", origin, k_sections[s],
                                entry->string);
                if (sim_profile_parse_curve(entry, origin, k_sections[s], entry->string, &curve->axis, c, err,
                                            err_size))
                    return -1;
                continue;
            }
            const param_info *p = find_param(k_sections[s], entry->string);
            if (!p)
                return fail(err, err_size, "profile %s: unknown parameter \"%s.%s\"", origin,
                            k_sections[s], entry->string);
            const cJSON *value = cJSON_GetObjectItemCaseSensitive(entry, "value");
            const cJSON *source = cJSON_GetObjectItemCaseSensitive(entry, "source");
            if (!cJSON_IsObject(entry) || !cJSON_IsNumber(value))
                return fail(err, err_size,
                            "profile %s: \"%s.%s\" must be {\"value\": number, \"source\": text}",
                            origin, k_sections[s], entry->string);
            if (!cJSON_IsString(source) || source->valuestring[0] == '\0')
                return fail(err, err_size,
                            "profile %s: \"%s.%s\" has no \"source\" saying where the figure comes from",
                            origin, k_sections[s], entry->string);
            const cJSON *field;
            cJSON_ArrayForEach(field, entry) {
                if (!strcmp(field->string, "value") || !strcmp(field->string, "source")) continue;
                if (!strcmp(field->string, "measured") && cJSON_IsBool(field)) continue;
                return fail(err, err_size,
                            strcmp(field->string, "measured")
                                ? "profile %s: \"%s.%s\" has an unknown field \"%s\" (value, source, measured)"
                                : "profile %s: \"%s.%s\": \"%s\" must be true or false",
                            origin, k_sections[s], entry->string, field->string);
            }
            double v = value->valuedouble;
            if (!isfinite(v) || v < p->min || v > p->max)
                return fail(err, err_size, "profile %s: \"%s.%s\" = %g is outside [%g, %g]", origin,
                            k_sections[s], entry->string, v, p->min, p->max);
            if (p->integer && v != floor(v))
                return fail(err, err_size, "profile %s: \"%s.%s\" = %g must be a whole number",
                            origin, k_sections[s], entry->string, v);
            size_t idx = (size_t)(p - k_params);
            if (seen[idx])
                return fail(err, err_size, "profile %s: \"%s.%s\" is given twice", origin,
                            k_sections[s], entry->string);
            seen[idx] = true;
            *(double *)((char *)out + p->offset) = v;
        }
    }
    for (size_t i = 0; i < k_param_count; i++) {
        if (seen[i]) continue;
        const param_info *from = fallback_of(&k_params[i]);
        if (!from || !seen[from - k_params])
            return fail(err, err_size, "profile %s: parameter \"%s.%s\" is missing", origin,
                        k_params[i].section, k_params[i].key);
        *(double *)((char *)out + k_params[i].offset) = *(const double *)((const char *)out + from->offset);
    }
    return 0;
}

/* Checks between parameters that a range check alone cannot make. */
static int check_consistency(const sim_profile *p, const char *origin, char *err, size_t err_size) {
    if (p->priority_greatest > p->priority_least)
        return fail(err, err_size,
                    "profile %s: priority_greatest (%g) must not exceed priority_least (%g): lower "
                    "numbers are higher priorities",
                    origin, p->priority_greatest, p->priority_least);
    if (p->max_threads_per_block > p->max_threads_per_sm)
        return fail(err, err_size, "profile %s: max_threads_per_block exceeds max_threads_per_sm",
                    origin);
    if (p->shared_mem_per_block > p->shared_mem_per_block_optin ||
        p->shared_mem_per_block_optin > p->shared_mem_per_sm)
        return fail(err, err_size,
                    "profile %s: shared memory limits must satisfy per_block <= per_block_optin <= "
                    "per_sm",
                    origin);
    if (p->regs_per_block > p->regs_per_sm)
        return fail(err, err_size, "profile %s: regs_per_block exceeds regs_per_sm", origin);
    if ((p->h2d_pageable_curve.n > 0) != (p->d2h_pageable_curve.n > 0))
        return fail(err, err_size,
                    "profile %s: \"copy.%s\" is given without \"copy.%s\": a profile has both pageable curves "
                    "or neither",
                    origin, p->h2d_pageable_curve.n ? "h2d_pageable_curve" : "d2h_pageable_curve",
                    p->h2d_pageable_curve.n ? "d2h_pageable_curve" : "h2d_pageable_curve");
    return 0;
}

double sim_profile_pageable_ns(const sim_profile *p, bool h2d, double bytes) {
    const sim_pageable_curve *c = h2d ? &p->h2d_pageable_curve : &p->d2h_pageable_curve;
    double rate = h2d ? p->h2d_pageable_gbps : p->d2h_pageable_gbps;
    if (c->n > 0) return sim_curve_ns(c, bytes, rate);
    return (h2d ? p->h2d_fixed_ns : p->d2h_fixed_ns) + p->pageable_fixed_ns + bytes / rate;
}

static double host_copy_ns(const sim_pageable_curve *c, double bytes, double gbps) {
    if (c->n == 0) return bytes / gbps;
    /* A memcpy has no fixed cost to speak of: below the smallest point, its share of it. */
    if (bytes < c->bytes[0]) return c->ns[0] * bytes / c->bytes[0];
    return sim_curve_ns(c, bytes, gbps);
}

double sim_profile_host_copy_ns(const sim_profile *p, double bytes) {
    return host_copy_ns(&p->host_copy_curve, bytes, p->host_memcpy_gbps);
}

double sim_profile_host_copy_cold_ns(const sim_profile *p, double bytes) {
    const sim_pageable_curve *c = &p->host_copy_cold_curve;
    if (c->n == 0) return sim_profile_host_copy_ns(p, bytes);
    /* Past its largest point, at the rate between its two largest (else its last point's
     * average, else host_memcpy_gbps). */
    int last = c->n - 1;
    double gbps = sim_curve_last_gbps(c);
    if (gbps <= 0) gbps = c->ns[last] > 0 ? c->bytes[last] / c->ns[last] : p->host_memcpy_gbps;
    /* Never less than the warm curve: the two are measured apart (on different starts, where
     * a profile takes each from its own), and where both overflow every cache they agree. */
    double cold = host_copy_ns(c, bytes, gbps), warm = sim_profile_host_copy_ns(p, bytes);
    return cold > warm ? cold : warm;
}

/* Past a device memory curve's largest point, the extra bytes at its last segment's rate
 * (the driver maps pages in proportion), or none when that segment does not rise. */
static double device_memory_ns(const sim_pageable_curve *c, double fixed_ns, double bytes) {
    if (c->n == 0) return fixed_ns;
    int last = c->n - 1;
    double gbps = sim_curve_last_gbps(c);
    if (bytes <= c->bytes[last] || gbps <= 0) return sim_curve_ns(c, bytes < c->bytes[last] ? bytes : c->bytes[last], 1);
    return sim_curve_ns(c, bytes, gbps);
}

double sim_profile_malloc_ns(const sim_profile *p, double bytes) {
    return device_memory_ns(&p->malloc_curve, p->malloc_ns, bytes);
}

double sim_profile_free_ns(const sim_profile *p, double bytes) {
    return device_memory_ns(&p->free_curve, p->free_ns, bytes);
}

int sim_profile_parse(const char *json, size_t size, const char *origin, sim_profile *out,
                      char *err, size_t err_size) {
    memset(out, 0, sizeof(*out));
    cJSON *root = cJSON_ParseWithLength(json, size);
    if (!root) {
        const char *where = cJSON_GetErrorPtr();
        long offset = (where && where >= json && where <= json + size) ? (long)(where - json) : -1;
        return fail(err, err_size, "profile %s: not valid JSON (near byte %ld)", origin, offset);
    }
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        fail(err, err_size, "profile %s: the top level must be a JSON object", origin);
        goto done;
    }
    if (copy_string(root, "name", out->name, sizeof(out->name), origin, err, err_size)) goto done;
    if (copy_string(root, "device_name", out->device_name, sizeof(out->device_name), origin, err,
                    err_size))
        goto done;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "source");
    if (!cJSON_IsString(src) || src->valuestring[0] == '\0') {
        fail(err, err_size, "profile %s: \"source\" must say where the profile's figures come from",
             origin);
        goto done;
    }
    if (parse_sections(root, origin, out, err, err_size)) goto done;
    if (check_consistency(out, origin, err, err_size)) goto done;
    if (sim_profile_parse_link(root, origin, &out->link, err, err_size)) goto done;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

double sim_profile_wake_ns(const sim_profile *p, double idle_ns) {
    const sim_pageable_curve *c = &p->wake_curve;
    if (c->n == 0 || !(idle_ns > 0)) return 0;
    if (idle_ns < c->bytes[0]) return c->ns[0] * idle_ns / c->bytes[0];
    int last = c->n - 1;
    if (idle_ns >= c->bytes[last]) return c->ns[last];
    return sim_curve_ns(c, idle_ns, 1);
}
