/* labs/referee/protocol.h: what the referee and the student's process say to each other,
 * besides the commands (the CUDA calls, kernels and lab_* calls, numbered from
 * LAB_OP_FIRST_CALL on).
 *
 * The shared memory (shm.h) starts with a control page, then the command ring, then the
 * memory both use for data. The control page is written by the referee (the phase to run)
 * and read by the student's process; what the student's process writes there (its last
 * words when it crashes) the referee reads as untrusted text. */
#ifndef STREAMLAB_LAB_REFEREE_PROTOCOL_H
#define STREAMLAB_LAB_REFEREE_PROTOCOL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The student's process is started with this argument:
 * --referee=FD,BASE,BYTES,OFD,OBASE,OBYTES (the shared memory file's descriptor, where to
 * map it, its size; the same for the outputs' file, which it maps read-only; decimal, the
 * bases in hex). */
#define LAB_REFEREE_ARG "--referee="

/* The sizes of the two shared memory files a lab binary makes (the lab's inputs, the
 * student's pinned memory and staging, the rings; the lab's outputs). Each is mapped whole
 * in both processes: a sandbox that limits address space adds them (grading/run/grade_runner.c).
 * Memory is used only where it is touched. */
#define LAB_SHARED_BYTES ((size_t)8 << 30)
#define LAB_OUTPUTS_BYTES ((size_t)4 << 30)
/* Whoever starts a lab binary under a file size limit (which a memory file's size counts
 * against) makes the two files itself and names their descriptors here, "SHARED,OUTPUTS":
 * each made with MFD_ALLOW_SEALING, at least the size above. */
#define LAB_SHM_FDS_ENV "STREAMLAB_SHM_FDS"

#define LAB_CONTROL_BYTES 4096u
/* The command ring starts after the control page; its size is in the control page. */

typedef enum lab_phase {
    LAB_PHASE_NONE = 0,
    LAB_PHASE_SETUP = 1,
    LAB_PHASE_RUN = 2,
    LAB_PHASE_TEARDOWN = 3,
    LAB_PHASE_EXIT = 4, /* leave: nothing more will be asked */
} lab_phase;

/* What the student's process says as it ends abnormally, for the referee's report. It is
 * the student's process's word only: the referee checks the numbers it uses. */
typedef enum lab_end_kind {
    LAB_END_NONE = 0,
    LAB_END_SIGNAL = 1, /* a fatal signal: signal, fault_addr, pcs */
    LAB_END_EXIT = 2,   /* exit() during a phase: status */
    LAB_END_WHERE = 3,  /* not an end: where the process was when the referee asked (pcs) */
} lab_end_kind;

/* The signal with which the referee asks the student's process where it is (its time has
 * run out); the process answers with LAB_END_WHERE and goes on. */
#define LAB_WHERE_SIGNAL SIGURG

#define LAB_LAST_WORDS_PCS 32

typedef struct lab_last_words {
    uint32_t kind;   /* lab_end_kind */
    int32_t signal;
    int32_t status;
    uint32_t phase;  /* lab_phase it happened in */
    uint64_t fault_addr;
    uint32_t n_pcs;
    uint32_t access; /* a SIGSEGV's: 0 unknown, 1 a read, 2 a write (the page fault's own word) */
    uint64_t pcs[LAB_LAST_WORDS_PCS]; /* innermost first, relative to the student's binary */
} lab_last_words;

typedef struct lab_control {
    uint32_t phase_seq;         /* bumped by the referee for each phase it asks for (a futex;
                                   read and written with __atomic builtins) */
    uint32_t phase;             /* lab_phase: the phase asked for with phase_seq */
    uint64_t ring_bytes;        /* each ring's share of the memory: the command ring after the
                                   control page, then the host functions' ring */
    uint64_t data_offset;       /* where the data memory starts */
    uint32_t flags;             /* LAB_CONTROL_*, set by the referee before the process starts */
    uint32_t pad;
    /* Host functions (cudaLaunchHostFunc): the referee asks for one by bumping fn_seq with
     * its number in fn_token; the student's process runs it on a thread of its own and sets
     * fn_done to that fn_seq when it has returned (both futexes). */
    uint32_t fn_seq;
    uint32_t fn_done;
    uint64_t fn_token;
    /* Before a timed phase the referee bumps ready_seq and wakes the process, which answers
     * with ready_ack = ready_seq and spins until the phase comes: a timed run must not
     * begin with a sleeping process's wake-up (real device only). */
    uint32_t ready_seq;
    uint32_t ready_ack;
    lab_last_words last_words;  /* written by the student's process as it ends */
} lab_control;

#ifndef __cplusplus
_Static_assert(sizeof(lab_control) <= LAB_CONTROL_BYTES, "the control page holds lab_control");
#endif

