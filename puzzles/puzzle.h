/* puzzles/puzzle.h: what a puzzle is. A puzzle is a question about what streams do, two or
 * more variants of a small CUDA program that answer it, and a judge that reads the answer
 * off the variants' timelines: the answer a player is scored against comes from running
 * the programs (on the simulator, or on the GPU when there is one), never from a table.
 * `answer` is the choice the explanation is written for; a test checks that the simulator's
 * runs give it, and docs/measured.md that a real GPU's do.
 *
 * A puzzle file (puzzles/NNN_topic.c) defines its variants as functions against the CUDA
 * runtime and kernels/kernels.h, marks the code a player is shown between lines reading
 * `// [show]` and `// [/show]`, and defines one `const puzzle puzzle_NNN_topic`, listed in
 * puzzles/registry.c. */
#ifndef STREAMLAB_PUZZLE_H
#define STREAMLAB_PUZZLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PUZZLE_MAX_VARIANTS 4
#define PUZZLE_MAX_CHOICES 5
#define PUZZLE_MAX_STREAMS 8
#define PUZZLE_MAX_VALUES 8

/* Returns the error of a failing runtime call from the variant. */
#define PUZZLE_CHECK(call)                  \
    do {                                    \
        cudaError_t puzzle_err_ = (call);   \
        if (puzzle_err_ != cudaSuccess)     \
            return puzzle_err_;             \
    } while (0)

typedef struct puzzle_variant {
    const char *name;  /* "pinned": what the report and --variant call it */
    const char *label; /* "A: non_blocking copies from pinned memory" */
    /* The program: enqueues its work and waits for all of it. Returns cudaSuccess or the
     * first error. Frees what it allocates. */
    cudaError_t (*run)(void);
} puzzle_variant;

/* One stream of a variant's run: when its first op started and its last op ended, on the
 * run's clock (0 = the run's first op). */
typedef struct puzzle_stream {
    int32_t id;
    char label[48];
    double start_ms, end_ms, busy_ms;
} puzzle_stream;

/* What one variant's run measured. */
typedef struct puzzle_run {
    const char *variant;   /* puzzle_variant.name */
    cudaError_t error;     /* what run() returned */
    double host_ms;        /* the host's time in run(), its final synchronisation included */
    double span_ms;        /* the device timeline: first op's start to last op's end */
    double kernel_busy_ms; /* time the compute engine had at least one kernel */
    double h2d_busy_ms, d2h_busy_ms;
    double overlap_ms;     /* time at least two of H2D, D2H and compute were busy */
    int max_kernels;       /* the most kernels running at one time */
    int max_h2d, max_d2h;  /* the most copies in that direction at one time */
    int n_streams;
    puzzle_stream streams[PUZZLE_MAX_STREAMS]; /* streams with ops, by id */
    int n_values;
    struct {
        char name[32];
        double value;
    } values[PUZZLE_MAX_VALUES]; /* what the variant reported (puzzle_report) */
    char *timeline;              /* the text timeline (malloc'd), or NULL */
} puzzle_run;

typedef struct puzzle {
    const char *id;          /* "004_blocking_copies" */
    const char *title;       /* "Blocking copies" */
    const char *source;      /* the file whose [show] blocks are shown: "puzzles/004_blocking_copies.c" */
    const char *setup;       /* what the variants do, in a sentence or two */
    const char *framework;   /* the same in PyTorch or TensorFlow, or NULL */
    const char *question;
    const char *choices[PUZZLE_MAX_CHOICES]; /* NULL-terminated */
    int answer;              /* index of the choice the explanation is written for */
    /* Which choice the runs show to be true (runs[i] is variants[i]), or -1 when they show
     * none (say why in why, a sentence). */
    int (*judge)(const puzzle_run *runs, char *why, size_t why_len);
    const char *explanation; /* why, for a player who has seen the timelines */
    const char *interview;   /* the interview question it answers (docs/interview-questions.md), or NULL */
    int n_variants;
    puzzle_variant variants[PUZZLE_MAX_VARIANTS];
} puzzle;

/* ---- for variants ---------------------------------------------------------------------- */

/* Records a figure the judge may read (at most PUZZLE_MAX_VALUES per run). */
void puzzle_report(const char *name, double value);
/* The host works (does not call CUDA) for ns: a loader, a decoder, Python. Virtual time on
 * the simulator, a busy wait on a GPU. */
void puzzle_host_work(uint64_t ns);
/* Names a stream on the timeline. */
void puzzle_name_stream(cudaStream_t stream, const char *name);
/* Names an event for the race reports and the timeline (`event "ready"`, not `event 1`). */
void puzzle_name_event(cudaEvent_t event, const char *name);

/* ---- for judges ----------------------------------------------------------------------- */

/* The value the run reported under name, or def. */
double puzzle_value(const puzzle_run *run, const char *name, double def);
/* The stream of the run whose label contains name, or NULL. */
const puzzle_stream *puzzle_stream_named(const puzzle_run *run, const char *name);

/* ---- the registry ---------------------------------------------------------------------- */

/* Every puzzle, in order, NULL-terminated. */
const puzzle *const *puzzle_all(void);
/* The puzzle whose id is name or starts with it ("004" finds "004_blocking_copies"), or NULL. */
const puzzle *puzzle_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
