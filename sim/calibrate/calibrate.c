/* sim/calibrate/calibrate.c: calibrates the simulator to the GPU it runs on.
 *
 *   calibrate --out FILE [--base NAME|FILE] [--name NAME] [--quick] [--reps N] [--sim PATH]
 *   calibrate --measure-only [--quick] [--reps N]
 *
 * Runs the probes (probes.h) on the device, fits the simulator's profile values to them
 * (fit.h), writes a complete profile file (the JSON format of sim/profiles/, described in
 * docs/calibration.md): measured values marked "measured": true with how they were
 * measured, the rest copied from the base profile and marked "measured": false. Then it
 * replays the same probes on the simulator with the new profile and prints every figure
 * measured and simulated side by side; a figure the simulator does not reproduce within
 * 10% is named and makes the exit status 1 (the profile is written all the same).
 *
 * A plain CUDA runtime program, built twice: //sim:calibrate against the CUDA runtime (a
 * real GPU), and //sim:calibrate_sim against the simulated one, where --profile=NAME|FILE
 * chooses the simulated device to calibrate (what //sim:calibrate_roundtrip_test does).
 * The GPU build replays on the simulator build (--sim, by default calibrate_sim next to
 * itself) as a second process; the simulator build replays in-process.
 *
 * Exit status: 0 written and reproduced; 1 written, but some figure not reproduced within
 * 10%; 2 bad usage or a bad base profile; 3 a CUDA call failed; 77 no CUDA device. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sim/calibrate/backend.h"
#include "sim/calibrate/fit.h"
#include "sim/calibrate/probes.h"
#include "sim/profile_choice.h"

#define TOLERANCE 0.10
/* The wake-up figures are differences of two host-timed rounds of about 20 us each, a few
 * us apart: within this many us of the measurement, the simulator reproduces one. */
#define WAKE_SLACK_US 2.0

static bool reproduced(int i, double measured, double simulated) {
    static const cal_figure_id wake[CAL_WAKE_IDLES] = CAL_WAKE_IDS;
    for (int k = 0; k < CAL_WAKE_IDLES; k++)
        if (i == (int)wake[k] && fabs(simulated - measured) <= WAKE_SLACK_US) return true;
    double d = measured != 0 ? (simulated - measured) / measured : (simulated == 0 ? 0 : INFINITY);
    return fabs(d) <= TOLERANCE;
}

enum { EXIT_MISMATCH = 1, EXIT_USAGE = 2, EXIT_CUDA = 3, EXIT_NO_DEVICE = 77 };

typedef struct options {
    const char *out, *base, *name, *profile, *sim;
    int reps;
    bool measure_only;
} options;

