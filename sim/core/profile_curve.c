/* sim/core/profile_curve.c: a profile's copy curves (see profile_curve.h). */
#include "sim/core/profile_curve.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

int sim_profile_parse_curve(const cJSON *entry, const char *origin, const char *section, const char *key,
                            const sim_curve_axis *axis, sim_pageable_curve *out, char *err, size_t err_size) {
    const char *x = axis->x;
    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(entry))
        return fail(err, err_size,
                    "profile %s: \"%s.%s\" must be {\"points\": [[%s, ns], ...], \"source\": text}", origin,
                    section, key, x);
    const cJSON *field;
    cJSON_ArrayForEach(field, entry) {
        if (!strcmp(field->string, "points") || !strcmp(field->string, "source")) continue;
        if (!strcmp(field->string, "measured") && cJSON_IsBool(field)) continue;
        return fail(err, err_size,
                    strcmp(field->string, "measured")
                        ? "profile %s: \"%s.%s\" has an unknown field \"%s\" (points, source, measured)"
                        : "profile %s: \"%s.%s\": \"%s\" must be true or false",
                    origin, section, key, field->string);
    }
    const cJSON *source = cJSON_GetObjectItemCaseSensitive(entry, "source");
    if (!cJSON_IsString(source) || source->valuestring[0] == '\0')
        return fail(err, err_size, "profile %s: \"%s.%s\" has no \"source\" saying where the points come from",
                    origin, section, key);
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(entry, "points");
    if (!cJSON_IsArray(points))
        return fail(err, err_size, "profile %s: \"%s.%s\" has no \"points\": a list of [%s, ns] pairs", origin,
                    section, key, x);
    int n = cJSON_GetArraySize(points);
    if (n == 0)
        return fail(err, err_size, "profile %s: \"%s.%s\": \"points\" is empty; give at least one [%s, ns]",
                    origin, section, key, x);
    if (n > SIM_CURVE_MAX_POINTS)
        return fail(err, err_size, "profile %s: \"%s.%s\" has %d points, at most %d", origin, section, key, n,
                    SIM_CURVE_MAX_POINTS);
    int i = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points) {
        const cJSON *b = cJSON_IsArray(pt) && cJSON_GetArraySize(pt) == 2 ? cJSON_GetArrayItem(pt, 0) : NULL;
        const cJSON *t = b ? cJSON_GetArrayItem(pt, 1) : NULL;
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(t))
            return fail(err, err_size, "profile %s: \"%s.%s\": point %d must be a pair of numbers [%s, ns]",
                        origin, section, key, i + 1, x);
        double bytes = b->valuedouble, ns = t->valuedouble;
        if (!isfinite(bytes) || bytes < 1 || bytes > 1e15 || bytes != floor(bytes))
            return fail(err, err_size,
                        "profile %s: \"%s.%s\": point %d's %s %g must be a whole number from 1 to 1e15",
                        origin, section, key, i + 1, x, bytes);
        if (!isfinite(ns) || ns < 0 || ns > 1e12)
            return fail(err, err_size, "profile %s: \"%s.%s\": point %d's time %g must be from 0 to 1e12 ns", origin,
                        section, key, i + 1, ns);
        if (i > 0 && bytes <= out->bytes[i - 1])
            return fail(err, err_size,
                        "profile %s: \"%s.%s\": point %d's %s (%g) must be larger than point %d's (%g): "
                        "the points go from the smallest to the largest",
                        origin, section, key, i + 1, x, bytes, i, out->bytes[i - 1]);
        if (axis->rising && i > 0 && ns < out->ns[i - 1])
            return fail(err, err_size,
                        "profile %s: \"%s.%s\": point %d (%g %s, %g ns) takes less time than point %d (%g %s, "
                        "%g ns): %s",
                        origin, section, key, i + 1, bytes, x, ns, i, out->bytes[i - 1], x, out->ns[i - 1],
                        axis->rising);
        out->bytes[i] = bytes;
        out->ns[i] = ns;
        i++;
    }
    out->n = n;
    return 0;
}

double sim_curve_last_gbps(const sim_pageable_curve *c) {
    int last = c->n - 1;
    if (last < 1 || c->ns[last] <= c->ns[last - 1]) return 0;
    return (c->bytes[last] - c->bytes[last - 1]) / (c->ns[last] - c->ns[last - 1]);
}

double sim_curve_ns(const sim_pageable_curve *c, double bytes, double beyond_gbps) {
    if (c->n <= 0) return 0;
    if (bytes <= c->bytes[0]) return c->ns[0];
    int last = c->n - 1;
    if (bytes >= c->bytes[last]) return c->ns[last] + (bytes - c->bytes[last]) / beyond_gbps;
    int k = 1;
    while (c->bytes[k] < bytes) k++;
    double f = (bytes - c->bytes[k - 1]) / (c->bytes[k] - c->bytes[k - 1]);
    return c->ns[k - 1] + f * (c->ns[k] - c->ns[k - 1]);
}
