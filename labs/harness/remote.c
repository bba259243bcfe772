/* labs/harness/remote.c: the referee's side of the student's process (see remote.h). */
#define _GNU_SOURCE
#include "labs/harness/remote.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_calls/cuda_calls.h"
#include "labs/harness/backend.h"
#include "labs/harness/ctx.h"
#include "labs/harness/fault.h"
#include "labs/harness/freed.h"
#include "labs/harness/graph_memory.h"
#include "labs/harness/guard.h"
#include "labs/harness/host_charge.h"
#include "labs/harness/host_history.h"
#include "labs/harness/requests.h"
#include "labs/harness/result_schema.h"
#include "labs/harness/source_line.h"
#include "labs/harness/spec.h"
#include "labs/referee/arena.h"
#include "labs/referee/process.h"
#include "trace/record/recorder.h"

/* Memory both processes map: the command ring, then the data (inputs, outputs, pinned
 * memory, staging). Sparse: only what is written costs memory. */
#define SHARED_BYTES LAB_SHARED_BYTES
#define RING_BYTES ((size_t)1 << 20)
/* The lab's outputs (the baseline's too, where it has buffers of its own). */
#define OUTPUTS_BYTES LAB_OUTPUTS_BYTES

enum cuda_index {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) CI_##name,
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
    CI_COUNT
};

/* Each call's synchronisation kind, the list's fourth column: an error string's ("pure": its
 * answer is text, not an error code), an asynchronous one (the student's process sends it
 * one-way on a GPU unless it staged pageable memory; on the simulator it too waits for its
 * answer, cuda_stubs.c), or one that returns when done. */
typedef enum { CALL_pure, CALL_sync, CALL_async, CALL_host } call_sync;
static const call_sync cuda_sync[CI_COUNT] = {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) [CI_##name] = CALL_##sync,
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
};

/* A set of values (handles, or allocations with their sizes). */
typedef struct entry {
    uintptr_t start;
    size_t bytes;
} entry;

typedef struct set {
    entry *e;
    size_t n, cap;
} set;

static void set_add(set *s, uintptr_t start, size_t bytes) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        entry *ne = realloc(s->e, cap * sizeof(entry));
        if (!ne) return;
        s->e = ne;
        s->cap = cap;
    }
    s->e[s->n++] = (entry){start, bytes};
}

static bool set_remove(set *s, uintptr_t start) {
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i].start == start) {
            s->e[i] = s->e[--s->n];
            return true;
        }
    return false;
}

static bool set_has(const set *s, uintptr_t v) {
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i].start == v) return true;
    return false;
}

/* The bytes of the entry that starts at v (0 when none does). */
static size_t set_bytes(const set *s, uintptr_t v) {
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i].start == v) return s->e[i].bytes;
    return 0;
}

/* Whether [p, p + n) lies in one of the set's ranges. */
static bool set_covers(const set *s, uintptr_t p, size_t n) {
    for (size_t i = 0; i < s->n; i++)
        if (p >= s->e[i].start && p - s->e[i].start <= s->e[i].bytes && n <= s->e[i].bytes - (p - s->e[i].start))
            return true;
    return false;
}

static struct remote {
    bool active;
    bool simulated;
    char path[4096];
    lab_referee ref;
    lab_arena *arena;
    int timeout_ms;
    lab_arena *outputs;    /* the outputs' memory: written only here */
    lab_ctx *ctx;          /* the student's context, for the lab_* calls */
    set streams, events, graphs, execs, devmem;
    set capturing;               /* streams a capture began on that may not have ended */
    lab_graph_memory *graph_mem; /* the memory each captured graph reaches (graph_memory.h) */
    void *staging;
    size_t staging_bytes;
    clockid_t child_clock;
    bool have_clock;
    uint64_t child_cpu_ns; /* the student's process's CPU time when its last command was served */
    lab_host_charge host_charge; /* its credit of free host time (host_charge.h) */
    lab_host_history history;    /* the least time spent before each command of a run */
    bool in_run;                 /* the current phase runs the student's run() */
    clockid_t process_clock;     /* the student's process's CPU clock, all its threads */
    bool have_process_clock;
    lab_host_charge fn_charge;   /* the credit of its host functions' thread */
    uint64_t copy_t0, copy_t1;   /* the host copy being served: its span on the host's clock */
    set inputs_read;             /* the inputs a host copy of this phase has read (their starts) */
    set copy_dsts;               /* where host copies of this phase wrote (their addresses) */
    uint64_t fn_copies_ns;       /* the CPU time of the running host function's copies, charged */
    char refusals[2048]; /* a refusal that names a freed buffer and its line takes 250 bytes */
    char failed_call[200]; /* lab_remote_failed_call: this phase's last failed call */
} R = {.timeout_ms = -1};

bool lab_remote_active(void) { return R.active; }
const char *lab_remote_refusals(void) { return R.refusals; }
const char *lab_remote_failed_call(void) { return R.failed_call; }
void lab_remote_set_timeout_ms(int ms) { R.timeout_ms = ms; }

/* Notes a refused command once per kind, for the report. */
static void refuse(const char *what) {
    if (strstr(R.refusals, what)) return;
    size_t len = strlen(R.refusals);
    snprintf(R.refusals + len, sizeof(R.refusals) - len, "%s%s", len ? "; " : "", what);
}

/* Notes a call of the student's that failed (lab_remote_failed_call). */
static void note_failed(const char *name, cudaError_t e) {
    if (e == cudaSuccess || e == cudaErrorNotReady) return;
    snprintf(R.failed_call, sizeof(R.failed_call), "%s failed: %s (%s)", name, cudaGetErrorName(e),
             cudaGetErrorString(e));
}

static bool locate_student(lab_fault *f);

int lab_remote_start(const char *path, bool simulated, char *err, size_t err_len) {
    snprintf(R.path, sizeof(R.path), "%s", path);
    R.simulated = simulated;
    int shm_fd = -1, outputs_fd = -1;
    const char *fds = getenv(LAB_SHM_FDS_ENV);
    if (fds && sscanf(fds, "%d,%d", &shm_fd, &outputs_fd) != 2) shm_fd = outputs_fd = -1;
    char *argv[] = {R.path, NULL};
    if (lab_referee_start(&R.ref, argv, SHARED_BYTES, RING_BYTES, OUTPUTS_BYTES, shm_fd, outputs_fd,
                          simulated ? 0 : LAB_CONTROL_REAL_DEVICE, err, err_len) != 0)
        return -1;
    size_t bytes = 0, out_bytes = 0;
    void *data = lab_referee_data(&R.ref, &bytes);
    void *outputs = lab_referee_outputs(&R.ref, &out_bytes);
    R.arena = lab_arena_new(data, bytes);
    R.outputs = lab_arena_new(outputs, out_bytes);
    R.graph_mem = lab_graph_memory_new();
    lab_freed_clear();
    if (!R.arena || !R.outputs || !R.graph_mem) {
        snprintf(err, err_len, "out of memory");
        lab_referee_stop(&R.ref);
        return -1;
    }
    /* The main thread's CPU clock (its thread id is the process's), so that host functions the
     * student's host-function thread runs are not charged to the host's timeline; the
     * process's where the kernel does not give it. */
    R.child_clock = (clockid_t)((~(unsigned)R.ref.pid << 3) | 6u);
    struct timespec probe;
    R.have_clock = clock_gettime(R.child_clock, &probe) == 0 || (clock_getcpuclockid(R.ref.pid, &R.child_clock) == 0);
    R.have_process_clock = clock_getcpuclockid(R.ref.pid, &R.process_clock) == 0;
    R.active = true;
    static const lab_host_provider provider = {lab_remote_host_alloc, lab_remote_host_free};
    lab_buffers_set_provider(&provider);
    lab_source_line_set_student(R.path);
    lab_guard_set_locator(locate_student);
    return 0;
}

void *lab_remote_host_alloc(size_t bytes, bool pinned, bool is_output) {
    lab_arena *a = is_output ? R.outputs : R.arena;
    lab_arena_owner owner = is_output ? LAB_ARENA_OUTPUT : LAB_ARENA_INPUT;
    void *p = lab_arena_alloc(a, bytes, owner);
    if (p && pinned && cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
        lab_arena_release(a, p, owner);
        return NULL;
    }
    return p;
}

void lab_remote_host_free(void *p) {
    lab_arena_owner owner;
    lab_arena *a = lab_arena_find(R.outputs, p, 1, NULL, NULL, &owner) ? R.outputs : R.arena;
    if (!lab_arena_find(a, p, 1, NULL, NULL, &owner)) return;
    (void)cudaHostUnregister(p);
    (void)cudaGetLastError();
    lab_arena_release(a, p, owner);
}

void lab_remote_stop(void) {
    if (!R.active) return;
    lab_referee_stop(&R.ref);
    lab_arena_free_all(R.arena);
    lab_arena_free_all(R.outputs);
    R.arena = R.outputs = NULL;
    lab_graph_memory_free(R.graph_mem);
    R.graph_mem = NULL;
    R.capturing.n = 0;
    lab_freed_clear();
    lab_buffers_set_provider(NULL);
    lab_host_history_reset(&R.history);
    R.in_run = false;
    R.active = false;
}

/* ---- host work ------------------------------------------------------------------------ */