static void usage(FILE *f) {
    fprintf(f,
            "usage: calibrate --out FILE [options]   measure this GPU and write a profile for the simulator\n"
            "       calibrate --measure-only [options] print the probes' figures and stop\n"
            "\n"
            "  --out FILE           where to write the profile (JSON, docs/calibration.md)\n"
            "  --base NAME|FILE     profile whose figures the probes do not measure are copied\n"
            "                       (default: the built-in profile named like the device, else h200)\n"
            "  --name NAME          the profile's name (default: calibrated)\n"
            "  --quick              one repetition of each probe instead of five\n"
            "  --reps N             repetitions of each probe (the median is kept)\n"
            "  --sim PATH           the simulator build to replay on (GPU build; default: calibrate_sim\n"
            "                       next to this program)\n"
            "  --profile NAME|FILE  simulator build only: the simulated device to calibrate\n"
            "  --measure-only       print 'figure ID VALUE' lines and stop\n"
            "  -h, --help           this text\n");
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof(*o));
    o->reps = 5;
    o->name = "calibrated";
    enum { O_OUT = 256, O_BASE, O_NAME, O_QUICK, O_REPS, O_SIM, O_PROFILE, O_MEASURE };
    static const struct option longs[] = {
        {"out", required_argument, NULL, O_OUT},       {"base", required_argument, NULL, O_BASE},
        {"name", required_argument, NULL, O_NAME},     {"quick", no_argument, NULL, O_QUICK},
        {"reps", required_argument, NULL, O_REPS},     {"sim", required_argument, NULL, O_SIM},
        {"profile", required_argument, NULL, O_PROFILE}, {"measure-only", no_argument, NULL, O_MEASURE},
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        switch (c) {
        case O_OUT: o->out = optarg; break;
        case O_BASE: o->base = optarg; break;
        case O_NAME: o->name = optarg; break;
        case O_QUICK: o->reps = 1; break;
        case O_REPS: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 99) {
                fprintf(stderr, "calibrate: --reps=%s: want a whole number from 1 to 99\n", optarg);
                return EXIT_USAGE;
            }
            o->reps = (int)v;
            break;
        }
        case O_SIM: o->sim = optarg; break;
        case O_PROFILE: o->profile = optarg; break;
        case O_MEASURE: o->measure_only = true; break;
        case 'h': usage(stdout); exit(0);
        case ':': fprintf(stderr, "calibrate: %s needs a value\n", argv[optind - 1]); return EXIT_USAGE;
        default:
            fprintf(stderr, "calibrate: unknown option %s\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "calibrate: unexpected argument %s\n", argv[optind]);
        return EXIT_USAGE;
    }
    /* Under `bazel run` relative paths are the user's, from the folder the command was
     * typed in; a --base or --profile that names no file there is a built-in name. */
    static char out_buf[PATH_MAX], base_buf[PATH_MAX], profile_buf[PATH_MAX], sim_buf[PATH_MAX];
    if (o->out) o->out = cli_user_path(o->out, out_buf, sizeof(out_buf));
    if (o->sim) o->sim = cli_user_path(o->sim, sim_buf, sizeof(sim_buf));
    const char *p;
    if (o->base && access(p = cli_user_path(o->base, base_buf, sizeof(base_buf)), R_OK) == 0) o->base = p;
    if (o->profile && access(p = cli_user_path(o->profile, profile_buf, sizeof(profile_buf)), R_OK) == 0)
        o->profile = p;
    if (!o->out && !o->measure_only) {
        fprintf(stderr, "calibrate: say where to write the profile: --out FILE (or --measure-only)\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (o->name && (!*o->name || strlen(o->name) >= sizeof(((sim_profile *)0)->name))) {
        fprintf(stderr, "calibrate: --name must be 1 to %zu characters\n", sizeof(((sim_profile *)0)->name) - 1);
        return EXIT_USAGE;
    }
    return 0;
}

/* ---- the base profile --------------------------------------------------------------------- */

static char *read_text(const char *path, size_t *size, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap >= (16u << 20)) {
            free(buf);
            buf = NULL;
            snprintf(err, err_size, "%s is larger than 16 MiB, not a profile", path);
            break;
        }
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) free(buf);
        buf = nb;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *size = n;
    } else if (!err[0]) {
        snprintf(err, err_size, "out of memory reading %s", path);
    }
    return buf;
}

/* The built-in profile named like the device ("NVIDIA H100 80GB HBM3" -> h100). */
static const char *base_for(const char *device) {
    static const struct {
        const char *needle, *name;
    } k[] = {{"H200", "h200"}, {"H100", "h100"}, {"A100", "a100"}, {"L4", "l4"}};
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        if (strstr(device, k[i].needle)) return k[i].name;
    return "h200";
}

/* Loads the base profile's text and values. Returns NULL with err set. */
static char *load_base(const char *name_or_path, sim_profile *p, size_t *size, char *err, size_t err_size) {
    for (size_t i = 0; i < sim_profile_blob_count; i++) {
        if (strcmp(sim_profile_blobs[i].name, name_or_path)) continue;
        char *text = malloc(sim_profile_blobs[i].size + 1);
        if (!text) return NULL;
        memcpy(text, sim_profile_blobs[i].json, sim_profile_blobs[i].size);
        text[sim_profile_blobs[i].size] = '\0';
        *size = sim_profile_blobs[i].size;
        if (sim_profile_parse(text, *size, name_or_path, p, err, err_size)) {
            free(text);
            return NULL;
        }
        return text;
    }
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".json")) {
        int used = snprintf(err, err_size, "unknown base profile \"%s\": the built-in ones are", name_or_path);
        for (size_t i = 0; i < sim_profile_blob_count && used > 0 && (size_t)used < err_size; i++)
            used += snprintf(err + used, err_size - (size_t)used, " %s", sim_profile_blobs[i].name);
        if (used > 0 && (size_t)used < err_size) snprintf(err + used, err_size - (size_t)used, " (or give a file)");
        return NULL;
    }
    char *text = read_text(name_or_path, size, err, err_size);
    if (!text) return NULL;
    if (sim_profile_parse(text, *size, name_or_path, p, err, err_size)) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- writing the profile -------------------------------------------------------------------- */

