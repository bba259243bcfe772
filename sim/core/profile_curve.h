/* sim/core/profile_curve.h: the time a copy takes, as a function of its size: a curve of
 * measured points. A profile's "copy" section may hold one per direction for pageable copies,
 * "h2d_pageable_curve" and "d2h_pageable_curve", and its "host" section one for the host's
 * own memcpy, "host_copy_curve" and "host_copy_cold_curve" (see below):
 *
 *   "h2d_pageable_curve": {"points": [[65536, 22150], [262144, 32500], ...],
 *                          "source": "where the points come from", "measured": true}
 *
 * Each point is [bytes, ns]: a pageable copy of that many bytes takes that long from its
 * start to its end, staging included (a synchronous cudaMemcpy of it on an idle device,
 * less the call's host costs: memcpy_call_ns and its per-MiB part, submit_latency_ns and
 * sync_wake_ns). Sizes strictly increase, times never decrease (a larger copy cannot take
 * less), at most SIM_CURVE_MAX_POINTS points. Between two points the time is interpolated
 * linearly; below the smallest size a copy takes the smallest size's time (what is left
 * there is the driver's fixed cost); above the largest it takes the largest's time plus
 * the extra bytes at the direction's pageable rate (h2d_pageable_gbps, d2h_pageable_gbps).
 *
 * The driver stages small and large pageable copies differently (docs/calibration.md,
 * "Pageable copies"), so no single staging cost and rate fits both; a profile without the
 * curves keeps that single line: the direction's set-up, pageable_fixed_ns, and the bytes
 * at the pageable rate. A profile has both curves or neither.
 *
 * "host_copy_curve" is what a memcpy of that many bytes costs the host's CPU, from memory the
 * host has just written into pinned memory (docs/calibration/host_copy_probe.cu: into
 * pageable or write-combined memory it costs the same on the lent H200s' hosts); past its
 * largest point the extra bytes go at host_memcpy_gbps. A profile without it charges every
 * host copy at host_memcpy_gbps.
 *
 * "host_copy_cold_curve" is the same for memory that no CPU cache holds: what the host last
 * wrote long ago or another process wrote (a lab's inputs, which the harness wrote before
 * the run). On a lent H200's host such a copy took about 160 us a MiB at every size from
 * 256 KiB to 8 MiB, where the warmer host_copy_curve has 100 to 125 (docs/calibration.md,
 * "Host copies"). Past its largest point the extra bytes go at the rate between its two
 * largest; a profile without it charges such copies as host_copy_curve does.
 *
 * "malloc_curve" and "free_curve" (the "host" section) are what cudaMalloc and cudaFree of
 * that many bytes cost the host on an idle device (a cudaFree waits for the device first).
 * Their times may fall as the sizes grow (the driver serves small allocations from memory it
 * keeps); below the smallest size a call takes that size's time, past the largest the last
 * segment's rate carries it on where that segment rises. A profile without them charges
 * malloc_ns and free_ns whatever the size (sim_profile_malloc_ns, sim_profile_free_ns). */
#ifndef STREAMLAB_SIM_CORE_PROFILE_CURVE_H
#define STREAMLAB_SIM_CORE_PROFILE_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_CURVE_MAX_POINTS 16

typedef struct sim_pageable_curve {
    int n; /* 0: the profile has no curve for this direction */
    double bytes[SIM_CURVE_MAX_POINTS];
    double ns[SIM_CURVE_MAX_POINTS];
} sim_pageable_curve;

/* What a curve's points measure: x names their first number in messages ("bytes", or
 * "idle_ns" for the wake curve); rising, when its times may not fall as x grows, says why
 * ("a larger copy cannot take less"), NULL when they may (a call's cost). */
typedef struct sim_curve_axis {
    const char *x;
    const char *rising;
} sim_curve_axis;

/* Reads one curve entry (entry, named section.key in messages) into out. Returns 0, or -1
 * with a message in err naming the profile, the entry and, where one is wrong, the point. */
int sim_profile_parse_curve(const cJSON *entry, const char *origin, const char *section, const char *key,
                            const sim_curve_axis *axis, sim_pageable_curve *out, char *err, size_t err_size);

/* The time of a copy of bytes on the curve c (c->n > 0), in ns; beyond_gbps carries it
 * past the largest point. */
double sim_curve_ns(const sim_pageable_curve *c, double bytes, double beyond_gbps);

/* The rate of c's last segment, in bytes a ns (its two largest points'), or 0 where it has
 * fewer than two points or that segment does not rise: what carries a curve past its
 * largest point when no profile value does. */
double sim_curve_last_gbps(const sim_pageable_curve *c);

#ifdef __cplusplus
}
#endif

#endif
