/* labs/harness/work.h: the work a run really did on the device, and whether it is the work
 * the lab requires.
 *
 * A program can be correct and fast without doing the lab's work: it computes every result
 * on the host with its own code, copies each one to the device and back into its output
 * (the only way the referee lets a result reach an output), and launches no kernel, or
 * kernels over a sliver of the data, or full-size kernels over memory nothing reads. Its
 * figures then measure copies, not the lab. So the harness counts, for every run, what the
 * device did, from the ops the recorder sees (the student's and the baseline's alike):
 *
 *   the bytes copied host to device and device to host;
 *   the elements the process kernels went over, and how many ran (a CUDA graph's kernels
 *   count at each replay: on the simulator, and wherever the trace sees a graph's nodes);
 *   the elements the checksum kernels read;
 *   the results: the bytes of the outputs that, when run() returned, had come from memory
 *   a kernel of that run computed, through any device-to-device and device-to-host copies.
 *
 * The last follows every byte: memory a process or checksum kernel writes (what it
 * computed from its input) is marked with the run, a copy moves the marks of its source to
 * its destination, and anything else that writes (a copy from the host, a memset, a spin
 * kernel's marks, which are values the host chose, the harness's fresh inputs and poisoned
 * outputs) clears them. A result computed on the host and uploaded is therefore never a
 * kernel's, however many kernels run beside it.
 *
 * What a lab requires is what its own baseline did in the same lab run (the least over
 * its timed runs), kind by kind (spec.h, lab_work_need: LAB_WORK_DEFAULT and what the spec
 * adds). A run of yours that does less of a required kind keeps its correctness and its
 * race-freedom, and its speed does not count; the verdict says, in words, what was
 * missing. */
#ifndef STREAMLAB_LAB_WORK_H
#define STREAMLAB_LAB_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/harness/spec.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one run did on the device. */
typedef struct lab_work_tally {
    uint64_t amount[LAB_WORK_KINDS];
    /* Kernel ops whose memory the trace does not know: a CUDA graph launched on a GPU, which
     * the trace records as one op (trace/gpu/interpose.c). Its kernels and what they wrote
     * cannot be counted. */
    uint64_t opaque;
    /* The run wrote device memory in more pieces than the harness follows
     * (LAB_WORK_MAX_PIECES): its results cannot be told from the host's. */
    bool lost;
} lab_work_tally;

/* How many separately marked pieces of memory the harness follows at once. */
#define LAB_WORK_MAX_PIECES (1u << 18)

/* The counter, a recorder sink (recorder.h) that sees every op of every run. */
typedef struct lab_work lab_work;

lab_work *lab_work_create(void);
void lab_work_destroy(lab_work *w);
/* Installs or removes it as a sink of the recorder. Returns 0, or -1 (no room). */
int lab_work_install(lab_work *w);
void lab_work_uninstall(lab_work *w);
/* What the sink does with each op, in program order (for the tests). */
void lab_work_add_op(lab_work *w, const trace_op *op);
/* The harness read `bytes` of results at addr once run `run` returned: the bytes that came
 * from memory a kernel of that run computed count as its results. */
void lab_work_results_read(lab_work *w, int32_t run, const void *addr, uint64_t bytes);
/* Run `run`'s tally (zeros for a run it has not seen). */
lab_work_tally lab_work_of_run(const lab_work *w, int32_t run);
/* The least of each kind over runs[0..n) (a tally opaque or lost when any of them is). */
lab_work_tally lab_work_least(const lab_work *w, const int32_t *runs, int n);

/* Whether yours did the work the lab requires. */
typedef struct lab_work_verdict {
    bool checked;                      /* yours was judged (false: nothing to compare) */
    bool ok;                           /* every kind judged is at least what is required */
    unsigned judged;                   /* the kinds judged, as LAB_WORK_BIT()s */
    unsigned missing;                  /* the kinds short of what is required */
    uint64_t required[LAB_WORK_KINDS]; /* the least the baseline's timed runs did */
    uint64_t done[LAB_WORK_KINDS];     /* the least yours did */
    /* What was missing, in words for the student ("your run launched no process kernel
     * ..."); or why some kinds could not be judged. "" when ok and every kind was judged. */
    char why[2048];
} lab_work_verdict;

/* Judges yours (done: the least over your timed runs) against what the lab requires
 * (required: the least over the baseline's timed runs; need: the kinds the lab requires,
 * LAB_WORK_DEFAULT | spec->work.also). A kind the baseline did none of is not required.
 * item and items name one batch and several in the words ("batch", "batches"); batches is
 * how many a run has. */
void lab_work_judge(const lab_work_tally *required, const lab_work_tally *done, unsigned need, const char *item,
                    const char *items, int batches, lab_work_verdict *out);

/* A kind's key in --json ("h2d_bytes", "process_elements", ...). */
const char *lab_work_kind_key(lab_work_kind kind);

#ifdef __cplusplus
}
#endif

#endif