/* Four significant digits: what the probes resolve, and a readable file. */
static double round4(double v) {
    if (v == 0 || !isfinite(v)) return v;
    double mag = pow(10, floor(log10(fabs(v))) - 3);
    return round(v / mag) * mag;
}

static void set_string(cJSON *obj, const char *key, const char *value) {
    cJSON *item = cJSON_CreateString(value);
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

static void set_bool(cJSON *obj, const char *key, bool value) {
    cJSON *item = cJSON_CreateBool(value);
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

/* The fitted curves (the pageable copies' into the copy section, the host's memcpy into the
 * host section), in place of the base's (if it has them). */
static void add_curves(cJSON *root, const cal_fit *fit) {
    for (size_t d = 0; d < SIM_PROFILE_CURVES; d++) {
        const sim_profile_curve_info *curve = &sim_profile_curves[d];
        const cal_fitted *f = cal_fit_find(fit, curve->key);
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, curve->section);
        if (!f || !sec) continue;
        const sim_pageable_curve *c = SIM_PROFILE_CURVE_CONST(&fit->profile, curve);
        cJSON *entry = cJSON_CreateObject(), *points = cJSON_AddArrayToObject(entry, "points");
        for (int i = 0; i < c->n; i++) {
            cJSON *pt = cJSON_CreateArray();
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(c->bytes[i]));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(round(round4(c->ns[i]))));
            cJSON_AddItemToArray(points, pt);
        }
        cJSON_AddStringToObject(entry, "source", f->how);
        cJSON_AddBoolToObject(entry, "measured", true);
        if (cJSON_GetObjectItemCaseSensitive(sec, curve->key))
            cJSON_ReplaceItemInObjectCaseSensitive(sec, curve->key, entry);
        else
            cJSON_AddItemToObject(sec, curve->key, entry);
    }
}

/* The profile file's text: the base's tree with the fitted values, or NULL with err set. */
static char *profile_text(const char *base_text, size_t base_size, const char *base_name, const cal_fit *fit,
                          const cal_device *dev, const options *o, char *err, size_t err_size) {
    cJSON *root = cJSON_ParseWithLength(base_text, base_size);
    if (!root) {
        snprintf(err, err_size, "the base profile %s is not valid JSON", base_name);
        return NULL;
    }
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof(when), "%Y-%m-%d", gmtime(&now));
    set_string(root, "name", o->name);
    char text[2048];
    snprintf(text, sizeof(text), "%s (calibrated %s)", dev->name, when);
    set_string(root, "device_name", text);
    int used = snprintf(text, sizeof(text),
                        "Calibrated by //sim:calibrate on %s%s on %s (%d repetitions of each probe, the median "
                        "kept). Values marked \"measured\": true were fitted to its probes (each source says how); "
                        "the rest are the base profile %s's, marked \"measured\": false.",
                        cal_backend_simulated() ? "a simulated " : "", dev->name, when, o->reps, base_name);
    for (int i = 0; i < fit->n_notes && used > 0 && (size_t)used < sizeof(text); i++)
        used += snprintf(text + used, sizeof(text) - (size_t)used, " Note: %s.", fit->notes[i]);
    set_string(root, "source", text);
    set_string(root, "base", base_name);
    static const char *const sections[] = {"device", "copy", "compute", "host"};
    for (size_t s = 0; s < 4; s++) {
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, sections[s]), *entry;
        cJSON_ArrayForEach(entry, sec) {
            if (sim_profile_curve_named(sections[s], entry->string)) continue; /* below */
            const cal_fitted *f = cal_fit_find(fit, entry->string);
            if (f && !strcmp(f->section, sections[s])) {
                double v = 0;
#define SIM_PROFILE_GET(section, key, integer, min, max) \
    if (!strcmp(#key, entry->string)) v = integer ? round(fit->profile.key) : round4(fit->profile.key);
                SIM_PROFILE_PARAMS(SIM_PROFILE_GET)
#undef SIM_PROFILE_GET
                cJSON_ReplaceItemInObjectCaseSensitive(entry, "value", cJSON_CreateNumber(v));
                set_string(entry, "source", f->how);
                set_bool(entry, "measured", true);
            } else {
                const cJSON *src = cJSON_GetObjectItemCaseSensitive(entry, "source");
                const cJSON *measured = cJSON_GetObjectItemCaseSensitive(entry, "measured");
                /* A base that is itself a calibration keeps its own marks. */
                if (!cJSON_IsTrue(measured)) {
                    char *old = cJSON_IsString(src) ? src->valuestring : "";
                    const char *prefix = "base profile ";
                    if (strncmp(old, prefix, strlen(prefix))) {
                        snprintf(text, sizeof(text), "base profile %s: %s", base_name, old);
                        set_string(entry, "source", text);
                    }
                    set_bool(entry, "measured", false);
                }
            }
        }
    }
    add_curves(root, fit);
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    sim_profile check;
    if (out && sim_profile_parse(out, strlen(out), o->out, &check, err, err_size)) {
        free(out);
        return NULL;
    }
    return out;
}

