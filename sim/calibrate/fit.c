/* sim/calibrate/fit.c: profile values from the probes' figures (see fit.h). */
#include "sim/calibrate/fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernels/cost.h"
#include "kernels/params.h"

/* Records that the fit set section.key, and how. */
static void vmark(cal_fit *f, const char *section, const char *key, const char *fmt, va_list ap) {
    cal_fitted *e = NULL;
    for (int i = 0; i < f->n_fitted; i++)
        if (!strcmp(f->fitted[i].key, key)) e = &f->fitted[i];
    if (!e && f->n_fitted < CAL_MAX_FITTED) e = &f->fitted[f->n_fitted++];
    if (!e) return;
    e->section = section;
    e->key = key;
    vsnprintf(e->how, sizeof(e->how), fmt, ap);
}

static void mark(cal_fit *f, const char *section, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void mark(cal_fit *f, const char *section, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmark(f, section, key, fmt, ap);
    va_end(ap);
}

static void set(cal_fit *f, const char *section, const char *key, double *field, double value, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void set(cal_fit *f, const char *section, const char *key, double *field, double value, const char *fmt, ...) {
    *field = value;
    va_list ap;
    va_start(ap, fmt);
    vmark(f, section, key, fmt, ap);
    va_end(ap);
}

static void note(cal_fit *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cal_fit *f, const char *fmt, ...) {
    if (f->n_notes >= CAL_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->notes[f->n_notes++], sizeof(f->notes[0]), fmt, ap);
    va_end(ap);
}

/* A value the model needs to be at least 0: a negative fit is clamped and said. */
static double at_least_zero(cal_fit *f, const char *key, double v) {
    if (v >= 0) return v;
    note(f, "%s fitted to %.4g, below 0: set to 0 (the figures it comes from are within the noise of each other)",
         key, v);
    return 0;
}

/* A cost of fixed + slope * x through two figures, y_s at x_s and y_l at x_l. When the
 * line through both would need a negative slope or intercept (or the intercept is given,
 * *fixed >= 0 on entry with fixed_given), the other is chosen so that both figures are
 * missed by the same fraction, one above and one below. */
static void line_fit(cal_fit *f, const char *what, double x_s, double x_l, double y_s, double y_l, bool fixed_given,
                     double *fixed, double *slope) {
    if (fixed_given) {
        double c = *fixed;
        *slope = (2 - c / y_s - c / y_l) / (x_s / y_s + x_l / y_l);
        if (*slope < 0) *slope = 0;
        return;
    }
    *slope = (y_l - y_s) / (x_l - x_s);
    *fixed = y_s - *slope * x_s;
    if (*slope < 0) {
        *slope = 0;
        *fixed = 2 * y_s * y_l / (y_s + y_l);
        note(f, "%s: the larger size took less (%.4g against %.4g); the model's cost cannot fall with size, so it is "
                "one figure between them", what, y_l, y_s);
    } else if (*fixed < 0) {
        *fixed = 0;
        *slope = 2 / (x_s / y_s + x_l / y_l);
        note(f, "%s: the line through both sizes crosses 0 below the smaller; the model's cost is proportional to "
                "size between them", what);
    }
}

const cal_fitted *cal_fit_find(const cal_fit *fit, const char *key) {
    for (int i = 0; i < fit->n_fitted; i++)
        if (!strcmp(fit->fitted[i].key, key)) return &fit->fitted[i];
    return NULL;
}

double cal_bidir_model_ns(double bytes, double f1, double f2, double r1, double r2, double total) {
    double start[2] = {f1, f2}, want[2] = {r1, r2}, left[2] = {bytes, bytes}, end[2] = {0, 0};
    double t = f1 < f2 ? f1 : f2;
    for (int guard = 0; guard < 8 && (left[0] > 0 || left[1] > 0); guard++) {
        bool busy[2];
        for (int i = 0; i < 2; i++) busy[i] = left[i] > 0 && start[i] <= t;
        double got[2] = {want[0], want[1]};
        /* copy_engine.c, rebalance(): both directions at once share the bidirectional
         * rate, split fairly; one that wants less than half leaves the rest to the other. */
        if (busy[0] && busy[1] && want[0] + want[1] > total) {
            double half = total / 2;
            if (want[0] <= half)
                got[1] = total - want[0];
            else if (want[1] <= half)
                got[0] = total - want[1];
            else
                got[0] = got[1] = half;
        }
        double next = INFINITY;
        for (int i = 0; i < 2; i++) {
            if (busy[i]) {
                double done = t + left[i] / got[i];
                if (done < next) next = done;
            } else if (left[i] > 0 && start[i] > t && start[i] < next) {
                next = start[i];
            }
        }
        for (int i = 0; i < 2; i++) {
            if (!busy[i]) continue;
            left[i] -= got[i] * (next - t);
            if (left[i] <= bytes * 1e-12) {
                left[i] = 0;
                end[i] = next;
            }
        }
        t = next;
    }
    return end[0] > end[1] ? end[0] : end[1];
}

/* Largest fractional part of g * golden ratio over the SM classes: the slowest class's
 * share of block_overhead_spread_ns (sim/core/compute.c, sim_compute_init). */
static double slowest_class_fraction(const sim_profile *p) {
    double n = p->sm_classes < p->sm_count ? p->sm_classes : p->sm_count;
    double best = 0;
    for (int g = 0; g < (int)n; g++) {
        double frac = fmod((double)g * 0.6180339887498949, 1.0);
        if (frac > best) best = frac;
    }
    return best;
}

static void fit_device(const cal_device *d, cal_fit *f) {
    sim_profile *p = &f->profile;
#define DEV(key)                                                                                                 \
    if (d->key >= 0) set(f, "device", #key, &p->key, d->key, "measured: what %s reports (cudaDeviceGetAttribute)", d->name);
    DEV(compute_major)
    DEV(compute_minor)
    DEV(sm_count)
    DEV(clock_khz)
    DEV(memory_clock_khz)
    DEV(memory_bus_width)
    DEV(l2_cache_bytes)
    DEV(async_engine_count)
    DEV(max_threads_per_sm)
    DEV(max_blocks_per_sm)
    DEV(regs_per_sm)
    DEV(shared_mem_per_sm)
    DEV(shared_mem_per_block_optin)
#undef DEV
    if (d->total_global_mem > 0)
        set(f, "device", "total_global_mem", &p->total_global_mem, d->total_global_mem,
            "measured: cudaGetDeviceProperties on %s", d->name);
    if (d->priority_least >= d->priority_greatest && !(d->priority_least == -1 && d->priority_greatest == -1)) {
        set(f, "device", "priority_least", &p->priority_least, d->priority_least,
            "measured: cudaDeviceGetStreamPriorityRange on %s", d->name);
        set(f, "device", "priority_greatest", &p->priority_greatest, d->priority_greatest,
            "measured: cudaDeviceGetStreamPriorityRange on %s", d->name);
    }
}

/* Pageable copies of 64 KiB to 256 MiB in one direction, host-timed: the profile's curve
 * for that direction (profile_curve.h) and the rate past its largest point. A synchronous
 * pageable cudaMemcpy on an idle device takes the host the call (memcpy_call_ns and its
 * per-MiB part), the submission, the copy (the curve's time) and the wake-up from the
 * wait, so each point is the measured time less those. The 256 MiB copy is measured as a
 * rate; past it the curve goes on at the rate between its two largest points. */
static void fit_pageable(cal_fit *f, const double *fig, bool h2d) {
    sim_profile *p = &f->profile;
    static const unsigned sweep_kib[CAL_PAGEABLE_SWEEP] = CAL_PAGEABLE_SWEEP_KIB;
    static const cal_figure_id up[CAL_PAGEABLE_SWEEP] = {CAL_h2d_pageable_64k, CAL_h2d_pageable_256k,
                                                         CAL_h2d_pageable_1m, CAL_h2d_pageable_64m};
    static const cal_figure_id down[CAL_PAGEABLE_SWEEP] = {CAL_d2h_pageable_64k, CAL_d2h_pageable_256k,
                                                           CAL_d2h_pageable_1m, CAL_d2h_pageable_64m};
    const char *dir = h2d ? "H2D" : "D2H";
    enum { N = CAL_PAGEABLE_SWEEP + 2 };
    double b[N], us[N];
    int n = 0;
    for (int k = 0; k < CAL_PAGEABLE_SWEEP; k++, n++) {
        b[n] = sweep_kib[k] * 1024.0;
        us[n] = fig[h2d ? up[k] : down[k]];
    }
    b[n] = CAL_PAGEABLE_SMALL_MIB * CAL_MIB;
    us[n++] = fig[h2d ? CAL_h2d_pageable_small : CAL_d2h_pageable_small];
    b[n] = CAL_LARGE_MIB * CAL_MIB;
    us[n] = b[n] / fig[h2d ? CAL_h2d_pageable_large : CAL_d2h_pageable_large] / 1e3;
    n++;
    for (int i = 1; i < n; i++) /* by size (the sweep and the 8 MiB copy interleave) */
        for (int j = i; j > 0 && b[j] < b[j - 1]; j--) {
            double tb = b[j], tu = us[j];
            b[j] = b[j - 1], us[j] = us[j - 1];
            b[j - 1] = tb, us[j - 1] = tu;
        }
    sim_pageable_curve *c = h2d ? &p->h2d_pageable_curve : &p->d2h_pageable_curve;
    memset(c, 0, sizeof(*c));
    char list[200] = "";
    for (int i = 0; i < n; i++) {
        double host = p->memcpy_call_ns + p->memcpy_call_ns_per_mib * b[i] / CAL_MIB + p->submit_latency_ns +
                      p->sync_wake_ns;
        double t = us[i] * 1e3 - host;
        if (t < 0) {
            note(f, "pageable %s copy of %.0f KiB: %.2f us is less than the call's host costs (%.2f us); its curve "
                    "point is 0", dir, b[i] / 1024, us[i], host / 1e3);
            t = 0;
        }
        if (i > 0 && t < c->ns[i - 1]) {
            note(f, "pageable %s copy of %.0f KiB took less than the one of %.0f KiB (%.4g against %.4g us); a larger "
                    "copy cannot take less, so its curve point is the smaller one's", dir, b[i] / 1024,
                 b[i - 1] / 1024, us[i], us[i - 1]);
            t = c->ns[i - 1];
        }
        c->bytes[i] = b[i];
        c->ns[i] = t;
        size_t used = strlen(list);
        snprintf(list + used, sizeof(list) - used, "%s%.4g", i ? ", " : "", us[i]);
    }
    c->n = n;
    double span = c->ns[n - 1] - c->ns[n - 2], rate;
    if (span > 0) {
        rate = (c->bytes[n - 1] - c->bytes[n - 2]) / span;
    } else {
        rate = c->bytes[n - 1] / (c->ns[n - 1] > 0 ? c->ns[n - 1] : 1);
        note(f, "pageable %s copies of 64 and 256 MiB took as long as each other: the rate past the curve is the "
                "256 MiB copy's", dir);
    }
    mark(f, "copy", h2d ? "h2d_pageable_curve" : "d2h_pageable_curve",
         "measured: synchronous pageable %s cudaMemcpy of 64 KiB, 256 KiB, 1 MiB, 8 MiB, 64 MiB and 256 MiB took %s "
         "us (host time), less the call, submission and wake-up (memcpy_call_ns, memcpy_call_ns_per_mib, "
         "submit_latency_ns, sync_wake_ns)", dir, list);
    set(f, "copy", h2d ? "h2d_pageable_gbps" : "d2h_pageable_gbps", h2d ? &p->h2d_pageable_gbps : &p->d2h_pageable_gbps,
        rate, "measured: past the pageable curve's largest point, the rate between its 64 MiB and 256 MiB points "
        "(%.4g and %.4g us host time; 256 MiB at %.2f GB/s)", us[n - 2], us[n - 1],
        fig[h2d ? CAL_h2d_pageable_large : CAL_d2h_pageable_large]);
}

/* Measured points of a curve: the i-th taken at at[i] units, its figure ids[i] (us). */
typedef struct measured_points {
    const char *what;         /* what a point times, for a note: "a host memcpy" */
    const unsigned *at;       /* where each was taken, in unit */
    const char *unit;         /* "KiB", "us of idle" */
    double scale;             /* one unit in the curve's own x: 1024 bytes, 1000 ns */
    const cal_figure_id *ids; /* the figure of each */
    int n;
} measured_points;

/* The profile's curve section.key (sim_profile_curves) from m's points, each the time its
 * figure measured (none below 0); their figures, printed with digits significant digits,
 * into list. Where the curve's times may not fall (its axis has a rising rule), a point
 * below the one before takes that one's time, with a note saying the rule. */
static void measured_curve(cal_fit *f, const double *fig, const measured_points *m, const char *section,
                           const char *key, int digits, char *list, size_t list_size) {
    const sim_profile_curve_info *info = sim_profile_curve_named(section, key);
    sim_pageable_curve *c = SIM_PROFILE_CURVE(&f->profile, info);
    memset(c, 0, sizeof(*c));
    list[0] = '\0';
    for (int i = 0; i < m->n; i++) {
        double t = fig[m->ids[i]] * 1e3;
        if (t < 0) t = 0;
        if (info->axis.rising && i > 0 && t < c->ns[i - 1]) {
            note(f, "%s at %u %s took less than at %u %s (%.4g against %.4g us); %s, so its curve point is the one "
                    "before's", m->what, m->at[i], m->unit, m->at[i - 1], m->unit, fig[m->ids[i]], fig[m->ids[i - 1]],
                 info->axis.rising);
            t = c->ns[i - 1];
        }
        c->bytes[i] = m->at[i] * m->scale;
        c->ns[i] = t;
        size_t used = strlen(list);
        snprintf(list + used, list_size - used, "%s%.*g", i ? ", " : "", digits, fig[m->ids[i]]);
    }
    c->n = m->n;
}

/* The host's memcpy of 64 KiB to 64 MiB: the profile's host_copy_curve (profile_curve.h),
 * the measured times as they are (a memcpy is the host's own work: no call to subtract), and
 * past its largest point the rate between its two largest points, host_memcpy_gbps. */
static void fit_host_copy(cal_fit *f, const double *fig) {
    sim_profile *p = &f->profile;
    static const unsigned kib[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_KIB;
    static const cal_figure_id ids[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_IDS;
    const measured_points m = {"a host memcpy", kib, "KiB", 1024, ids, CAL_HOST_COPY_SIZES};
    char list[200];
    measured_curve(f, fig, &m, "host", "host_copy_curve", 5, list, sizeof(list));
    const sim_pageable_curve *c = &p->host_copy_curve;
    int last = c->n - 1;
    double rate = sim_curve_last_gbps(c);
    if (rate <= 0) rate = c->bytes[last] / (c->ns[last] > 0 ? c->ns[last] : 1);
    mark(f, "host", "host_copy_curve",
         "measured: a host memcpy of 64 KiB, 256 KiB, 1 MiB, 8 MiB and 64 MiB from pageable memory the host wrote "
         "earlier (not just before) into pinned memory took %s us (host time, the median of 9)", list);
    set(f, "host", "host_memcpy_gbps", &p->host_memcpy_gbps, rate,
        "measured: past the host copy curve's largest point, the rate between its 8 MiB and 64 MiB points (%.4g and "
        "%.4g us)", fig[ids[last - 1]], fig[ids[last]]);
}

/* The host's memcpy of 64 KiB to 64 MiB from memory no cache holds: the profile's
 * host_copy_cold_curve, the measured times as they are. */
static void fit_host_copy_cold(cal_fit *f, const double *fig) {
    static const unsigned kib[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_KIB;
    static const cal_figure_id ids[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_COLD_IDS;
    const measured_points m = {"a host memcpy of memory no cache holds", kib, "KiB", 1024, ids, CAL_HOST_COPY_SIZES};
    char list[200];
    measured_curve(f, fig, &m, "host", "host_copy_cold_curve", 5, list, sizeof(list));
    mark(f, "host", "host_copy_cold_curve",
         "measured: a host memcpy of 64 KiB, 256 KiB, 1 MiB, 8 MiB and 64 MiB from pageable memory no CPU cache "
         "held (the host wrote 512 MiB elsewhere first) into pinned memory took %s us (host time, the median of 5)",
         list);
}

/* cudaMalloc (or cudaFree) of 8 KiB to 64 MiB on an idle device: the profile's malloc_curve
 * (free_curve), a point per size, the time as measured (profile.h: below the smallest size
 * a call costs its time, past the largest the last segment's rate). */
static void fit_device_memory(cal_fit *f, const double *fig, bool alloc) {
    static const unsigned kib[CAL_DEVMEM_SIZES] = CAL_DEVMEM_KIB;
    static const cal_figure_id mallocs[CAL_DEVMEM_SIZES] = CAL_DEVICE_MALLOC_IDS;
    static const cal_figure_id frees[CAL_DEVMEM_SIZES] = CAL_DEVICE_FREE_IDS;
    const measured_points m = {alloc ? "cudaMalloc" : "cudaFree", kib, "KiB", 1024, alloc ? mallocs : frees,
                               CAL_DEVMEM_SIZES};
    char list[200];
    measured_curve(f, fig, &m, "host", alloc ? "malloc_curve" : "free_curve", 4, list, sizeof(list));
    mark(f, "host", alloc ? "malloc_curve" : "free_curve",
         "measured: %s of 8 KiB, 256 KiB, 1 MiB, 8 MiB and 64 MiB on an idle device took %s us (host time, the "
         "median of 9, each buffer freed before the next is made)",
         alloc ? "cudaMalloc" : "cudaFree", list);
}

/* The device's wake-up: the wake_curve (profile.h, sim_profile_wake_ns), a point per idle of
 * the wake probe, its time what the round took beyond the same round back to back. A
 * longer idle cannot cost less than a shorter one (profile.c's rule for the curve): a point
 * below the one before takes that one's time, with a note (the host's noise in one round is
 * a few us), and none is below 0. */
static void fit_wake(cal_fit *f, const double *fig) {
    static const unsigned idle_us[CAL_WAKE_IDLES] = CAL_WAKE_IDLE_US;
    static const cal_figure_id ids[CAL_WAKE_IDLES] = CAL_WAKE_IDS;
    const measured_points m = {"the wake round", idle_us, "us of idle", 1000, ids, CAL_WAKE_IDLES};
    char list[200];
    measured_curve(f, fig, &m, "device", "wake_curve", 3, list, sizeof(list));
    mark(f, "device", "wake_curve",
         "measured: %d KiB up from pinned memory, a one-block kernel, %d KiB down and cudaStreamSynchronize, after the "
         "host slept 0.2, 1, 5, 20 and 100 ms with the device idle, took %s us longer than back to back (host time, "
         "the median of %d at each idle)",
         CAL_WAKE_KIB, CAL_WAKE_KIB, list, CAL_WAKE_ROUNDS);
}

/* A pinned copy, event-timed on a held-back stream: fixed_ns + bytes / rate. */
static void fit_pinned(cal_fit *f, const double *fig, bool h2d) {
    sim_profile *p = &f->profile;
    double small_b = CAL_PINNED_SMALL_MIB * CAL_MIB, large_b = CAL_LARGE_MIB * CAL_MIB;
    double small_ns = fig[h2d ? CAL_h2d_pinned_small : CAL_d2h_pinned_small] * 1e3;
    double large_ns = large_b / fig[h2d ? CAL_h2d_pinned_large : CAL_d2h_pinned_large];
    double ns_per_byte = (large_ns - small_ns) / (large_b - small_b);
    double rate = 1.0 / ns_per_byte;
    double fixed = at_least_zero(f, h2d ? "h2d_fixed_ns" : "d2h_fixed_ns", small_ns - small_b * ns_per_byte);
    const char *dir = h2d ? "H2D" : "D2H";
    set(f, "copy", h2d ? "h2d_pinned_gbps" : "d2h_pinned_gbps", h2d ? &p->h2d_pinned_gbps : &p->d2h_pinned_gbps,
        rate, "measured: pinned %s copies of 4 MiB (%.1f us) and 256 MiB (%.2f GB/s), event-timed, on one line: "
        "set-up + bytes / rate", dir, small_ns / 1e3, large_b / large_ns);
    set(f, "copy", h2d ? "h2d_fixed_ns" : "d2h_fixed_ns", h2d ? &p->h2d_fixed_ns : &p->d2h_fixed_ns, fixed,
        "measured: the intercept of the pinned %s line (see %s)", dir, h2d ? "h2d_pinned_gbps" : "d2h_pinned_gbps");
}

/* ---- the host-device round trips (CAL_ROUND_TRIP_FIGURES) ------------------------------------ */

/* How long after a piece of work ends a poll of cudaEventQuery returns success, at the
 * median over ends spread evenly over one pending query (the calibration's poll rounds).
 * The simulator's query pays the cheaper of done (query_ns) and pending
 * (query_pending_ns), looks, pays the rest of the answer it got, and looks again
 * (sim/event_calls.c). With done >= pending, an end u into a query is seen at its first
 * look: the lag is done - u, median done - pending / 2. With done < pending, an end before
 * the first look (u < done) is seen there, lag done - u; a later one at the second look,
 * lag pending - u: the lag is uniform on [0, done) and on [0, pending - done), each with
 * its share, and its median follows. */
static double poll_lag_ns(double done, double pending) {
    if (pending <= 0) return done;
    if (done >= pending) return done - pending / 2;
    double a = fmin(done, pending - done);
    return a >= pending / 4 ? pending / 4 : pending / 2 - a;
}

/* Queries, submission, wake-up, host functions, graph launches and instantiation, from the
 * round-trip figures; launch_ns must be fitted already. The copy fits subtract
 * submit_latency_ns and sync_wake_ns, so this runs before them. */
static void fit_round_trips(const cal_device *dev, cal_fit *f, const double *fig) {
    sim_profile *p = &f->profile;
    /* cudaEventQuery charges query_ns when it finds its event complete and
     * query_pending_ns when not; cudaStreamQuery stream_query_ns (sim/event_calls.c,
     * sim/stream_calls.c). */
    double qe = fig[CAL_event_query_done] * 1e3, qp = fig[CAL_event_query_pending] * 1e3,
           qs = fig[CAL_stream_query_idle] * 1e3;
    const char *how = "measured: %d calls each of cudaEventQuery on a completed event (%.3f us each) and on a pending "
                      "one (%.3f us), and of cudaStreamQuery on an idle stream (%.3f us), host time: %s";
    set(f, "host", "query_ns", &p->query_ns, qe, how, CAL_CALLS, qe / 1e3, qp / 1e3, qs / 1e3,
        "cudaEventQuery that finds its event complete (and cudaEventElapsedTime)");
    set(f, "host", "query_pending_ns", &p->query_pending_ns, qp, how, CAL_CALLS, qe / 1e3, qp / 1e3, qs / 1e3,
        "cudaEventQuery that finds its event not yet reached");
    set(f, "host", "stream_query_ns", &p->stream_query_ns, qs, how, CAL_CALLS, qe / 1e3, qp / 1e3, qs / 1e3,
        "cudaStreamQuery, whatever it answers (measured on an idle stream)");
    /* A round into an idle stream: record a timing event (event_record_ns on the host),
     * launch the kernel (launch_ns), record another. Each becomes visible to the device
     * submit_latency_ns after its call returns (visible_ns in sim/kernels.c and
     * sim/event_calls.c), so the start event is stamped at R + S, the kernel starts at
     * R + L + S and ends K later, and the end event is stamped then: end - start = L + K.
     * A poll returns some time after the end (poll_lag_ns: the query in flight when it
     * came, and the cost of the one that saw it); the probe spreads the rounds' phases
     * over one pending query, so the median round's host time is R + L + S + K + lag, and
     * poll_return (host time - (end - start) - R) = submit_latency_ns + lag. On a GPU, the
     * time for the completion to reach the host's view is carried here too: the
     * simulator's poll sees it at once. */
    double poll = fig[CAL_poll_return] * 1e3;
    double submit = at_least_zero(f, "submit_latency_ns", poll - poll_lag_ns(qe, qp));
    set(f, "host", "submit_latency_ns", &p->submit_latency_ns, submit,
        "measured: %d rounds of (record an event, launch a one-block %.0f us kernel into an idle stream, record an "
        "event, poll cudaEventQuery on it until it succeeds) took %.3f us each beyond the device time between the "
        "events and one event record; less the poll's median lag behind the end (%.3f us, from query_ns and "
        "query_pending_ns): the work's way from a call's return to the device", CAL_ROUNDS, CAL_ROUND_KERNEL_NS / 1e3, poll / 1e3,
        poll_lag_ns(qe, qp) / 1e3);
    /* The same round with cudaStreamSynchronize: the host wakes sync_wake_ns after the end
     * (sim/core/scheduler.c, host_wait; sync_call_ns is paid while the kernel runs), so
     * sync_return = submit_latency_ns + sync_wake_ns. */
    double sync = fig[CAL_sync_return] * 1e3;
    set(f, "host", "sync_wake_ns", &p->sync_wake_ns, at_least_zero(f, "sync_wake_ns", sync - submit),
        "measured: %d rounds of (record an event, launch a one-block %.0f us kernel into an idle stream, record an "
        "event, cudaStreamSynchronize) took %.3f us each beyond the device time between the events and one event "
        "record; less submit_latency_ns (from the polled rounds): the host's wake-up after the work's end",
        CAL_ROUNDS, CAL_ROUND_KERNEL_NS / 1e3, sync / 1e3);
    /* cudaLaunchHostFunc charges host_func_call_ns. The function starts host_fn_latency_ns
     * after the work before it completes (scheduler.c, start of SIM_OP_HOST_FN); an empty
     * one ends there, so the events around it are host_fn_latency_ns apart. */
    set(f, "host", "host_func_call_ns", &p->host_func_call_ns, fig[CAL_host_fn_call] * 1e3,
        "measured: %d cudaLaunchHostFunc calls of an empty function, %.3f us each (host time)", CAL_HOST_FN_CALLS,
        fig[CAL_host_fn_call]);
    set(f, "host", "host_fn_latency_ns", &p->host_fn_latency_ns,
        at_least_zero(f, "host_fn_latency_ns", fig[CAL_host_fn_gap] * 1e3),
        "measured: a one-block kernel, an event, an empty host function, an event and a kernel on one stream held "
        "back by a spin kernel: %.2f us of device time between the events (the mean of %d)", fig[CAL_host_fn_gap],
        CAL_HOST_FN_SAMPLES);
    /* cudaGraphLaunch charges graph_launch_ns; cudaGraphInstantiate api_min_ns + n *
     * graph_instantiate_ns_per_node, cudaGraphExecDestroy and cudaGraphDestroy api_min_ns
     * each, and the first launch nothing more than the next (sim/graph.c, graph_launch.c):
     * the graph's life beyond its launches is 3 * api_min_ns + n * per node. */
    set(f, "host", "graph_launch_ns", &p->graph_launch_ns, fig[CAL_graph_launch] * 1e3,
        "measured: %d cudaGraphLaunch calls of a one-node graph, %.3f us each (host time)", CAL_CALLS,
        fig[CAL_graph_launch]);
    double life = fig[CAL_graph_instantiate] * 1e3, nodes = CAL_CHAIN_SM_MULTIPLE * dev->sm_count;
    set(f, "host", "graph_instantiate_ns_per_node", &p->graph_instantiate_ns_per_node,
        at_least_zero(f, "graph_instantiate_ns_per_node", (life - 3 * p->api_min_ns) / nodes),
        "measured: a graph of %.0f kernel nodes cost the host %.1f us over its life (cudaGraphInstantiate, the "
        "first cudaGraphLaunch beyond the second, cudaGraphExecDestroy and cudaGraphDestroy), charged at "
        "instantiation per node", nodes, life / 1e3);
}

/* Mean fractional part of (s mod classes) * golden ratio over the SMs s: the mean share of
 * block_overhead_spread_ns of a block on each SM in turn (sim/core/compute.c,
 * sim_compute_init). */
static double mean_class_fraction(const sim_profile *p) {
    int sms = (int)p->sm_count, n = (int)(p->sm_classes < p->sm_count ? p->sm_classes : p->sm_count);
    if (sms < 1 || n < 1) return 0;
    double sum = 0;
    for (int s = 0; s < sms; s++) sum += fmod((double)(s % n) * 0.6180339887498949, 1.0);
    return sum / sms;
}

/* The device time of an empty one-block spin kernel's block in the chain probes: its SM's
 * turnaround (block_overhead_ns and the SM class's share of block_overhead_spread_ns; a
 * chain puts two on every SM, so the mean over the SMs) and its 4 bytes at one SM's share
 * of dram_gbps (sim/kernels.c, sim_kernel_block_ns). The block values must be fitted
 * already. */
static double empty_block_ns(const sim_profile *p) {
    return p->block_overhead_ns + p->block_overhead_spread_ns * mean_class_fraction(p) +
           4.0 * p->sm_count / p->dram_gbps;
}

/* A kernel node pays graph_kernel_overhead_ns on the device (sim/graph_launch.c) and then
 * runs its block: graph_kernel_overhead_ns = graph_node less an empty block. */
static void fit_graph_nodes(cal_fit *f, const double *fig) {
    sim_profile *p = &f->profile;
    double node = fig[CAL_graph_node] * 1e3;
    double block = empty_block_ns(p);
    set(f, "compute", "graph_kernel_overhead_ns", &p->graph_kernel_overhead_ns,
        at_least_zero(f, "graph_kernel_overhead_ns", node - block),
        "measured: a graph of empty one-block kernels in a chain, %d per SM, took %.3f us a node (device time); "
        "less an empty block's turnaround as fitted (%.0f ns)", CAL_CHAIN_SM_MULTIPLE, node / 1e3, block);
}

/* A kernel queued behind another of its stream pays kernel_queued_overhead_ns before its
 * block, one alone kernel_overhead_ns (sim/core/compute.c). The chain of n direct launches
 * behind a gate and an event record: the first pays kernel_overhead_ns, the n - 1 after it
 * are queued, and each runs an empty block (empty_block_ns), so
 * kernel_queued_overhead_ns = (n kernel_chain - kernel_overhead_ns - n block) / (n - 1).
 * kernel_overhead_ns and the block values must be fitted already. */
static void fit_kernel_chain(cal_fit *f, const double *fig) {
    sim_profile *p = &f->profile;
    double chain = fig[CAL_kernel_chain] * 1e3;
    double n = CAL_CHAIN_SM_MULTIPLE * p->sm_count;
    double block = empty_block_ns(p);
    double queued = n > 1 ? (n * chain - p->kernel_overhead_ns - n * block) / (n - 1) : chain - block;
    set(f, "compute", "kernel_queued_overhead_ns", &p->kernel_queued_overhead_ns,
        at_least_zero(f, "kernel_queued_overhead_ns", queued),
        "measured: empty one-block kernels launched back to back into one stream behind a gate, %d per SM, took "
        "%.3f us each (device time); the first at kernel_overhead_ns, and each an empty block's turnaround as "
        "fitted (%.0f ns): a kernel queued behind another of its stream starts this long after it",
        CAL_CHAIN_SM_MULTIPLE, chain / 1e3, block);
}

/* A replayed one-node graph with a cudaStreamSynchronize after each launch: the round is
 * the launch's call (graph_launch_ns), the work's way to the device
 * (graph_submit_latency_ns), the node (graph_kernel_overhead_ns and an empty block) and the
 * host's wake-up (sync_wake_ns), so graph_submit_latency_ns is the round less the rest. On
 * lent H200s it came out 0.8-1.0 us under submit_latency_ns: a graph's launch hands the
 * device its work sooner after the call returns than a kernel's. The node and wake values
 * must be fitted already. */
static void fit_graph_submit(cal_fit *f, const double *fig) {
    sim_profile *p = &f->profile;
    double round = fig[CAL_graph_sync_loop] * 1e3;
    double rest = p->graph_launch_ns + p->graph_kernel_overhead_ns + empty_block_ns(p) + p->sync_wake_ns;
    set(f, "host", "graph_submit_latency_ns", &p->graph_submit_latency_ns,
        at_least_zero(f, "graph_submit_latency_ns", round - rest),
        "measured: %d rounds of cudaGraphLaunch of a one-node graph and cudaStreamSynchronize took %.3f us each "
        "(host time); less the launch's call, the node's device time and the host's wake-up as fitted (%.0f ns): "
        "the work's way from a graph launch's return to the device",
        CAL_ROUNDS, round / 1e3, rest);
}

void cal_fit_profile(const cal_device *dev, const double *fig, const sim_profile *base, cal_fit *out) {
    memset(out, 0, sizeof(*out));
    out->profile = *base;
    sim_profile *p = &out->profile;
    fit_device(dev, out);

    /* ---- host calls (the copy fits below subtract them) ---- */
    /* cudaMemcpyAsync returns after memcpy_call_ns + memcpy_call_ns_per_mib * MiB. */
    double call_s = fig[CAL_memcpy_return_small] * 1e3, call_l = fig[CAL_memcpy_return_large] * 1e3;
    double call_ns, call_per_mib;
    line_fit(out, "cudaMemcpyAsync's return", CAL_CALL_SMALL_MIB, CAL_LARGE_MIB, call_s, call_l, false, &call_ns,
             &call_per_mib);
    set(out, "host", "memcpy_call_ns_per_mib", &p->memcpy_call_ns_per_mib, call_per_mib,
        "measured: a pinned cudaMemcpyAsync returned in %.2f us (1 MiB) and %.2f us (256 MiB), the device idle",
        call_s / 1e3, call_l / 1e3);
    set(out, "host", "memcpy_call_ns", &p->memcpy_call_ns, call_ns,
        "measured: the intercept of the cudaMemcpyAsync return times (see memcpy_call_ns_per_mib)");
    set(out, "host", "launch_ns", &p->launch_ns, fig[CAL_launch] * 1e3,
        "measured: %d launches of an empty kernel into a non-blocking stream, %.2f us each (host time)", CAL_CALLS,
        fig[CAL_launch]);
    set(out, "host", "launch_blocking_extra_ns", &p->launch_blocking_extra_ns,
        at_least_zero(out, "launch_blocking_extra_ns", (fig[CAL_launch_blocking] - fig[CAL_launch]) * 1e3),
        "measured: launches into a blocking stream took %.2f us each, against %.2f us into a non-blocking one",
        fig[CAL_launch_blocking], fig[CAL_launch]);
    set(out, "host", "event_record_ns", &p->event_record_ns, fig[CAL_event_record] * 1e3,
        "measured: %d cudaEventRecord calls, %.3f us each (host time)", CAL_CALLS, fig[CAL_event_record]);
    set(out, "host", "event_record_no_timing_ns", &p->event_record_no_timing_ns,
        fig[CAL_event_record_no_timing] * 1e3,
        "measured: %d cudaEventRecord calls of a cudaEventDisableTiming event, %.3f us each", CAL_CALLS,
        fig[CAL_event_record_no_timing]);
    set(out, "host", "sync_call_ns", &p->sync_call_ns, fig[CAL_sync_idle] * 1e3,
        "measured: %d cudaStreamSynchronize calls of an idle stream, %.3f us each", CAL_CALLS, fig[CAL_sync_idle]);

    /* cudaMallocHost, cudaHostRegister, cudaHostUnregister, cudaFreeHost: a line through 1 and
     * 256 MiB (the small size shows a call's fixed cost, which a lab that pins a batch at a time
     * pays). */
    struct {
        const char *what, *key_ns, *key_mib;
        double *ns, *per_mib;
        cal_figure_id s, l;
    } lines[] = {
        {"cudaMallocHost", "malloc_host_ns", "malloc_host_ns_per_mib", &p->malloc_host_ns, &p->malloc_host_ns_per_mib,
         CAL_malloc_host_small, CAL_malloc_host_large},
        {"cudaHostRegister", "host_register_ns", "host_register_ns_per_mib", &p->host_register_ns,
         &p->host_register_ns_per_mib, CAL_host_register_small, CAL_host_register_large},
        {"cudaHostUnregister", "host_unregister_ns", "host_unregister_ns_per_mib", &p->host_unregister_ns,
         &p->host_unregister_ns_per_mib, CAL_host_unregister_small, CAL_host_unregister_large},
        {"cudaFreeHost", "free_host_ns", "free_host_ns_per_mib", &p->free_host_ns, &p->free_host_ns_per_mib,
         CAL_free_host_small, CAL_free_host_large},
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        double s = fig[lines[i].s] * 1e6, l = fig[lines[i].l] * 1e6;
        double fixed, per_mib;
        line_fit(out, lines[i].what, CAL_HOSTMEM_SMALL_MIB, CAL_HOSTMEM_LARGE_MIB, s, l, false, &fixed, &per_mib);
        set(out, "host", lines[i].key_mib, lines[i].per_mib, per_mib,
            "measured: %s of %d MiB took %.3f ms and of %d MiB %.2f ms (a line through both)", lines[i].what,
            CAL_HOSTMEM_SMALL_MIB, s / 1e6, CAL_HOSTMEM_LARGE_MIB, l / 1e6);
        set(out, "host", lines[i].key_ns, lines[i].ns, fixed, "measured: the intercept of the %s line (see %s)",
            lines[i].what, lines[i].key_mib);
    }
    /* cudaMalloc and cudaFree, 8 KiB to 64 MiB on an idle device. */
    fit_device_memory(out, fig, true);
    fit_device_memory(out, fig, false);
    /* The device's wake-up after an idle. */
    fit_wake(out, fig);

    /* ---- round trips (the copy fits below subtract submission and wake-up) ---- */
    fit_round_trips(dev, out, fig);

    /* ---- copies ---- */
    fit_pinned(out, fig, true);
    fit_pinned(out, fig, false);
    /* Pageable copies: a curve per direction (the call costs above are subtracted). */
    fit_pageable(out, fig, true);
    fit_pageable(out, fig, false);
    /* The host's own memcpy. */
    fit_host_copy(out, fig);
    fit_host_copy_cold(out, fig);
    /* Both directions at once: the total rate that makes the copy-engine model give the
     * measured time. */
    {
        double bytes = CAL_LARGE_MIB * CAL_MIB;
        double t = 2 * bytes / fig[CAL_bidir];
        double r1 = p->h2d_pinned_gbps, r2 = p->d2h_pinned_gbps;
        double f1 = p->h2d_fixed_ns, f2 = p->d2h_fixed_ns;
        double total;
        double unlimited = cal_bidir_model_ns(bytes, f1, f2, r1, r2, r1 + r2);
        if (t <= unlimited) {
            total = r1 + r2;
            if (t < unlimited * 0.9)
                note(out, "both directions at once (%.1f GB/s in all) ran faster than each direction alone allows "
                          "(%.1f GB/s): the model cannot express that", fig[CAL_bidir], 2 * bytes / unlimited);
        } else {
            double lo = 1e-3, hi = r1 + r2;
            for (int i = 0; i < 100; i++) {
                double mid = (lo + hi) / 2;
                if (cal_bidir_model_ns(bytes, f1, f2, r1, r2, mid) > t)
                    lo = mid;
                else
                    hi = mid;
            }
            total = (lo + hi) / 2;
        }
        set(out, "copy", "bidir_total_gbps", &p->bidir_total_gbps, total,
            "measured: pinned H2D and D2H of 256 MiB started together took %.3f ms (%.2f GB/s in all); the rate "
            "they share that gives that time", t / 1e6, fig[CAL_bidir]);
    }

    /* ---- kernels ---- */
    /* The spin probe: W full waves of D-ns blocks take kernel_overhead_ns + W * (D + the
     * block's memory term + the slowest SM class's turnaround). */
    {
        double res = cal_spin_residency(dev);
        double extra = res * 4.0 * p->sm_count / p->dram_gbps; /* kernels_spin_cost's 4 bytes */
        double t1 = fig[CAL_wave_one] * 1e3, tw = fig[CAL_wave_long] * 1e3;
        double turnaround = (tw - t1) / (CAL_WAVES_LONG - 1) - CAL_WAVE_NS - extra;
        double overhead = t1 - CAL_WAVE_NS - extra - turnaround;
        double spread = p->block_overhead_spread_ns * slowest_class_fraction(p);
        set(out, "compute", "block_overhead_ns", &p->block_overhead_ns,
            at_least_zero(out, "block_overhead_ns", turnaround - spread),
            "measured: a spin kernel of 10 us blocks took %.2f us for one wave and %.2f us for %d; per wave %.0f ns "
            "more than the blocks, less the SM classes' spread (block_overhead_spread_ns)", t1 / 1e3, tw / 1e3,
            CAL_WAVES_LONG, turnaround);
        set(out, "compute", "kernel_overhead_ns", &p->kernel_overhead_ns,
            at_least_zero(out, "kernel_overhead_ns", overhead),
            "measured: the spin kernel's single wave (%.2f us) less its 10 us blocks and their turnaround: the "
            "kernel's fixed device time", t1 / 1e3);
    }
    /* The process kernel in full waves: each iteration adds residency * 256 IMADs per SM. */
    {
        double res = cal_process_residency(dev);
        double d_ns = (fig[CAL_process_hi] - fig[CAL_process_lo]) * 1e3;
        double rate = CAL_PROCESS_WAVES * res * KERNELS_PROCESS_THREADS *
                      (double)(CAL_PROCESS_ITERS_HI - CAL_PROCESS_ITERS_LO) / d_ns;
        set(out, "compute", "sm_int_ops_per_ns", &p->sm_int_ops_per_ns, rate,
            "measured: the process kernel in %d full waves (%g blocks per SM) took %.1f us at %d iterations and "
            "%.1f us at %d: integer multiply-adds per ns per SM", CAL_PROCESS_WAVES, res, fig[CAL_process_lo],
            CAL_PROCESS_ITERS_LO, fig[CAL_process_hi], CAL_PROCESS_ITERS_HI);
        double per_iter = (fig[CAL_chain_hi] - fig[CAL_chain_lo]) * 1e3 / (CAL_CHAIN_ITERS_HI - CAL_CHAIN_ITERS_LO);
        double throughput = KERNELS_PROCESS_THREADS / rate;
        if (per_iter < throughput * 0.95)
            note(out, "one block per SM ran %.3f ns an iteration, faster than the full-wave rate allows (%.3f): the "
                      "model makes it %.3f", per_iter, throughput, throughput);
        set(out, "compute", "op_latency_ns", &p->op_latency_ns, per_iter,
            "measured: the process kernel with one block per SM took %.1f us at %d iterations and %.1f us at %d: "
            "%.3f ns a dependent iteration", fig[CAL_chain_lo], CAL_CHAIN_ITERS_LO, fig[CAL_chain_hi],
            CAL_CHAIN_ITERS_HI, per_iter);
    }
    fit_graph_nodes(out, fig);
    fit_kernel_chain(out, fig);
    fit_graph_submit(out, fig);
}
