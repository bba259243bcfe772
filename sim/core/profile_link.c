/* sim/core/profile_link.c: the "link" section of a profile (see profile_link.h). */
#include "sim/core/profile_link.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct link_param {
    const char *key;
    bool integer;
    double min, max;
    size_t offset;
    bool is_bool;
} link_param;

#define LP(key, integer, min, max) {#key, integer, min, max, offsetof(sim_profile_link, key), false}
static const link_param k_link[] = {
    {"device_count", true, 1, SIM_MAX_DEVICES, offsetof(sim_profile_link, device_count), false},
    {"peer_access_supported", true, 0, 1, offsetof(sim_profile_link, peer_access_supported), true},
    LP(peer_gbps, false, 1e-3, 1e5),
    LP(peer_bidir_total_gbps, false, 1e-3, 2e5),
    LP(peer_fixed_ns, false, 0, 1e9),
    LP(staged_gbps, false, 1e-3, 1e5),
    LP(staged_bidir_total_gbps, false, 1e-3, 2e5),
    LP(staged_fixed_ns, false, 0, 1e9),
};
#undef LP
#define N_LINK (sizeof(k_link) / sizeof(k_link[0]))

static int fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

int sim_profile_parse_link(const cJSON *root, const char *origin, sim_profile_link *out, char *err,
                           size_t err_size) {
    memset(out, 0, sizeof(*out));
    out->device_count = 1;
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, "link");
    if (!sec) return 0;
    if (!cJSON_IsObject(sec))
        return fail(err, err_size, "profile %s: section \"link\" must be an object", origin);
    bool seen[N_LINK] = {false};
    const cJSON *entry;
    cJSON_ArrayForEach(entry, sec) {
        const link_param *p = NULL;
        for (size_t i = 0; i < N_LINK; i++)
            if (!strcmp(k_link[i].key, entry->string)) p = &k_link[i];
        if (!p) return fail(err, err_size, "profile %s: unknown parameter \"link.%s\"", origin, entry->string);
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(entry, "value");
        const cJSON *source = cJSON_GetObjectItemCaseSensitive(entry, "source");
        if (!cJSON_IsObject(entry) || !cJSON_IsNumber(value))
            return fail(err, err_size, "profile %s: \"link.%s\" must be {\"value\": number, \"source\": text}",
                        origin, entry->string);
        if (!cJSON_IsString(source) || source->valuestring[0] == '\0')
            return fail(err, err_size, "profile %s: \"link.%s\" has no \"source\" saying where the figure comes from",
                        origin, entry->string);
        double v = value->valuedouble;
        if (!isfinite(v) || v < p->min || v > p->max)
            return fail(err, err_size, "profile %s: \"link.%s\" = %g is outside [%g, %g]%s", origin, entry->string,
                        v, p->min, p->max,
                        p->offset == offsetof(sim_profile_link, device_count) ? " (the link joins two devices)" : "");
        if (p->integer && v != floor(v))
            return fail(err, err_size, "profile %s: \"link.%s\" = %g must be a whole number", origin, entry->string, v);
        size_t idx = (size_t)(p - k_link);
        if (seen[idx]) return fail(err, err_size, "profile %s: \"link.%s\" is given twice", origin, entry->string);
        seen[idx] = true;
        char *field = (char *)out + p->offset;
        if (p->offset == offsetof(sim_profile_link, device_count))
            *(int *)field = (int)v;
        else if (p->is_bool)
            *(bool *)field = v != 0;
        else
            *(double *)field = v;
    }
    for (size_t i = 0; i < N_LINK; i++)
        if (!seen[i])
            return fail(err, err_size, "profile %s: parameter \"link.%s\" is missing", origin, k_link[i].key);
    if (out->peer_bidir_total_gbps < out->peer_gbps || out->staged_bidir_total_gbps < out->staged_gbps)
        return fail(err, err_size,
                    "profile %s: a link's bidirectional total (peer_bidir_total_gbps, staged_bidir_total_gbps) "
                    "must be at least its one-way rate",
                    origin);
    return 0;
}