static int write_file(const char *path, const char *text, char *err, size_t err_size) {
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, err_size, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    bool ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path)) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* ---- replaying on the simulator ----------------------------------------------------------------- */

/* The simulator build next to this program. */
static void sibling_sim(char *out, size_t size) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        snprintf(out, size, "calibrate_sim");
        return;
    }
    self[n] = '\0';
    snprintf(out, size, "%s/calibrate_sim", dirname(self));
}

static void shell_quote(char *dst, size_t size, const char *s) {
    size_t n = 0;
    if (n + 1 < size) dst[n++] = '\'';
    for (; *s && n + 5 < size; s++) {
        if (*s == '\'') {
            memcpy(dst + n, "'\\''", 4);
            n += 4;
        } else {
            dst[n++] = *s;
        }
    }
    if (n + 1 < size) dst[n++] = '\'';
    dst[n] = '\0';
}

/* The figures of the probes on the simulator with the profile at path. */
static int replay(const options *o, const cal_device *dev, const char *path, double *sim, char *err, size_t err_size) {
    if (cal_backend_simulated()) {
        if (cal_backend_use_profile(path, err, err_size)) return -1;
        cal_device sdev;
        if (cal_read_device(&sdev, err, err_size)) return -1;
        (void)dev;
        return cal_measure(&sdev, 1, sim, NULL, err, err_size);
    }
    char exe[PATH_MAX], q_exe[PATH_MAX * 4 + 8], q_path[PATH_MAX * 4 + 8], cmd[PATH_MAX * 9 + 64];
    if (o->sim)
        snprintf(exe, sizeof(exe), "%s", o->sim);
    else
        sibling_sim(exe, sizeof(exe));
    if (access(exe, X_OK)) {
        snprintf(err, err_size, "no simulator build to replay the probes on at %s (build //sim:calibrate_sim, or "
                 "say where with --sim)", exe);
        return -1;
    }
    shell_quote(q_exe, sizeof(q_exe), exe);
    shell_quote(q_path, sizeof(q_path), path);
    snprintf(cmd, sizeof(cmd), "%s --measure-only --reps 1 --profile=%s", q_exe, q_path);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(err, err_size, "cannot run %s: %s", exe, strerror(errno));
        return -1;
    }
    bool seen[CAL_FIGURE_COUNT] = {false};
    char line[512];
    while (fgets(line, sizeof(line), p)) {
        char id[128];
        double v;
        if (sscanf(line, "figure %127s %lf", id, &v) != 2) continue;
        for (int i = 0; i < CAL_FIGURE_COUNT; i++)
            if (!strcmp(id, cal_figure_infos[i].id)) {
                sim[i] = v;
                seen[i] = true;
            }
    }
    int status = pclose(p);
    for (int i = 0; i < CAL_FIGURE_COUNT; i++)
        if (!seen[i]) {
            snprintf(err, err_size, "the simulator build (%s) gave no figure %s (exit status %d)", exe,
                     cal_figure_infos[i].id, status);
            return -1;
        }
    return 0;
}

/* ---- main ----------------------------------------------------------------------------------- */