static uint64_t child_cpu_ns(void) {
    struct timespec t;
    if (!R.have_clock || clock_gettime(R.child_clock, &t) != 0) return R.child_cpu_ns;
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* On the simulator, what the student's process computed since its last command costs the
 * simulated host that time, in whole steps: the host is not free there. known_ns of that
 * time is charged apart (a host copy's, charge_host_copy) and left out here. */
static void charge_host_work(uint64_t known_ns) {
    if (!R.simulated) return;
    uint64_t now = child_cpu_ns();
    uint64_t spent = now > R.child_cpu_ns ? now - R.child_cpu_ns : 0;
    R.child_cpu_ns = now;
    spent -= spent < known_ns ? spent : known_ns;
    /* In run(), what came before this command in every run so far (host_history.h). */
    if (R.in_run) spent = lab_host_history_filter(&R.history, spent);
    uint64_t charge = lab_host_charge_take(&R.host_charge, spent);
    if (charge) lab_backend_host_work(charge);
}

/* On the simulator, a memcpy of the student's (lab.h sends each one of LAB_HOST_COPY_MIN
 * bytes or more as LAB_OP_HOST_COPY) costs the simulated host what one of that size costs
 * the lent H200s' hosts (the profile's host_copy_curve), not what it cost this machine's
 * CPU, which copies several times faster when idle and slower when loaded: the grade must
 * not depend on the machine that grades (docs/referee.md, "Host copies"). The client says
 * how many bytes it copied and how long its thread took; the referee charges the curve's
 * time and leaves out of the measured CPU time the copy's own, but never more than the
 * curve's time, so that a report the student's process forged can only cost it: claiming
 * fewer bytes leaves the measured time charged, claiming more time than the copy took
 * leaves out no more than the bytes claimed are charged. A host function's copies (on its
 * own ring) lengthen its op by the curve's time, and are left out of its CPU time likewise
 * (charge_host_fn_work).
 *
 * A copy out of one of the lab's inputs that no copy of this phase has read yet, into memory
 * no copy of this phase has written, is charged what a copy of memory no CPU cache holds
 * costs (the profile's host_copy_cold_curve); with one of the two sides cold, half way
 * between that and the warm curve. The harness wrote the inputs before the run. On lent
 * H200s lab 01's 8 MiB input copies, each into a staging buffer of its own, took 1.2-1.7 ms
 * (the cold curve's 8 MiB point 1.40, the warm one 0.99); lab 03's 4 MiB ones into three
 * staging buffers used in turn took 0.51-0.57 ms (warm 0.49, cold 0.70, half way 0.59): a
 * destination the host has just written is in its cache. The addresses are the client's
 * word, the source looked up in the arena like any pointer of the student's: naming others
 * only moves the copy to a warmer price, whose shortfall stays in the measured CPU time.
 * Destinations past the first REFEREE_COPY_DSTS of a phase count as written before. */
#define REFEREE_COPY_DSTS 1024u
static void charge_host_copy(bool main_ring, const unsigned char *args, uint32_t len) {
    uint64_t v[5] = {0}; /* bytes, the copying thread's CPU time, the copy's wall time, its source, its destination */
    memcpy(v, args, len < sizeof(v) ? len : sizeof(v));
    if (!R.simulated) {
        /* On a GPU the copy is over: the host lane shows it where it was (a span for the
         * advice; no grade depends on it). */
        uint64_t now = lab_backend_now_ns();
        R.copy_t1 = now;
        R.copy_t0 = now > v[2] ? now - v[2] : now;
        return;
    }
    void *start = NULL;
    lab_arena_owner owner;
    bool src_cold = v[3] &&
                    lab_arena_find(R.arena, (const void *)(uintptr_t)v[3], (size_t)v[0], &start, NULL, &owner) &&
                    owner == LAB_ARENA_INPUT && !set_has(&R.inputs_read, (uintptr_t)start);
    if (src_cold) set_add(&R.inputs_read, (uintptr_t)start, 0);
    bool dst_cold = v[4] && R.copy_dsts.n < REFEREE_COPY_DSTS && !set_has(&R.copy_dsts, (uintptr_t)v[4]);
    if (dst_cold) set_add(&R.copy_dsts, (uintptr_t)v[4], 0);
    /* A copy reads its source and writes its destination: each side no cache holds pays
     * half the difference between the cold curve and the warm one. */
    uint64_t warm = lab_backend_host_copy_ns(v[0]), model = warm;
    int cold_sides = (int)src_cold + (int)dst_cold;
    if (cold_sides > 0) {
        uint64_t cold = lab_backend_host_copy_cold_ns(v[0]);
        model = cold > warm ? warm + (cold - warm) * (uint64_t)cold_sides / 2u : warm;
    }
    uint64_t known = v[1] < model ? v[1] : model;
    if (main_ring)
        charge_host_work(known);
    else
        R.fn_copies_ns += known;
    R.copy_t0 = lab_backend_now_ns();
    if (model) lab_backend_host_work(model);
    R.copy_t1 = lab_backend_now_ns();
}

/* The CPU time of the student's whole process (0 where its clock cannot be read). While a
 * host function of its runs, its main thread waits for the referee without spinning (the
 * simulator's calls all wait for their answers), so what the process spends then is the
 * function's. */
static uint64_t process_cpu_ns(void) {
    struct timespec t;
    if (!R.have_process_clock || clock_gettime(R.process_clock, &t) != 0) return 0;
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* On the simulator, what the student's host function computed lengthens it on the simulated
 * timeline, as its work would on a GPU (the simulator's host functions run in no time of
 * their own): charged from the function's own credit, as the main thread's work is. Called
 * inside the host function's op (the backend adds host work there to the op). */
static void charge_host_fn_work(uint64_t since_ns) {
    if (!R.simulated) return;
    uint64_t now = process_cpu_ns();
    uint64_t spent = now > since_ns ? now - since_ns : 0;
    /* Its host copies were charged as they came (charge_host_copy): their CPU time is not. */
    spent -= spent < R.fn_copies_ns ? spent : R.fn_copies_ns;
    R.fn_copies_ns = 0;
    uint64_t charge = lab_host_charge_take(&R.fn_charge, spent);
    if (charge) lab_backend_host_work(charge);
}

/* ---- what a command may name ----------------------------------------------------------- */

/* A stream the student made, or one of the runtime's own. */
static bool stream_ok(cudaStream_t s) {
    uintptr_t v = (uintptr_t)s;
    return v == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread || set_has(&R.streams, v);
}

/* Memory a kernel may be given: the student's device allocations. */
static bool device_memory_ok(uint64_t p, size_t n) { return set_covers(&R.devmem, (uintptr_t)p, n); }

/* Memory a call may read or write for the student: the student's device allocations, or the
 * shared memory (which is pinned, an input, an output or staging). Never the baseline's or
 * the harness's device memory, nor any address of this process. */
static bool memory_ok(const void *p, size_t n) {
    if (n == 0) return true;
    if (!p) return false;
    if (device_memory_ok((uintptr_t)p, n)) return true;
    return lab_arena_find(R.arena, p, n, NULL, NULL, NULL) || lab_arena_find(R.outputs, p, n, NULL, NULL, NULL);
}

/* ---- words for a refusal of memory ------------------------------------------------------ */

/* The student's line of a call site (trace_call_site: the return address, marked as the
 * student's), as "labs/07_cuda_graphs/lab.c:62"; where this run may not look lines up (the
 * grader's sandbox, STREAMLAB_NO_SUBPROCESS), the address in the student's program, in the
 * words the grader looks up once the run is over (LAB_SITE_WORDS, grading/run/grade_lines.c). A
 * refusal is rare, but a program may repeat one: the last lookup is kept. */
static void site_words(uint64_t site, char *out, size_t cap) {
    static uint64_t last_site;
    static char last[600];
    if (site && site == last_site) {
        snprintf(out, cap, "%s", last);
        return;
    }
    uintptr_t offset = 0;
    lab_source_line_words(site, out, cap, &offset);
    if (!out[0] && offset)
        snprintf(out, cap, LAB_SITE_WORDS_FORMAT, (unsigned long long)offset);
    else if (!out[0])
        snprintf(out, cap, "a line of your program");
    last_site = site;
    snprintf(last, sizeof(last), "%s", out);
}

/* What a refusal of memory at addr says of it where the program freed it: "the 1048576
 * bytes at 0x7f..., freed by cudaFree at labs/07_cuda_graphs/lab.c:62"; "" where it did not
 * (or the free is too far back to be kept, freed.h). */
static void freed_words(uint64_t addr, char *out, size_t cap) {
    lab_freed f;
    out[0] = '\0';
    if (!lab_freed_find(addr, &f)) return;
    char line[600];
    site_words(f.site, line, sizeof(line));
    snprintf(out, cap, "the %llu bytes at %#llx, freed by %s at %s", (unsigned long long)f.bytes,
             (unsigned long long)f.start, f.call, line);
}

/* ---- the memory of captured commands ---------------------------------------------------- */

/* The command being served came from a file compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM
 * (LAB_CALL_PER_THREAD): its stream 0 is the per-thread default stream, as the call's _ptsz
 * entry point reads it. */
static __thread bool t_per_thread;

static cudaStream_t stream_as_called(cudaStream_t stream) {
    return t_per_thread && stream == 0 ? cudaStreamPerThread : stream;
}

/* A command served on stream reached uses and succeeded. Where the stream captures, the
 * command was not run: it is a node of the capture's graph, and its ranges go with the
 * graph, to be checked again at each launch (graph_memory.h). Asked of the backend only
 * while a capture may be open. */
static void note_captured(cudaStream_t stream, const lab_graph_use *uses, size_t n) {
    uint64_t capture;
    if (!n || !R.capturing.n || !lab_backend_capture_id(stream_as_called(stream), &capture)) return;
    for (size_t i = 0; i < n; i++) lab_graph_memory_note(R.graph_mem, capture, &uses[i]);
}

/* Whether a range a graph reaches passes, now, the check its command passed when it was
 * captured: device memory for a kernel (serve_kernel), the program's memory for a copy or a
 * memset (SERVE_CALL's memory_ok). */
static bool graph_use_ok(const lab_graph_use *u) {
    if (u->need == LAB_GRAPH_NEED_DEVICE) return device_memory_ok(u->start, (size_t)u->bytes);
    return memory_ok((const void *)(uintptr_t)u->start, (size_t)u->bytes);
}

/* The graph calls, as the student's process asks them: what a capture reaches goes with the
 * graph it makes and the executable graphs made from that, and a launch is refused where any
 * of it is no longer the program's (a buffer freed after the capture), as the command itself
 * would be refused now. */
static cudaError_t remote_cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    stream = stream_as_called(stream);
    cudaError_t e = cudaStreamBeginCapture(stream, mode);
    if (e == cudaSuccess && !set_has(&R.capturing, (uintptr_t)stream)) set_add(&R.capturing, (uintptr_t)stream, 0);
    return e;
}

static cudaError_t remote_cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    stream = stream_as_called(stream);
    uint64_t capture = 0, after = 0;
    bool was = lab_backend_capture_id(stream, &capture);
    cudaError_t e = cudaStreamEndCapture(stream, pGraph);
    bool still = lab_backend_capture_id(stream, &after);
    /* Ended (with a graph, or invalidated or unjoined with none), or still open (ended on a
     * stream that joined it: cudaErrorStreamCaptureUnmatched). */
    if (was && !(still && after == capture))
        lab_graph_memory_captured(R.graph_mem, capture, e == cudaSuccess && pGraph ? (uint64_t)(uintptr_t)*pGraph : 0);
    if (!still) set_remove(&R.capturing, (uintptr_t)stream);
    return e;
}

static cudaError_t remote_cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
    return cudaStreamIsCapturing(stream_as_called(stream), pCaptureStatus);
}

