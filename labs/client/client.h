/* labs/client/client.h: the student process's client library, inside: its one connection to
 * the referee, and what it remembers of what the referee gave it (the lab's context, the
 * device allocations, the staging memory, the host functions it queued).
 *
 * The student's binary is the student's lab file, this library and the C library: every
 * CUDA call (cuda_stubs.c), kernel launch (kernels.c) and lab_* call (lab_api.c) is a
 * command to the referee, which owns the device. docs/referee.md. */
#ifndef STREAMLAB_LAB_CLIENT_H
#define STREAMLAB_LAB_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/referee/protocol.h"
#include "labs/referee/student.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A call being made: its payload is built here, then sent. */
typedef struct lab_client_call {
    uint32_t op;
    uint32_t len;
    unsigned char payload[LAB_RING_REPLY_MAX];
} lab_client_call;

/* The connection, made by main() before anything of the student's runs. */
extern lab_student lab_client_student;

/* Starts a call: the header with the call site (the caller's return address). */
void lab_client_begin(lab_client_call *c, uint32_t op, const void *return_address);
/* Sets flags (LAB_CALL_*) in the call's header. */
void lab_client_flag(lab_client_call *c, uint64_t flags);
/* Appends n bytes (rounded up to 8) to the payload. */
void lab_client_put(lab_client_call *c, const void *p, size_t n);
/* Sends the call without waiting (the referee performs it in order). */
void lab_client_send(lab_client_call *c);
/* Sends the call and waits for the reply; returns its length (copied into reply). */
uint32_t lab_client_ask(lab_client_call *c, void *reply, uint32_t max);

/* ---- memory ------------------------------------------------------------------------------ */

/* What a host or device address the student passes is, as the client knows it. */
typedef enum lab_client_memory {
    LAB_CLIENT_NULL,     /* NULL */
    LAB_CLIENT_DEVICE,   /* inside a device allocation the referee returned */
    LAB_CLIENT_SHARED,   /* in the memory both processes map (pinned memory, inputs; outputs,
                            which this process can only read) */
    LAB_CLIENT_PAGEABLE  /* the student's own memory, which the referee cannot see */
} lab_client_memory;

lab_client_memory lab_client_memory_of(const void *p, size_t n);
/* Device allocations, as cudaMalloc returned them and cudaFree freed them. */
void lab_client_device_alloc(void *p, size_t bytes);
void lab_client_device_free(void *p);
/* Shared memory of at least n bytes through which pageable data passes (one at a time: the
 * calls that use it wait for the referee). NULL when the referee has none to give. */
void *lab_client_staging(size_t n);

/* ---- host copies ------------------------------------------------------------------------- */

/* A host copy made for the student's code (memmove where overlap), told to the referee as
 * the student's line at return_address when it is of LAB_HOST_COPY_MIN bytes or more
 * (host_copy.c): lab.h's memcpy and memmove, and the client's own copy of a loaded batch
 * into the student's pageable buffer. */
void *lab_client_copy(void *dst, const void *src, size_t n, bool overlap, const void *return_address);

/* ---- host functions --------------------------------------------------------------------- */

/* A host function and its argument, as cudaLaunchHostFunc queued them: a number the
 * referee sends back when the stream reaches it. */
uint64_t lab_client_host_fn(void (*fn)(void *), void *arg);
/* Starts the thread that runs host functions when the referee asks. */
int lab_client_host_fn_thread(void);
/* Whether the calling thread is running a host function: CUDA calls are not permitted there
 * (cudaErrorNotPermitted, as the runtime may answer; a lab_* call is). */
bool lab_client_in_host_fn(void);

/* The student's process ends now with a message on stderr (a broken connection). */
_Noreturn void lab_client_die(const char *what);

#ifdef __cplusplus
}
#endif

#endif