static void print_device(const cal_device *d, FILE *f) {
    fprintf(f, "device: %s, %g SMs at %g MHz, compute capability %g.%g, %g copy engines\n", d->name, d->sm_count,
            d->clock_khz / 1e3, d->compute_major, d->compute_minor, d->async_engine_count);
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc;
    char err[16384] = "";
    if (o.profile && cal_backend_use_profile(o.profile, err, sizeof(err))) {
        fprintf(stderr, "calibrate: --profile=%s: %s\n", o.profile, err);
        return EXIT_USAGE;
    }
    cal_device dev;
    if (cal_read_device(&dev, err, sizeof(err))) {
        fprintf(stderr, "calibrate: %s\n", err);
        return EXIT_NO_DEVICE;
    }

    /* The base profile is checked before the probes run: a bad one fails at once. */
    const char *base_name = o.base ? o.base : base_for(dev.name);
    sim_profile base;
    size_t base_size = 0;
    char *base_text = NULL;
    if (!o.measure_only) {
        base_text = load_base(base_name, &base, &base_size, err, sizeof(err));
        if (!base_text) {
            fprintf(stderr, "calibrate: --base=%s: %s\n", base_name, err);
            return EXIT_USAGE;
        }
    }

    print_device(&dev, o.measure_only ? stdout : stderr);
    double measured[CAL_FIGURE_COUNT];
    if (cal_measure(&dev, o.reps, measured, stderr, err, sizeof(err))) {
        fprintf(stderr, "calibrate: %s\n", err);
        free(base_text);
        return EXIT_CUDA;
    }
    /* The figures first, so that a fit that fails still leaves them. */
    for (int i = 0; i < CAL_FIGURE_COUNT; i++) printf("figure %s %.9g\n", cal_figure_infos[i].id, measured[i]);
    if (o.measure_only) return 0;
    fflush(stdout);

    cal_fit fit;
    cal_fit_profile(&dev, measured, &base, &fit);
    char *text = profile_text(base_text, base_size, base_name, &fit, &dev, &o, err, sizeof(err));
    free(base_text);
    if (!text) {
        fprintf(stderr, "calibrate: the model cannot express what was measured: %s\n", err);
        return EXIT_MISMATCH;
    }
    if (write_file(o.out, text, err, sizeof(err))) {
        fprintf(stderr, "calibrate: %s\n", err);
        free(text);
        return EXIT_USAGE;
    }
    free(text);
    printf("calibrate: wrote %s: profile \"%s\" for %s, %d values measured, the rest from %s\n", o.out, o.name,
           dev.name, fit.n_fitted, base_name);
    for (int i = 0; i < fit.n_notes; i++) printf("calibrate: note: %s\n", fit.notes[i]);

    double sim[CAL_FIGURE_COUNT];
    if (replay(&o, &dev, o.out, sim, err, sizeof(err))) {
        fprintf(stderr, "calibrate: cannot replay the probes on the simulator: %s\n", err);
        return EXIT_MISMATCH;
    }
    printf("\n%s measured vs the simulator with %s\n\n", dev.name, o.out);
    printf("| figure | what | measured | simulated | deviation | |\n| --- | --- | --- | --- | --- | --- |\n");
    int bad = 0;
    for (int i = 0; i < CAL_FIGURE_COUNT; i++) {
        const cal_figure_info *f = &cal_figure_infos[i];
        double dev_frac = measured[i] != 0 ? (sim[i] - measured[i]) / measured[i] : (sim[i] == 0 ? 0 : INFINITY);
        bool ok = reproduced(i, measured[i], sim[i]);
        bad += !ok;
        printf("| %s | %s | %.4g %s | %.4g %s | %+.1f%% | %s%s |\n", f->id, f->what, measured[i], f->unit, sim[i],
               f->unit, 100 * dev_frac, ok ? "ok" : "NOT REPRODUCED", strcmp(f->kind, "model") ? "" : " (model)");
    }
    if (bad) {
        fprintf(stderr, "\ncalibrate: the simulator with %s does not reproduce %d figure%s within %.0f%%:\n", o.out, bad,
                bad == 1 ? "" : "s", 100 * TOLERANCE);
        for (int i = 0; i < CAL_FIGURE_COUNT; i++) {
            if (!reproduced(i, measured[i], sim[i]))
                fprintf(stderr, "  %s (%s): measured %.4g %s, simulated %.4g %s: the model cannot express it\n",
                        cal_figure_infos[i].id, cal_figure_infos[i].what, measured[i], cal_figure_infos[i].unit,
                        sim[i], cal_figure_infos[i].unit);
        }
        return EXIT_MISMATCH;
    }
    printf("\ncalibrate: every figure reproduced within %.0f%%\n", 100 * TOLERANCE);
    return 0;
}