static cudaError_t remote_cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                               unsigned long long flags) {
    cudaError_t e = cudaGraphInstantiate(pGraphExec, graph, flags);
    if (e == cudaSuccess && pGraphExec)
        lab_graph_memory_instantiated(R.graph_mem, (uint64_t)(uintptr_t)graph, (uint64_t)(uintptr_t)*pGraphExec);
    return e;
}

static cudaError_t remote_cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    lab_graph_use bad;
    lab_graph_check c = lab_graph_memory_check(R.graph_mem, (uint64_t)(uintptr_t)graphExec, graph_use_ok, &bad);
    if (c == LAB_GRAPH_UNCHECKED) {
        char said[200];
        snprintf(said, sizeof(said),
                 "cudaGraphLaunch of a graph whose memory the referee cannot check (it reaches more than %u ranges)",
                 LAB_GRAPH_MEMORY_MAX_USES);
        refuse(said);
        return cudaErrorInvalidValue;
    }
    if (c == LAB_GRAPH_BAD) {
        char freed[700], said[1000];
        freed_words(bad.start, freed, sizeof(freed));
        if (!freed[0])
            snprintf(freed, sizeof(freed), "the %llu bytes at %#llx", (unsigned long long)bad.bytes,
                     (unsigned long long)bad.start);
        snprintf(said, sizeof(said),
                 "cudaGraphLaunch of a graph whose %s was captured on %s that is no longer the program's (%s; a "
                 "graph keeps the addresses it was captured with)",
                 bad.call, bad.need == LAB_GRAPH_NEED_DEVICE ? "device memory" : "memory", freed);
        refuse(said);
        return cudaErrorInvalidValue;
    }
    return cudaGraphLaunch(graphExec, stream_as_called(stream));
}

static cudaError_t remote_cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    cudaError_t e = cudaGraphExecDestroy(graphExec);
    if (e == cudaSuccess) lab_graph_memory_forget_exec(R.graph_mem, (uint64_t)(uintptr_t)graphExec);
    return e;
}

static cudaError_t remote_cudaGraphDestroy(cudaGraph_t graph) {
    cudaError_t e = cudaGraphDestroy(graph);
    if (e == cudaSuccess) lab_graph_memory_forget_graph(R.graph_mem, (uint64_t)(uintptr_t)graph);
    return e;
}

static cudaError_t remote_cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
    return cudaGraphGetNodes(graph, nodes, numNodes);
}

/* Whether [p, p + n) touches the lab's outputs, and whether it is the student's device memory:
 * a copy into an output must come from the device (docs/referee.md). */
static bool is_output(const void *p, size_t n) { return n && lab_arena_find(R.outputs, p, n, NULL, NULL, NULL); }
static bool is_device(const void *p, size_t n) { return n && set_covers(&R.devmem, (uintptr_t)p, n); }
/* Whether [p, p + n) is the staging through which the student's pageable memory passes
 * (the client copied it there, or copies it out after the call). */
static bool is_staging(const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p, s = (uintptr_t)R.staging;
    return n && R.staging && a >= s && a - s < R.staging_bytes && n <= R.staging_bytes - (a - s);
}

/* On the simulator, the client's copy of the student's pageable bytes into or out of
 * staging costs the simulated host what it costs on a GPU, where it is real host time. Lab
 * 08's ring of pageable 1 MiB buffers, traced on an H200, spent 7.86 ms of its run between
 * its loads' ends and its uploads' calls (48 batches, 164 us each) where the same ring of
 * pinned buffers spent 0.51 ms (11 us a batch): two copies a batch, the load's out of
 * staging into the student's buffer, which reads what the referee's process wrote and costs
 * what the profile's host copy curve says (the client tells it, LAB_OP_HOST_COPY), and the
 * upload's into staging, which reads what that copy has just written, in this core's
 * cache: the rest of the 164 us (docs/referee.md). A copy out of staging after a download reads what the
 * device wrote, in no cache: the curve's time. */
#define STAGING_PAIR_NS_PER_MIB 164000.0

/* On the simulator, what the referee's own path costs a command of the student's on a GPU,
 * where the referee performs the student's calls one after the other. Serving a command
 * beyond performing it: 0.29-0.32 us on lent H200s (lab 07's skeleton, 1536 launches one by
 * one through the referee, took 0.45-0.49 ms longer than its baseline, the same launches in
 * the lab's own process: docs/measured.md, "The referee's commands charged on the
 * simulator"; 0.3-0.8 us in lab 06's timed runs on an H100). A command the student's
 * process waits for on a GPU costs a round trip of the ring besides, 0.51 us at the median
 * on an H200 host (../shared/calibration/referee_ring.md), while the referee has nothing to
 * perform: every call but a launch and an asynchronous call, which a GPU's client sends
 * one-way (on the simulator every call waits, so that its error is its own), and an
 * asynchronous copy that staged pageable memory (charge_staging_copy). Charged to the
 * simulated host: the calls after it start later. main_ring: the command came on the main
 * ring (a host function's are charged to its op, charge_host_fn_work). */
#define REFEREE_SERVE_NS 300u
#define REFEREE_ROUND_TRIP_NS 510u
/* A run through the referee begins later than one in the lab's own process: the student's
 * process takes the phase, enters run() and sends its first command. On a lent H200 its
 * first CUDA call came 6-24 us after the run began (median 9.5 us; labs 04 and 07, five
 * timed runs each), where the baseline, in the lab's process, made its first at 0.6-1.2 us
 * (docs/measured.md, "The device's wake-up, the harness's pause, ..."). On the simulator,
 * charged to the host at the start of each run. */
#define REFEREE_RUN_START_NS 8500u
static void charge_command(bool main_ring, bool answered) {
    if (!R.simulated || !main_ring) return;
    lab_backend_host_work(REFEREE_SERVE_NS + (answered ? REFEREE_ROUND_TRIP_NS : 0u));
}

static void charge_staging_copy(size_t bytes, bool into_staging) {
    if (!R.simulated || !bytes) return;
    double mib = (double)bytes / (1024.0 * 1024.0), ns;
    if (into_staging) {
        double pair = STAGING_PAIR_NS_PER_MIB - (double)lab_backend_host_copy_ns(1024u * 1024u);
        ns = (pair > 0 ? pair : 0) * mib;
    } else {
        ns = (double)lab_backend_host_copy_ns(bytes);
    }
    lab_backend_host_work((uint64_t)ns + REFEREE_ROUND_TRIP_NS);
}

/* ---- the reply ----------------------------------------------------------------------- */

typedef struct writer {
    unsigned char *at, *end;
} writer;

static void w_put(writer *w, const void *p, size_t n) {
    size_t padded = (n + 7u) & ~(size_t)7u;
    if (w->at + padded > w->end) {
        w->at = w->end;
        return;
    }
    memset(w->at, 0, padded);
    if (p) memcpy(w->at, p, n);
    w->at += padded;
}

typedef struct reader {
    const unsigned char *at, *end;
    bool short_;
} reader;

static void r_get(reader *r, void *p, size_t n) {
    size_t padded = (n + 7u) & ~(size_t)7u;
    if ((size_t)(r->end - r->at) < padded) {
        r->short_ = true;
        memset(p, 0, n);
        return;
    }
    memcpy(p, r->at, n);
    r->at += padded;
}

/* A string argument (lab_api.c put_string), copied and ended. */
static bool r_string(reader *r, char *out, size_t cap, bool *null) {
    uint32_t n = 0;
    r_get(r, &n, sizeof(n));
    *null = n == UINT32_MAX;
    out[0] = '\0';
    if (*null) return !r->short_;
    size_t padded = ((size_t)n + 7u) & ~(size_t)7u;
    if (n >= cap || (size_t)(r->end - r->at) < padded) return false;
    memcpy(out, r->at, n);
    out[n] = '\0';
    r->at += padded;
    return !r->short_;
}

/* The ring a command being served came from, and where its answer is written: per thread,
 * as a host function of the student's is served on the thread that runs it (the runtime's,
 * on a GPU) while the main ring's may be served on this one. */
