/* labs/harness/steps.h: where a student stands on a lab's path, and the hint for the
 * next step.
 *
 * A spec lists its TODOs as steps (spec.h, lab_step), each with a test of whether the
 * student's code has done it, judged from what the harness saw of their last timed run
 * (lab_findings). The first step not done is where the student stands: the report names
 * it, with what they should expect to see ("each task has its own stream, but stream 0
 * still serialises them: TODO 2"), and --hint gives its hints one tier at a time: a
 * question, then the idea with where to read more, then the shape of the code.
 *
 * Which tier a student has seen is kept per lab and step in a small JSON file,
 * $XDG_STATE_HOME/streamlab/hints.json (~/.local/state/streamlab/hints.json without it),
 * so each --hint shows one more. */
#ifndef STREAMLAB_LAB_STEPS_H
#define STREAMLAB_LAB_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "labs/harness/result.h"
#include "labs/harness/spec.h"
#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills f from the result and the timeline of the student's last timed run, which
 * run() returned from at returned_ns. */
void lab_findings_compute(lab_findings *f, const lab_result *r, trace_timeline *tl, int32_t run, uint64_t returned_ns);

/* Once the waits' lines are known (the runner looks them up): merges the waits of one
 * line (a loop the compiler unrolled has a call site per copy), names a wait of several
 * streams "cudaStreamSynchronize(one of N streams)", and sorts them again, the costliest
 * on the critical path first. */
void lab_findings_merge_lines(lab_findings *f);

/* The index of the first step of spec not done, or -1 when every step is done (or the spec
 * has none). */
int lab_steps_first_open(const lab_spec *spec, const lab_findings *f);

/* What the findings say holds the student at the first open step (the step's why, in
 * their terms), into buf; 0 when there is nothing to say or no step is open. */
int lab_steps_why(const lab_spec *spec, const lab_findings *f, char *buf, size_t len);

/* When every step is done and the target is missed: what costs the time (the costliest
 * wait inside the loop, a poll among them, when it is a call that allocates or frees
 * memory, in any lab: to allocate once, in setup(); else the spec's beyond, else the
 * costliest wait, with what to do about it, else what stream 0 did), into buf; 0 when there
 * is nothing to say, a step is open or the target is reached. */
int lab_steps_beyond(const lab_spec *spec, const lab_findings *f, char *buf, size_t len);

/* The report's "next" paragraph: the step the student stands at and what to do, a line
 * each, into a stream that wraps them (wrap.h's lab_wrap_begin). Writes nothing when
 * every step is done. */
void lab_steps_print_next(const lab_spec *spec, const lab_findings *f, bool passed, FILE *out);

/* Where hints are remembered (see above); false when there is no home to keep them in. */
bool lab_hints_path(char *buf, size_t len);

/* --hint: prints the next tier of hints for the first open step of spec (the first tier
 * when the step differs from the one hinted last), remembering it in the file at path
 * (NULL: nothing remembered, always the first tier). A program that passed is given no
 * hint for a step it did another way (one not marked beyond_target). */
void lab_hints_print_next(const lab_spec *spec, const lab_findings *f, bool passed, const char *path, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
