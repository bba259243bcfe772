/* grading/build/grade_devices.h: which backend each lab is graded on. A lab may need more than
 * one GPU (lab 09: "devices": 2 in labs/catalog.json, its spec's `devices`); when the
 * grader is asked for the real GPU (--backend gpu, or auto on a GPU machine) on a machine
 * with fewer GPUs than that, the lab is graded on the simulator instead (which models
 * two linked H200s), and every report says so per lab:
 *
 *   lab 09_two_gpus graded on the simulator: this machine has 1 GPU, the lab needs 2
 *
 * The GPU count is the machine's /dev/nvidiaN device files (1 when only /dev/nvidiactl is
 * there), fewer when
 * CUDA_VISIBLE_DEVICES names fewer; STREAMLAB_GRADE_GPUS=N overrides it (tests, and an
 * instructor who wants a lab kept off a GPU the grader would otherwise take). */
#ifndef STREAMLAB_GRADE_DEVICES_H
#define STREAMLAB_GRADE_DEVICES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The GPUs the grader may use: STREAMLAB_GRADE_GPUS when set (a whole number from 0), else
 * the /dev/nvidiaN files, no more than CUDA_VISIBLE_DEVICES lists when it is set. */
int grade_gpu_count(void);

/* The GPUs lab `lab` needs, from a catalog (labs/catalog.json's text): its entry's
 * "devices", 1 when the entry has none. Returns the count (>= 1), or -1 with the problem
 * in err (not JSON, no such lab, "devices" not a whole number from 1 to 16). */
int grade_catalog_devices(const char *catalog_json, const char *lab, char *err, size_t err_len);

/* The backend to grade a lab on, "gpu" or "sim": `want` ("gpu" or "sim") unless it is
 * "gpu" and the machine has fewer GPUs (`have`) than the lab needs (`need`): then "sim",
 * and `why` gets the sentence every report shows ("lab 09_two_gpus graded on the
 * simulator: this machine has 1 GPU, the lab needs 2"); otherwise why is "". */
const char *grade_backend_for_lab(const char *want, const char *lab, int need, int have, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