static __thread lab_ring *t_ring;
static __thread unsigned char t_reply[LAB_RING_REPLY_MAX];
/* The command being served: whether its answer starts with an error code (a CUDA call but
 * an error string's, a launch), and whether its producer waits for it. */
static __thread bool t_error_first, t_one_way;
/* The first error of a one-way call that no waited call has answered yet (main ring only). */
static int32_t deferred_error;

static void reply(const lab_ring_record *rec, const void *p, size_t n) {
    if (t_error_first && n >= sizeof(int32_t) && t_ring == R.ref.ring) {
        int32_t e;
        memcpy(&e, p, sizeof(e));
        if (t_one_way) {
            /* Its producer never reads this answer: only an error is kept, for the next call
             * that waits. Writing it would pull the reply's cache lines from under a producer
             * spinning on them, for nothing. */
            if (e != 0 && deferred_error == 0) deferred_error = e;
            return;
        } else if (e == 0 && deferred_error != 0 && n <= sizeof(t_reply)) {
            /* An earlier one-way call's error, answered here (LAB_CALL_ONE_WAY). */
            unsigned char *out = t_reply;
            if (out != p) memmove(out, p, n);
            memcpy(out, &deferred_error, sizeof(deferred_error));
            deferred_error = 0;
            p = out;
        }
    }
    lab_ring_reply(t_ring, rec->seq, p, (uint32_t)n);
}

static void reply_int(const lab_ring_record *rec, int32_t v) { reply(rec, &v, sizeof(v)); }

/* ---- host functions ------------------------------------------------------------------- */

/* What the runtime calls when a stream reaches a host function of the student's: it asks the
 * student's process to run it, and waits until it has (a host function holds its stream). */
static int serve(void *ring, lab_referee *ref, const lab_ring_record *rec, const void *payload);

/* What the runtime calls when a stream reaches a host function of the student's: it asks the
 * student's process to run it, serves what that function asks of the lab meanwhile (on its
 * process's host-function ring), and returns once the function has (a host function holds
 * its stream). */
static void CUDART_CB run_student_host_fn(void *token) {
    uint64_t cpu0 = R.simulated ? process_cpu_ns() : 0;
    lab_control *ctl = R.ref.control;
    ctl->fn_token = (uint64_t)(uintptr_t)token;
    uint32_t seq = __atomic_add_fetch(&ctl->fn_seq, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &ctl->fn_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
    static __thread unsigned char payload[LAB_REFEREE_PAYLOAD_MAX];
    for (;;) {
        if (__atomic_load_n(&ctl->fn_done, __ATOMIC_SEQ_CST) == seq) break;
        lab_ring_record rec;
        lab_ring_status st = lab_ring_next(R.ref.fn_ring, &rec, payload, sizeof(payload), 20);
        if (st == LAB_RING_OK) {
            if (rec.op < LAB_OP_FIRST_CALL || serve(R.ref.fn_ring, &R.ref, &rec, payload) != 0) break;
            continue;
        }
        if (st != LAB_RING_TIMEOUT || kill(R.ref.pid, 0) != 0) break; /* broken, or gone */
    }
    charge_host_fn_work(cpu0);
}

/* ---- the memory calls, as the student's process asks them -------------------------------- */

static cudaError_t remote_cudaMalloc(void **devPtr, size_t size) {
    cudaError_t e = cudaMalloc(devPtr, size);
    if (e == cudaSuccess && devPtr && *devPtr) set_add(&R.devmem, (uintptr_t)*devPtr, size);
    return e;
}

static cudaError_t remote_cudaFree(void *devPtr) {
    if (devPtr && !set_has(&R.devmem, (uintptr_t)devPtr)) {
        refuse("cudaFree of memory that is not the program's");
        return cudaErrorInvalidValue;
    }
    size_t bytes = devPtr ? set_bytes(&R.devmem, (uintptr_t)devPtr) : 0;
    cudaError_t e = cudaFree(devPtr);
    if (e == cudaSuccess && devPtr) {
        set_remove(&R.devmem, (uintptr_t)devPtr);
        lab_freed_note((uintptr_t)devPtr, bytes, trace_call_site(), "cudaFree");
    }
    return e;
}

/* The arena zeroes each allocation (arena.h), before the registration. On two starts of a
 * lent H200 (docs/measured.md, "The host's copies of a lab's inputs, a pinned allocation's
 * zeroing, ..."), lab 08's cudaMallocHost of a 1 MiB batch in run() spent 105 and
 * 112 us there (medians of 48; 98-194) on memory the arena had zeroed in an earlier run, and
 * lab 01's of an 8 MiB buffer in setup() 4.28-5.38 ms (median 4.37) on memory it never had
 * (the pages' first faults); a memset of such shared memory alone took 115-121 us a MiB and
 * 807-897. On the simulator, charged at the labs' rates. */
#define REFEREE_ZERO_NS_PER_MIB 108000.0
#define REFEREE_ZERO_FRESH_NS_PER_MIB 546000.0
static void charge_zeroing(const void *p, size_t size, uintptr_t touched_end) {
    if (!R.simulated) return;
    uintptr_t at = (uintptr_t)p, end = at + size;
    size_t fresh = end > touched_end ? (size_t)(end - (at > touched_end ? at : touched_end)) : 0;
    double mib = 1024.0 * 1024.0;
    lab_backend_host_work((uint64_t)(REFEREE_ZERO_FRESH_NS_PER_MIB * (double)fresh / mib +
                                     REFEREE_ZERO_NS_PER_MIB * (double)(size - fresh) / mib));
}

/* Pinned memory is made in the shared memory and registered, so that both processes see it.
 * The registration is the program's call on the timeline, by the name it used. */
static cudaError_t pinned_alloc(void **ptr, size_t size, const char *called) {
    if (!ptr) return cudaErrorInvalidValue;
    uintptr_t touched_end = lab_arena_touched_end(R.arena);
    void *p = lab_arena_alloc(R.arena, size, LAB_ARENA_STUDENT);
    if (!p) return cudaErrorMemoryAllocation;
    charge_zeroing(p, size, touched_end);
    trace_record_as(called);
    cudaError_t e = cudaHostRegister(p, size, cudaHostRegisterDefault);
    trace_record_as(NULL);
    if (e != cudaSuccess) {
        lab_arena_release(R.arena, p, LAB_ARENA_STUDENT);
        return e;
    }
    *ptr = p;
    return cudaSuccess;
}

static cudaError_t remote_cudaMallocHost(void **ptr, size_t size) { return pinned_alloc(ptr, size, "cudaMallocHost"); }

static cudaError_t remote_cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    (void)flags;
    return pinned_alloc(pHost, size, "cudaHostAlloc");
}

static cudaError_t remote_cudaFreeHost(void *ptr) {
    if (!ptr) return cudaSuccess;
    size_t bytes = 0;
    if (!lab_arena_find(R.arena, ptr, 0, NULL, &bytes, NULL)) return cudaErrorInvalidValue;
    /* As cudaFreeHost does, wait for the device before the memory goes: on the timeline, the
     * wait and the unregistration are the program's cudaFreeHost. */
    trace_record_as("cudaFreeHost");
    cudaError_t e = cudaDeviceSynchronize();
    (void)cudaHostUnregister(ptr);
    trace_record_as(NULL);
    (void)cudaGetLastError();
    if (!lab_arena_release(R.arena, ptr, LAB_ARENA_STUDENT)) return cudaErrorInvalidValue;
    lab_freed_note((uintptr_t)ptr, bytes, trace_call_site(), "cudaFreeHost");
    return e;
}

/* Whether [p, p + n) is shared memory: the student's pinned memory, the lab's inputs or
 * outputs, staging. */
static bool shared_memory(const void *p, size_t n) {
    return lab_arena_find(R.arena, p, n, NULL, NULL, NULL) || lab_arena_find(R.outputs, p, n, NULL, NULL, NULL);
}

static cudaError_t remote_cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    if (!shared_memory(ptr, size)) {
        void *start = NULL;
        size_t bytes = 0;
        if (lab_arena_find(R.arena, ptr, 0, &start, &bytes, NULL) || lab_arena_find(R.outputs, ptr, 0, &start, &bytes, NULL)) {
            char said[200];
            snprintf(said, sizeof(said),
                     "cudaHostRegister of %zu bytes that run past the end of the buffer they start in (%zu bytes "
                     "from there to its end): register each buffer on its own",
                     size, bytes - (size_t)((const char *)ptr - (const char *)start));
            refuse(said);
        } else {
            refuse("cudaHostRegister of memory your program allocated itself (malloc, aligned_alloc, a static array): "
                   "your code runs in a process of its own, and only memory it shares with the lab reaches the GPU; "
                   "pin with cudaMallocHost or cudaHostAlloc, or register the lab's own buffers");
        }
        return cudaErrorInvalidValue;
    }
    return cudaHostRegister(ptr, size, flags);
}

static cudaError_t remote_cudaHostUnregister(void *ptr) {
    if (!shared_memory(ptr, 0)) return cudaErrorHostMemoryNotRegistered;
    return cudaHostUnregister(ptr);
}

/* ---- the CUDA calls, from the list ------------------------------------------------------ */

