/* sim/calibrate/fit.h: from the probes' figures to profile values. Each fit inverts what
 * the simulator does with those values (the formulas are in fit.c, next to each), so that
 * the simulator given the fitted profile reproduces the figures; values the probes do not
 * determine stay as the base profile has them. //sim:calibrate_roundtrip_test checks the
 * inversion: figures measured on the simulator under a built-in profile give that
 * profile's values back. */
#ifndef STREAMLAB_SIM_CALIBRATE_FIT_H
#define STREAMLAB_SIM_CALIBRATE_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/calibrate/probes.h"
#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which profile values the fit set, and how (a sentence for the value's "source"). */
typedef struct cal_fitted {
    const char *section, *key;
    char how[400];
} cal_fitted;

#define CAL_MAX_FITTED 64
#define CAL_MAX_NOTES 16

typedef struct cal_fit {
    sim_profile profile; /* the base profile with the fitted values */
    cal_fitted fitted[CAL_MAX_FITTED];
    int n_fitted;
    /* What the model could not take as measured (a value clamped, two figures that one
     * value has to serve): said in the report and the profile's source. */
    char notes[CAL_MAX_NOTES][300];
    int n_notes;
} cal_fit;

/* Fits figures (cal_measure's) measured on dev over base. */
void cal_fit_profile(const cal_device *dev, const double *figures, const sim_profile *base, cal_fit *out);

/* True when the fit set section.key. */
const cal_fitted *cal_fit_find(const cal_fit *fit, const char *key);

/* The model of two copies in opposite directions started together (sim/core/copy_engine.c):
 * set-up times f1, f2 (ns), each alone at r1, r2 (GB/s), both moving bytes sharing at most
 * total (GB/s). Returns when the later one ends, in ns. */
double cal_bidir_model_ns(double bytes, double f1, double f2, double r1, double r2, double total);

#ifdef __cplusplus
}
#endif

#endif