enum {
    /* The device is real: asynchronous calls go one-way and both sides spin before they
     * sleep, for as long as a lab's waits usually last (a futex's wake-up costs tens of
     * microseconds, a request's latency in lab 06). Without it (the simulator, whose host
     * clock the student's CPU time is charged to) every call waits for its answer and the
     * student's side never spins. */
    LAB_CONTROL_REAL_DEVICE = 1u << 0,
};

/* How long a side waiting on a real device spins before it sleeps (spin.h): longer than a
 * lab's waits usually last. */
#define LAB_REAL_DEVICE_SPIN_NS 20000000ull

/* Records the student's process sends besides calls. */
enum {
    LAB_OP_PHASE_DONE = 1, /* int32: what setup() or run() returned (0 for teardown) */
    LAB_OP_HELLO = 2,      /* the student's process is attached and waits for a phase */
    LAB_OP_FIRST_CALL = 16 /* the calls' numbers start here */
};

/* The calls: lab.h's, kernels.h's, then the CUDA runtime's in the order of
 * cuda_calls/cuda_calls.inc (LAB_OP_CUDA + the entry's index). Each call's payload starts
 * with a lab_call_header; the parameters follow in 8-byte slots. */
enum {
    LAB_OP_CONTEXT = LAB_OP_FIRST_CALL, /* reply: lab_context_reply, then batch pointers */
    LAB_OP_BATCHES,                     /* u32 first: reply: inputs and outputs from there */
    LAB_OP_STAGING,                     /* u64 bytes: reply: where pageable data passes */
    LAB_OP_LOAD_BATCH,
    LAB_OP_WAIT_REQUEST,
    LAB_OP_BACKGROUND,
    LAB_OP_REPORT_MS,
    LAB_OP_HOST_MS,
    LAB_OP_NAME_STREAM,
    LAB_OP_REPORT_CUDA_ERROR,
    LAB_OP_HOST_FN_DONE,
    LAB_OP_KERNEL_PROCESS,
    LAB_OP_KERNEL_SPIN,
    LAB_OP_KERNEL_CHECKSUM,
    LAB_OP_NAME_EVENT,
    LAB_OP_KERNEL_WIDEN,
    LAB_OP_KERNEL_NARROW,
    LAB_OP_HOST_COPY, /* u64 bytes, u64 CPU ns, u64 wall ns, u64 source and u64 destination
                         addresses: a memcpy the student's code made (lab.h); reply: int32 0 on
                         the simulator, none on a GPU (one-way) */
    LAB_OP_CUDA = 64
};

/* LAB_OP_CONTEXT's reply: the workload (lab.h's lab_workload, field by field) and what
 * the lab gives the student. LAB_OP_BATCHES's reply: up to LAB_BATCHES_PER_REPLY pairs of
 * (input, output) addresses from the batch asked for; 0 where the lab gives none. */
typedef struct lab_context_reply {
    int32_t batches;
    int32_t steps;
    uint64_t batch_elems;
    uint64_t batch_bytes;
    uint32_t process_mul, process_add, process_iters;
    uint32_t flags; /* LAB_CONTEXT_* */
} lab_context_reply;

enum {
    LAB_CONTEXT_LOADER = 1u << 0,   /* inputs come only from lab_load_batch */
    LAB_CONTEXT_REQUESTS = 1u << 1, /* batches are requests (lab_wait_request) */
};

#define LAB_BATCHES_PER_REPLY 200

/* Where in the student's program a call was made: the return address of the call,
 * relative to where the student's binary is loaded (the referee finds the line in it). */
typedef struct lab_call_header {
    uint64_t site; /* with LAB_CALL_ONE_WAY when the client does not wait for the answer,
                      LAB_CALL_PER_THREAD for a per-thread entry point */
} lab_call_header;

/* Set in a call's site by the client when it does not wait for the answer (a real device's
 * asynchronous calls and launches): the referee keeps such a call's error, and the next call
 * of the main thread that waits, and has none of its own, answers it, as a launch error
 * shows at the next call that can report it. */
#define LAB_CALL_ONE_WAY ((uint64_t)1 << 63)

/* Set in a CUDA call's site by the client when the student's code called the call's
 * per-thread entry point (name_ptsz or name_ptds: a file compiled with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM, whose CUDA header renames the calls), so that the
 * referee performs that entry point, in which stream 0 and the implicit stream of cudaMemcpy
 * and cudaMemset are the per-thread default stream. Only for calls whose entry in
 * cuda_calls/cuda_calls.inc has one (its per_thread field). */
#define LAB_CALL_PER_THREAD ((uint64_t)1 << 61)

#ifdef __cplusplus
}
#endif

#endif