/* An input value: a handle must be one the student's process was given. */
static bool handle_ok_stream(const void *v) { return stream_ok(*(const cudaStream_t *)v); }
static bool handle_ok_event(const void *v) { return set_has(&R.events, (uintptr_t) * (const cudaEvent_t *)v); }
static bool handle_ok_graph(const void *v) { return set_has(&R.graphs, (uintptr_t) * (const cudaGraph_t *)v); }
static bool handle_ok_exec(const void *v) { return set_has(&R.execs, (uintptr_t) * (const cudaGraphExec_t *)v); }
static bool handle_ok_any(const void *v) {
    (void)v;
    return true;
}
/* The stream a call names (its cudaStream_t parameter), for what it captures. */
static void take_stream(cudaStream_t *to, const void *v) { *to = *(const cudaStream_t *)v; }
static void take_nothing(cudaStream_t *to, const void *v) {
    (void)to;
    (void)v;
}
#define TAKE_STREAM(T, to, p) _Generic((T)0, cudaStream_t: take_stream, default: take_nothing)(to, p)
#define HANDLE_OK(T, p)                                                                                    \
    _Generic((T)0, cudaStream_t: handle_ok_stream, cudaEvent_t: handle_ok_event, cudaGraph_t: handle_ok_graph, \
             cudaGraphExec_t: handle_ok_exec, default: handle_ok_any)(p)

/* A handle the call made: the student's from now on. */
static void made_stream(const void *p) { set_add(&R.streams, (uintptr_t) * (const cudaStream_t *)p, 0); }
static void made_event(const void *p) { set_add(&R.events, (uintptr_t) * (const cudaEvent_t *)p, 0); }
static void made_graph(const void *p) { set_add(&R.graphs, (uintptr_t) * (const cudaGraph_t *)p, 0); }
static void made_exec(const void *p) { set_add(&R.execs, (uintptr_t) * (const cudaGraphExec_t *)p, 0); }
static void made_nothing(const void *p) { (void)p; }
#define MADE(T, p)                                                                                           \
    _Generic((T)0, cudaStream_t *: made_stream, cudaEvent_t *: made_event, cudaGraph_t *: made_graph,         \
             cudaGraphExec_t *: made_exec, default: made_nothing)(p)

/* A handle the call ended. */
static void ended(int index, uint64_t handle) {
    switch (index) {
    case CI_cudaStreamDestroy: set_remove(&R.streams, handle); break;
    case CI_cudaEventDestroy: set_remove(&R.events, handle); break;
    case CI_cudaGraphDestroy: set_remove(&R.graphs, handle); break;
    case CI_cudaGraphExecDestroy: set_remove(&R.execs, handle); break;
    default: break;
    }
}

/* The largest out array a call may fill for the student. */
#define ARRAY_MAX 64

/* Reading the parameters (every role's slot, in order). */
#define DEC_void
#define DEC_in(T, n)                        \
    T n;                                    \
    r_get(&rd_, &n, sizeof(T));             \
    if (!HANDLE_OK(T, &n)) bad_handle_ = true; \
    TAKE_STREAM(T, &stream_, &n);
#define DEC_in_default(T, n, v) DEC_in(T, n)
#define DEC_out(T, n)                          \
    uint64_t n##_flag_;                        \
    r_get(&rd_, &n##_flag_, sizeof(uint64_t)); \
    __typeof__(*(T)0) n##_v_;                  \
    memset(&n##_v_, 0, sizeof(n##_v_));        \
    T n = n##_flag_ ? &n##_v_ : NULL;
#define DEC_inout(T, n)                                  \
    uint64_t n##_flag_;                                  \
    r_get(&rd_, &n##_flag_, sizeof(uint64_t));           \
    __typeof__(*(T)0) n##_v_;                            \
    memset(&n##_v_, 0, sizeof(n##_v_));                  \
    if (n##_flag_) r_get(&rd_, &n##_v_, sizeof(n##_v_)); \
    T n = n##_flag_ ? &n##_v_ : NULL;
#define DEC_out_array(T, n, c)                 \
    uint64_t n##_flag_;                        \
    r_get(&rd_, &n##_flag_, sizeof(uint64_t)); \
    __typeof__(*(T)0) n##_a_[ARRAY_MAX];       \
    memset(n##_a_, 0, sizeof(n##_a_));         \
    T n = n##_flag_ ? n##_a_ : NULL;
#define DEC_dst(T, n, b)                 \
    uint64_t n##_u_;                     \
    r_get(&rd_, &n##_u_, sizeof(n##_u_)); \
    T n = (T)(uintptr_t)n##_u_;
#define DEC_src(T, n, b) DEC_dst(T, n, b)
#define DEC_host_mem(T, n, b) DEC_dst(T, n, b)
#define DEC_addr(T, n) DEC_dst(T, n, )
#define DEC_host_fn(T, n) T n = run_student_host_fn;
#define DEC_host_fn_arg(T, n) DEC_dst(T, n, )

/* What must hold once every parameter is read. */
#define CHECK_void
#define CHECK_in(T, n)
#define CHECK_in_default(T, n, v)
#define CHECK_out(T, n)
#define CHECK_inout(T, n)
#define CHECK_out_array(T, n, c) \
    if (n && c && *(c) > ARRAY_MAX) *(c) = ARRAY_MAX;
#define CHECK_dst(T, n, b)                                        \
    if (!memory_ok((const void *)(n), (size_t)(b))) bad_memory_ = true; \
    to_output_ = is_output((const void *)(n), (size_t)(b));              \
    if (is_staging((const void *)(n), (size_t)(b))) staged_out_ += (size_t)(b); \
    USE_(n, b, false);
#define CHECK_src(T, n, b)                                        \
    if (!memory_ok((const void *)(n), (size_t)(b))) bad_memory_ = true; \
    if (is_output((const void *)(n), (size_t)(b))) bad_memory_ = true;   \
    from_host_ = !is_device((const void *)(n), (size_t)(b));             \
    if (is_staging((const void *)(n), (size_t)(b))) staged_in_ += (size_t)(b); \
    USE_(n, b, true);
/* A range the call reaches, for the graph it may be captured into (note_captured): the
 * program's memory, and for the source of a copy into a lab output, its device memory. */
#define USE_(n, b, source)                                                                         \
    if (n_uses_ < sizeof(uses_) / sizeof(uses_[0])) {                                              \
        uses_[n_uses_] = (lab_graph_use){(uint64_t)(uintptr_t)(n), (uint64_t)(b), LAB_GRAPH_NEED_MEMORY, \
                                         call_name_};                                              \
        use_is_source_[n_uses_++] = (source);                                                      \
    }
#define CHECK_host_mem(T, n, b)
#define CHECK_addr(T, n)
#define CHECK_host_fn(T, n)
#define CHECK_host_fn_arg(T, n)

/* What goes back: every out and inout's value (zeros where NULL), each out array's count and
 * elements; and handles made are the student's. */
#define ENC_void
#define ENC_in(T, n)
#define ENC_in_default(T, n, v)
#define ENC_out(T, n)                                     \
    w_put(&w_, n ? (const void *)n : NULL, sizeof(*(T)0)); \
    if (err_ == cudaSuccess && n) MADE(T, n);
#define ENC_inout(T, n) w_put(&w_, n ? (const void *)n : NULL, sizeof(*(T)0));
#define ENC_out_array(T, n, c)                                       \
    {                                                                \
        uint64_t count_ = n && c ? (uint64_t)*(c) : 0;               \
        if (count_ > ARRAY_MAX) count_ = ARRAY_MAX;                  \
        w_put(&w_, &count_, sizeof(count_));                         \
        if (count_) w_put(&w_, n, (size_t)count_ * sizeof(*(T)0));   \
    }
#define ENC_dst(T, n, b)
#define ENC_src(T, n, b)
#define ENC_host_mem(T, n, b)
#define ENC_addr(T, n)
#define ENC_host_fn(T, n)
#define ENC_host_fn_arg(T, n)

/* The per-thread entry points of the list's calls that have one (its per_thread field),
 * which the referee performs for a command marked LAB_CALL_PER_THREAD: declared here, as the
 * simulator's cuda_runtime_api.h declares them, because the toolkit's declares them only to
 * a file compiled for per-thread default streams (libcudart defines them all the same). */
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
    CUDA_CALLS_IF_PER_THREAD(per_thread, ret name##_##per_thread CUDA_CALLS_PARAMS(params);)
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

/* Who performs a call: the memory and graph calls are this file's, the rest the backend's. */
#define PERFORM_memory(name, params) remote_##name CUDA_CALLS_ARGS(params)
#define PERFORM_device(name, params) name CUDA_CALLS_ARGS(params)
#define PERFORM_error PERFORM_device
#define PERFORM_copy PERFORM_device
#define PERFORM_stream PERFORM_device
#define PERFORM_event PERFORM_device
#define PERFORM_graph PERFORM_memory
/* A command marked LAB_CALL_PER_THREAD: the backend's per-thread entry point of the call
 * (the graph calls, this file's, read t_per_thread instead). A call without one never comes
 * so (serve_cuda refuses it first). */
#define HAS_PER_THREAD_ptsz true
#define HAS_PER_THREAD_ptds true
#define HAS_PER_THREAD_none false
#define PERFORM_PER_THREAD_ptsz(name, params) name##_ptsz CUDA_CALLS_ARGS(params)
#define PERFORM_PER_THREAD_ptds(name, params) name##_ptds CUDA_CALLS_ARGS(params)
#define PERFORM_PER_THREAD_none(name, params) cudaErrorNotSupported
#define OWN_PER_THREAD_graph true
#define OWN_PER_THREAD_memory false
#define OWN_PER_THREAD_device false
#define OWN_PER_THREAD_error false
#define OWN_PER_THREAD_copy false
#define OWN_PER_THREAD_stream false
#define OWN_PER_THREAD_event false

#define SERVE_CALL(name, kind, per_thread, params)                                         \
    {                                                                                      \
        if (per_thread_ && !HAS_PER_THREAD_##per_thread) return -1;                        \
        reader rd_ = {payload, payload + len, false};                                      \
        bool bad_handle_ = false, bad_memory_ = false, to_output_ = false, from_host_ = false; \
        size_t staged_in_ = 0, staged_out_ = 0;                                            \
        static const char call_name_[] = #name;                                            \
        cudaStream_t stream_ = 0;                                                          \
        lab_graph_use uses_[4];                                                            \
        bool use_is_source_[4];                                                            \
        size_t n_uses_ = 0;                                                                \
        (void)call_name_;                                                                  \
        (void)use_is_source_;                                                              \
        (void)staged_in_;                                                                  \
        (void)staged_out_;                                                                 \
        (void)bad_handle_;                                                                 \
        (void)bad_memory_;                                                                 \
        (void)to_output_;                                                                  \
        (void)from_host_;                                                                  \
        CUDA_CALLS_EACH(DEC_, params)                                                      \
        if (rd_.short_) return -1;                                                         \
        CUDA_CALLS_EACH(CHECK_, params)                                                    \
        cudaError_t err_;                                                                  \
        if (bad_handle_) {                                                                 \
            refuse(#name " with a handle that is not the program's");                     \
            err_ = cudaErrorInvalidResourceHandle;                                         \
        } else if (bad_memory_) {                                                          \
            refuse(#name " with memory that is not the program's");                       \
            err_ = cudaErrorInvalidValue;                                                  \
        } else if (to_output_ && from_host_) {                                             \
            refuse(#name " into a lab output from host memory (a result must come from the device)"); \
            err_ = cudaErrorInvalidValue;                                                  \
        } else {                                                                           \
            charge_staging_copy(staged_in_, true);                                         \
            err_ = per_thread_ && !OWN_PER_THREAD_##kind ? PERFORM_PER_THREAD_##per_thread(name, params) \
                                                         : PERFORM_##kind(name, params);   \
            charge_staging_copy(staged_out_, false);                                       \
            for (size_t u_ = 0; u_ < n_uses_; u_++)                                        \
                if (to_output_ && use_is_source_[u_]) uses_[u_].need = LAB_GRAPH_NEED_DEVICE; \
            if (err_ == cudaSuccess) note_captured(stream_, uses_, n_uses_);               \
        }                                                                                  \
        writer w_ = {t_reply, t_reply + sizeof(t_reply)};                                  \
        int32_t head_[2] = {(int32_t)err_, 0};                                             \
        w_put(&w_, head_, sizeof(head_));                                                  \
        CUDA_CALLS_EACH(ENC_, params)                                                      \
        if (err_ == cudaSuccess) ended(CI_##name, destroyed_);                             \
        note_failed(#name, err_);                                                          \
        reply(rec, t_reply, (size_t)(w_.at - t_reply));                                    \
        return 0;                                                                          \
    }

/* The error strings: the text itself is the reply. */
#define SERVE_PURE(name, params)                        \
    {                                                   \
        if (per_thread_) return -1;                     \
        reader rd_ = {payload, payload + len, false};   \
        int32_t code_ = 0;                              \
        r_get(&rd_, &code_, sizeof(code_));             \
        const char *t_ = name((cudaError_t)code_);      \
        reply(rec, t_, strlen(t_));                     \
        return 0;                                       \
    }

#define SERVE_async(name, kind, per_thread, params) SERVE_CALL(name, kind, per_thread, params)
#define SERVE_sync(name, kind, per_thread, params) SERVE_CALL(name, kind, per_thread, params)
#define SERVE_host(name, kind, per_thread, params) SERVE_CALL(name, kind, per_thread, params)
#define SERVE_pure(name, kind, per_thread, params) SERVE_PURE(name, params)

/* The value of a call's first slot: the handle a destroy call names. */
static uint64_t first_slot(const unsigned char *payload, uint32_t len) {
    uint64_t v = 0;
    if (len >= 8) memcpy(&v, payload, sizeof(v));
    return v;
}

/* Performs CUDA call index with payload (its slots, after the header) and replies (reply():
 * a one-way call's answer is not written; its error is given to the next call that waits);
 * per_thread_: as its per-thread entry point (LAB_CALL_PER_THREAD). Returns -1 for a payload
 * no client sends. */
static int serve_cuda(int index, bool per_thread_, const lab_ring_record *rec, const unsigned char *payload,
                      uint32_t len) {
    uint64_t destroyed_ = first_slot(payload, len);
    (void)destroyed_;
    switch (index) {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
    case CI_##name: SERVE_##sync(name, kind, per_thread, params)
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
    default: return -1;
    }
}

/* ---- kernels ---------------------------------------------------------------------------- */

/* Whether a process kernel's parameters are the lab's workload's. */
static bool process_params_ok(const kernels_process_params *p) {
    const kernels_process_params *lab = &R.ctx->buffers->workload.process;
    return p->mul == lab->mul && p->add == lab->add && p->iters == lab->iters;
}

static int serve_kernel(uint32_t op, const lab_ring_record *rec, const unsigned char *payload, uint32_t len) {
    reader rd = {payload, payload + len, false};
    uint64_t a[6] = {0};
    cudaError_t e = cudaSuccess;
    if (op == LAB_OP_KERNEL_PROCESS || op == LAB_OP_KERNEL_WIDEN || op == LAB_OP_KERNEL_NARROW) {
        /* process, or lab 09's widen (4 bytes in, 8 out an element) and narrow (8 in, 4 out). */
        const char *name = op == LAB_OP_KERNEL_WIDEN    ? "kernels_widen"
                           : op == LAB_OP_KERNEL_NARROW ? "kernels_narrow"
                                                        : "kernels_process";
        size_t out_size = op == LAB_OP_KERNEL_WIDEN ? sizeof(uint64_t) : sizeof(uint32_t);
        size_t in_size = op == LAB_OP_KERNEL_NARROW ? sizeof(uint64_t) : sizeof(uint32_t);
        kernels_process_params params;
        r_get(&rd, &a[0], 8); /* out */
        r_get(&rd, &a[1], 8); /* in */
        r_get(&rd, &a[2], 8); /* n */
        r_get(&rd, &params, sizeof(params));
        r_get(&rd, &a[3], 8); /* stream */
        if (rd.short_) return -1;
        char said[900];
        bool sized = a[2] <= SIZE_MAX / sizeof(uint64_t);
        bool out_ok = sized && device_memory_ok(a[0], (size_t)a[2] * out_size);
        if (!out_ok || !device_memory_ok(a[1], (size_t)a[2] * in_size)) {
            char freed[700];
            freed_words(out_ok ? a[1] : a[0], freed, sizeof(freed));
            snprintf(said, sizeof(said), "%s on memory that is not the program's device memory%s%s%s", name,
                     freed[0] ? " (" : "", freed, freed[0] ? ")" : "");
            refuse(said);
            e = cudaErrorInvalidValue;
        } else if (!stream_ok((cudaStream_t)(uintptr_t)a[3])) {
            snprintf(said, sizeof(said), "%s on a stream that is not the program's", name);
            refuse(said);
            e = cudaErrorInvalidResourceHandle;
        } else if (!process_params_ok(&params)) {
            /* Another f^iters (iters = 0 is a copy) is not the lab's kernel: its output would
             * pass for the lab's work at a fraction of its cost. */
            snprintf(said, sizeof(said), "%s with other parameters than the lab's (give it lab_get_workload(ctx)->process)",
                     name);
            refuse(said);
            e = cudaErrorInvalidValue;
        } else if (op == LAB_OP_KERNEL_WIDEN) {
            e = kernels_widen((uint64_t *)(uintptr_t)a[0], (const uint32_t *)(uintptr_t)a[1], (size_t)a[2], params,
                              (cudaStream_t)(uintptr_t)a[3]);
        } else if (op == LAB_OP_KERNEL_NARROW) {
            e = kernels_narrow((uint32_t *)(uintptr_t)a[0], (const uint64_t *)(uintptr_t)a[1], (size_t)a[2], params,
                               (cudaStream_t)(uintptr_t)a[3]);
        } else {
            e = kernels_process((uint32_t *)(uintptr_t)a[0], (const uint32_t *)(uintptr_t)a[1], (size_t)a[2], params,
                                (cudaStream_t)(uintptr_t)a[3]);
        }
        if (e == cudaSuccess) {
            lab_graph_use uses[2] = {{a[0], (uint64_t)a[2] * out_size, LAB_GRAPH_NEED_DEVICE, name},
                                     {a[1], (uint64_t)a[2] * in_size, LAB_GRAPH_NEED_DEVICE, name}};
            note_captured((cudaStream_t)(uintptr_t)a[3], uses, 2);
        }
    } else if (op == LAB_OP_KERNEL_SPIN) {
        for (int i = 0; i < 6; i++) r_get(&rd, &a[i], 8); /* marks, blocks, threads, ns, mark, stream */
        if (rd.short_) return -1;
        if (a[1] > UINT32_MAX || a[2] > UINT32_MAX || a[4] > UINT32_MAX ||
            (a[0] && !device_memory_ok(a[0], (size_t)a[1] * sizeof(uint32_t)))) {
            refuse("kernels_spin on memory that is not the program's device memory");
            e = cudaErrorInvalidValue;
        } else if (!stream_ok((cudaStream_t)(uintptr_t)a[5])) {
            refuse("kernels_spin on a stream that is not the program's");
            e = cudaErrorInvalidResourceHandle;
        } else {
            e = kernels_spin((uint32_t *)(uintptr_t)a[0], (uint32_t)a[1], (uint32_t)a[2], a[3], (uint32_t)a[4],
                             (cudaStream_t)(uintptr_t)a[5]);
            lab_graph_use marks = {a[0], (uint64_t)a[1] * sizeof(uint32_t), LAB_GRAPH_NEED_DEVICE, "kernels_spin"};
            if (e == cudaSuccess && a[0]) note_captured((cudaStream_t)(uintptr_t)a[5], &marks, 1);
        }
    } else {
        for (int i = 0; i < 4; i++) r_get(&rd, &a[i], 8); /* sum, in, n, stream */
        if (rd.short_) return -1;
        if (a[2] > SIZE_MAX / sizeof(uint32_t) || !device_memory_ok(a[0], sizeof(uint64_t)) ||
            !device_memory_ok(a[1], (size_t)a[2] * sizeof(uint32_t))) {
            refuse("kernels_checksum on memory that is not the program's device memory");
            e = cudaErrorInvalidValue;
        } else if (!stream_ok((cudaStream_t)(uintptr_t)a[3])) {
            refuse("kernels_checksum on a stream that is not the program's");
            e = cudaErrorInvalidResourceHandle;
        } else {
            e = kernels_checksum((uint64_t *)(uintptr_t)a[0], (const uint32_t *)(uintptr_t)a[1], (size_t)a[2],
                                 (cudaStream_t)(uintptr_t)a[3]);
            lab_graph_use uses[2] = {{a[0], sizeof(uint64_t), LAB_GRAPH_NEED_DEVICE, "kernels_checksum"},
                                     {a[1], (uint64_t)a[2] * sizeof(uint32_t), LAB_GRAPH_NEED_DEVICE, "kernels_checksum"}};
            if (e == cudaSuccess) note_captured((cudaStream_t)(uintptr_t)a[3], uses, 2);
        }
    }
    /* Answered as every call is; on a real device the student's process does not wait for it,
     * and the error stays the runtime's last error, as an asynchronous launch error does. */
    note_failed(op == LAB_OP_KERNEL_SPIN       ? "kernels_spin"
                : op == LAB_OP_KERNEL_CHECKSUM ? "kernels_checksum"
                : op == LAB_OP_KERNEL_WIDEN    ? "kernels_widen"
                : op == LAB_OP_KERNEL_NARROW   ? "kernels_narrow"
                                               : "kernels_process",
                e);
    int32_t answer[2] = {(int32_t)e, 0};
    reply(rec, answer, sizeof(answer));
    return 0;
}

/* ---- lab.h's calls --------------------------------------------------------------------- */

static int serve_lab(uint32_t op, const lab_ring_record *rec, const unsigned char *payload, uint32_t len) {
    reader rd = {payload, payload + len, false};
    lab_ctx *ctx = R.ctx;
    const lab_buffers *b = ctx->buffers;
    switch (op) {
    case LAB_OP_CONTEXT: {
        lab_context_reply c;
        memset(&c, 0, sizeof(c));
        const lab_workload *w = &b->workload;
        c.batches = w->batches;
        c.steps = w->steps;
        c.batch_elems = w->batch_elems;
        c.batch_bytes = w->batch_bytes;
        c.process_mul = w->process.mul;
        c.process_add = w->process.add;
        c.process_iters = w->process.iters;
        c.flags = (LAB_SPEC.load_us > 0 || LAB_SPEC.batch_load_us ? LAB_CONTEXT_LOADER : 0) |
                  (b->pending ? LAB_CONTEXT_REQUESTS : 0);
        reply(rec, &c, sizeof(c));
        return 0;
    }
    case LAB_OP_BATCHES: {
        uint32_t first = 0;
        r_get(&rd, &first, sizeof(first));
        if (rd.short_) return -1;
        uint64_t pairs[2 * LAB_BATCHES_PER_REPLY];
        size_t n = 0;
        for (uint32_t i = first; i < (uint32_t)b->workload.batches && n < 2 * LAB_BATCHES_PER_REPLY; i++) {
            pairs[n++] = (uint64_t)(uintptr_t)b->inputs[i];
            pairs[n++] = (uint64_t)(uintptr_t)b->outputs[i];
        }
        reply(rec, pairs, n * sizeof(uint64_t));
        return 0;
    }
    case LAB_OP_STAGING: {
        uint64_t want = 0;
        r_get(&rd, &want, sizeof(want));
        if (rd.short_) return -1;
        uint64_t at = 0;
        if (want > R.staging_bytes && want <= SHARED_BYTES / 4) {
            if (R.staging) lab_arena_release(R.arena, R.staging, LAB_ARENA_STAGING);
            R.staging = lab_arena_alloc(R.arena, (size_t)want, LAB_ARENA_STAGING);
            R.staging_bytes = R.staging ? (size_t)want : 0;
        }
        if (R.staging && want <= R.staging_bytes) at = (uint64_t)(uintptr_t)R.staging;
        reply(rec, &at, sizeof(at));
        return 0;
    }
    case LAB_OP_LOAD_BATCH: {
        int32_t batch = 0;
        uint64_t dst = 0;
        r_get(&rd, &batch, sizeof(batch));
        r_get(&rd, &dst, sizeof(dst));
        if (rd.short_) return -1;
        lab_arena_owner owner = LAB_ARENA_INPUT;
        /* Device memory the loader refuses with its own message, and writes nothing. */
        bool device = dst && set_covers(&R.devmem, (uintptr_t)dst, 1);
        if (dst && !device && (!lab_arena_find(R.arena, (void *)(uintptr_t)dst, b->workload.batch_bytes, NULL, NULL, &owner) ||
                    (owner != LAB_ARENA_STUDENT && owner != LAB_ARENA_STAGING))) {
            refuse("lab_load_batch into memory that is not the program's");
            reply_int(rec, 1);
            return 0;
        }
        /* Into staging, the client copies the batch on into the student's own buffer, and
         * tells that copy as one of the program's (LAB_OP_HOST_COPY). */
        reply_int(rec, lab_load_batch(ctx, batch, (void *)(uintptr_t)dst));
        return 0;
    }
    case LAB_OP_WAIT_REQUEST: {
        int32_t i = 0;
        r_get(&rd, &i, sizeof(i));
        if (rd.short_) return -1;
        lab_wait_request(ctx, i);
        reply_int(rec, 0);
        return 0;
    }
    case LAB_OP_BACKGROUND: {
        uint64_t s = 0;
        r_get(&rd, &s, sizeof(s));
        if (rd.short_) return -1;
        if (!stream_ok((cudaStream_t)(uintptr_t)s)) {
            refuse("lab_background on a stream that is not the program's");
            reply_int(rec, 1);
            return 0;
        }
        reply_int(rec, lab_background(ctx, (cudaStream_t)(uintptr_t)s));
        return 0;
    }
    case LAB_OP_REPORT_MS: {
        double ms = 0;
        char stage[260];
        bool null = false;
        r_get(&rd, &ms, sizeof(ms));
        if (!r_string(&rd, stage, sizeof(stage), &null)) return -1;
        lab_report_ms(ctx, null ? NULL : stage, ms);
        reply_int(rec, 0);
        return 0;
    }
    case LAB_OP_HOST_MS: {
        double ms = lab_host_ms();
        reply(rec, &ms, sizeof(ms));
        return 0;
    }
    case LAB_OP_NAME_STREAM:
    case LAB_OP_NAME_EVENT: {
        uint64_t h = 0;
        char name[260];
        bool null = false;
        r_get(&rd, &h, sizeof(h));
        if (!r_string(&rd, name, sizeof(name), &null)) return -1;
        /* Only a stream or event the student may name (its own, or the runtime's streams):
         * a name cannot reach the harness's. */
        if (null) {
        } else if (op == LAB_OP_NAME_STREAM) {
            if (stream_ok((cudaStream_t)(uintptr_t)h)) lab_name_stream(ctx, (cudaStream_t)(uintptr_t)h, name);
        } else if (set_has(&R.events, (uintptr_t)h)) {
            lab_name_event(ctx, (cudaEvent_t)(uintptr_t)h, name);
        }
        reply_int(rec, 0);
        return 0;
    }
    case LAB_OP_REPORT_CUDA_ERROR: {
        int32_t v[2] = {0, 0};
        char call[260], file[260];
        bool n1 = false, n2 = false;
        r_get(&rd, v, sizeof(v));
        if (!r_string(&rd, call, sizeof(call), &n1) || !r_string(&rd, file, sizeof(file), &n2)) return -1;
        lab_report_cuda_error(n1 ? "(a call)" : call, n2 ? "lab.c" : file, v[0], (cudaError_t)v[1]);
        reply_int(rec, 0);
        return 0;
    }
    case LAB_OP_KERNEL_PROCESS:
    case LAB_OP_KERNEL_SPIN:
    case LAB_OP_KERNEL_CHECKSUM:
    case LAB_OP_KERNEL_WIDEN:
    case LAB_OP_KERNEL_NARROW: return serve_kernel(op, rec, payload, len);
    case LAB_OP_HOST_COPY: /* charged in serve(), before any other command's charge */
        /* The host lane's span of the copy, at the student's line (a host function's
         * copies are its op's work). */
        if (t_ring == R.ref.ring) trace_record_api(LAB_HOST_COPY_SPAN, R.copy_t0, R.copy_t1);
        if (!t_one_way) reply_int(rec, 0);
        return 0;
    default: return -1;
    }
}

/* ---- the student's device reset ---------------------------------------------------------- */

/* cudaDeviceReset from the student's process resets what is that process's on the device, as
 * it would in a program of its own: its graphs, events and streams are destroyed and its
 * device memory freed, after the device has finished its work. The lab's own buffers and
 * the baseline's are not the student's, and stay. */
static void reset_student_device(const lab_ring_record *rec) {
    cudaError_t e = cudaDeviceSynchronize();
    for (size_t i = 0; i < R.execs.n; i++) (void)cudaGraphExecDestroy((cudaGraphExec_t)R.execs.e[i].start);
    for (size_t i = 0; i < R.graphs.n; i++) (void)cudaGraphDestroy((cudaGraph_t)R.graphs.e[i].start);
    for (size_t i = 0; i < R.events.n; i++) (void)cudaEventDestroy((cudaEvent_t)R.events.e[i].start);
    for (size_t i = 0; i < R.streams.n; i++) (void)cudaStreamDestroy((cudaStream_t)R.streams.e[i].start);
    for (size_t i = 0; i < R.devmem.n; i++) (void)cudaFree((void *)R.devmem.e[i].start);
    R.execs.n = R.graphs.n = R.events.n = R.streams.n = R.devmem.n = R.capturing.n = 0;
    lab_graph_memory_clear(R.graph_mem);
    (void)cudaGetLastError();
    int32_t head[2] = {(int32_t)e, 0};
    reply(rec, head, sizeof(head));
}

/* ---- serving a phase ------------------------------------------------------------------- */

static int serve(void *ring, lab_referee *ref, const lab_ring_record *rec, const void *payload) {
    (void)ref;
    lab_ring *outer = t_ring;
    t_ring = ring;
    if (rec->len < sizeof(lab_call_header)) return -1;
    lab_call_header h;
    memcpy(&h, payload, sizeof(h));
    bool outer_one_way = t_one_way, outer_error_first = t_error_first;
    t_one_way = (h.site & LAB_CALL_ONE_WAY) != 0;
    bool per_thread = (h.site & LAB_CALL_PER_THREAD) != 0, outer_per_thread = t_per_thread;
    t_per_thread = per_thread;
    h.site &= ~(LAB_CALL_ONE_WAY | LAB_CALL_PER_THREAD);
    bool cuda = rec->op >= LAB_OP_CUDA && rec->op - LAB_OP_CUDA < CI_COUNT;
    bool launch = rec->op == LAB_OP_KERNEL_PROCESS || rec->op == LAB_OP_KERNEL_SPIN ||
                  rec->op == LAB_OP_KERNEL_CHECKSUM || rec->op == LAB_OP_KERNEL_WIDEN ||
                  rec->op == LAB_OP_KERNEL_NARROW;
    call_sync kind = cuda ? cuda_sync[rec->op - LAB_OP_CUDA] : CALL_sync;
    t_error_first = (cuda && kind != CALL_pure) || launch;
    const unsigned char *args = (const unsigned char *)payload + sizeof(h);
    uint32_t len = rec->len - (uint32_t)sizeof(h);
    if (rec->op == LAB_OP_HOST_COPY) {
        charge_host_copy(ring == R.ref.ring, args, len);
    } else {
        charge_host_work(0);
        charge_command(ring == R.ref.ring, !(launch || kind == CALL_async));
    }
    /* Every op the call records carries the student's line. */
    trace_call_site_enter((const void *)(uintptr_t)((h.site & ~(uint64_t)LAB_SOURCE_LINE_STUDENT) | LAB_SOURCE_LINE_STUDENT));
    int rc;
    if (rec->op == LAB_OP_CUDA + CI_cudaDeviceReset && !per_thread) {
        reset_student_device(rec);
        rc = 0;
    } else if (rec->op >= LAB_OP_CUDA) {
        /* serve_cuda refuses a per-thread command of a call that has no such entry point */
        int index = (int)(rec->op - LAB_OP_CUDA);
        rc = index < CI_COUNT ? serve_cuda(index, per_thread, rec, args, len) : -1;
    } else {
        rc = per_thread ? -1 : serve_lab(rec->op, rec, args, len); /* only CUDA calls have one */
    }
    trace_call_site_exit();
    if (R.simulated) R.child_cpu_ns = child_cpu_ns();
    t_ring = outer;
    t_one_way = outer_one_way;
    t_error_first = outer_error_first;
    t_per_thread = outer_per_thread;
    return rc;
}

/* The student's process's words' addresses as a fault's frames: the interrupted instruction,
 * then each caller's call instruction (return address - 1), all in the student's binary.
 * Async-signal-safe. */
static void frames_of(const lab_last_words *w, lab_fault *f) {
    uint32_t n = w->n_pcs < LAB_LAST_WORDS_PCS ? w->n_pcs : LAB_LAST_WORDS_PCS;
    for (uint32_t i = 0; i < n && f->n_frames < LAB_FAULT_MAX_FRAMES; i++) {
        uint64_t pc = w->pcs[i] - (i > 0 ? 1 : 0);
        f->frames[f->n_frames++] = (uintptr_t)((pc & ~(uint64_t)LAB_SOURCE_LINE_STUDENT) | LAB_SOURCE_LINE_STUDENT);
    }
    f->pc = f->n_frames ? f->frames[0] : 0;
}

/* Whether a fault's address lies in one of the student's results (lab_output), which its
 * process may read and never write: which batch, and the byte. */
static void find_result(lab_fault *f) {
    const lab_buffers *b = R.ctx ? R.ctx->buffers : NULL;
    if (!b || !b->outputs) return;
    size_t bytes = b->workload.batch_bytes;
    for (int i = 0; i < b->workload.batches; i++) {
        uintptr_t base = (uintptr_t)b->outputs[i];
        if (base && f->addr >= base && f->addr - base < bytes) {
            f->in_result = true;
            f->result_batch = i;
            f->result_offset = f->addr - base;
            f->result_bytes = bytes;
            f->result_pinned = b->output_memory == LAB_MEMORY_PINNED;
            return;
        }
    }
}

/* The student's process did not come back from a phase: say what happened, as the guard
 * says it of a lab in one process, and end. */
static _Noreturn void ended_badly(lab_phase_end end) {
    if (end != LAB_PHASE_DIED) {
        fprintf(stderr, "\nstreamlab: %s: the lab's process %s, and was ended.\n", LAB_SPEC.id,
                end == LAB_PHASE_BROKEN ? "wrote what no lab program writes into the memory it shares with the "
                                          "harness (its command channel)"
                                        : "ran past its time");
        if (end == LAB_PHASE_BROKEN) lab_guard_student_broke();
        lab_guard_student_ended(SIGKILL, -1, NULL);
    }
    int st = R.ref.status;
    lab_last_words w;
    memcpy(&w, &R.ref.control->last_words, sizeof(w));
    if (WIFEXITED(st)) {
        int status = WEXITSTATUS(st);
        if (w.kind == LAB_END_EXIT) lab_guard_student_ended(0, status, NULL);
        fprintf(stderr, "\nstreamlab: %s: the lab's process ended (exit status %d) without finishing the phase%s\n",
                LAB_SPEC.id, status, status == 70 ? ": its connection to the harness broke (see above)" : "");
        if (status == 70) lab_guard_student_broke();
        /* _exit() or an exit that left no last words: an early exit all the same. */
        lab_guard_student_ended(0, status, NULL);
    }
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
    lab_fault f;
    memset(&f, 0, sizeof(f));
    if (w.kind == LAB_END_SIGNAL && w.signal == sig) {
        f.addr = (uintptr_t)w.fault_addr;
        frames_of(&w, &f);
        f.access = w.access == 2 ? LAB_FAULT_WRITE : w.access == 1 ? LAB_FAULT_READ : LAB_FAULT_ACCESS_UNKNOWN;
        if (sig == SIGSEGV && f.access != LAB_FAULT_READ) find_result(&f);
    }
    lab_guard_student_ended(sig, -1, &f);
}

static int phase(lab_ctx *ctx, lab_phase p) {
    R.ctx = ctx;
    R.failed_call[0] = '\0';
    if (R.simulated) R.child_cpu_ns = child_cpu_ns();
    R.in_run = p == LAB_PHASE_RUN;
    R.inputs_read.n = 0;
    R.copy_dsts.n = 0;
    if (R.in_run) lab_host_history_begin_run(&R.history);
    if (R.in_run && R.history.runs > 1)
        lab_host_charge_begin_with(&R.host_charge, LAB_HOST_CHARGE_FILTERED_START_NS);
    else
        lab_host_charge_begin(&R.host_charge);
    lab_host_charge_begin(&R.fn_charge);
    if (R.simulated && R.in_run) lab_backend_host_work(REFEREE_RUN_START_NS);
    int rc = 0;
    lab_phase_end end = lab_referee_phase(&R.ref, p, serve, R.ref.ring, R.timeout_ms, &rc);
    if (end != LAB_PHASE_ENDED) ended_badly(end);
    return rc;
}

/* The guard's locator (guard.h): asks the student's process where it is and waits a moment
 * for the answer. Async-signal-safe. */
static bool locate_student(lab_fault *f) {
    if (!R.active || R.ref.ended) return false;
    lab_last_words *w = &R.ref.control->last_words;
    __atomic_store_n(&w->kind, LAB_END_NONE, __ATOMIC_SEQ_CST);
    if (kill(R.ref.pid, LAB_WHERE_SIGNAL) != 0) return false;
    for (int i = 0; i < 100 && __atomic_load_n(&w->kind, __ATOMIC_SEQ_CST) != LAB_END_WHERE; i++) {
        struct timespec t = {0, 2 * 1000000L};
        nanosleep(&t, NULL);
    }
    if (__atomic_load_n(&w->kind, __ATOMIC_SEQ_CST) != LAB_END_WHERE) return false;
    memset(f, 0, sizeof(*f));
    frames_of(w, f);
    return f->n_frames > 0;
}

int lab_remote_setup(lab_ctx *ctx) { return phase(ctx, LAB_PHASE_SETUP); }
int lab_remote_run(lab_ctx *ctx) { return phase(ctx, LAB_PHASE_RUN); }
void lab_remote_ready(void) {
    if (R.active) lab_referee_ready(&R.ref);
}
void lab_remote_teardown(lab_ctx *ctx) { (void)phase(ctx, LAB_PHASE_TEARDOWN); }

int lab_remote_default_path(char *out, size_t len) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return -1;
    self[n] = '\0';
    int m = snprintf(out, len, "%s_student", self);
    return m > 0 && (size_t)m < len ? 0 : -1;
}
