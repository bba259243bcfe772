/* labs/referee/ring.h: the command ring between a student's process and the referee.
 *
 * The student's code runs in a process of its own; every CUDA call, kernel launch and lab_*
 * call it makes is a command that its client library writes into this ring, in memory
 * mapped by both processes, and the referee (the lab binary's parent process, which owns
 * the device, the clock, the oracle and the verdict) reads and performs. It is a driver's
 * push buffer in miniature:
 *
 *   - one producer (the student's process) and one consumer (the referee);
 *   - records of any length up to a quarter of the ring, 8-byte aligned, each with an
 *     operation code and a sequence number; a record never wraps (a padding record fills
 *     the end of the ring instead);
 *   - asynchronous commands are one-way: the producer writes and goes on;
 *   - a synchronising command waits for its reply, which the consumer writes into the
 *     reply area and publishes with the command's sequence number;
 *   - both sides spin briefly, then sleep on a futex (the ring is shared memory, so the
 *     futexes are the shared kind), so two busy processes do not hold two cores while the
 *     other side thinks.
 *
 * The consumer trusts nothing in the ring: it keeps its own read position, checks the
 * producer's write position and every record's length before using it, and copies each
 * record out of shared memory before looking at it, so a producer that rewrites a record
 * while it is being read, or writes nonsense, costs the referee nothing but a refusal
 * (LAB_RING_BROKEN). The producer trusts the consumer (its reply is what it asked for). */
#ifndef STREAMLAB_LAB_RING_H
#define STREAMLAB_LAB_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One side's handle on a ring (private to its process; the ring itself is in shared
 * memory). */
typedef struct lab_ring lab_ring;

/* Largest reply a synchronising command can receive. */
#define LAB_RING_REPLY_MAX 4096u

/* A record's header as the consumer copied it. */
typedef struct lab_ring_record {
    uint32_t op;  /* the operation, from the protocol's list (never 0: 0 is padding) */
    uint32_t len; /* payload bytes */
    uint64_t seq; /* 1, 2, ...: the producer's count of records (padding not counted) */
} lab_ring_record;

typedef enum lab_ring_status {
    LAB_RING_OK = 0,
    LAB_RING_TIMEOUT = 1, /* nothing arrived in the time allowed */
    LAB_RING_BROKEN = 2,  /* the producer wrote something no correct producer writes */
    LAB_RING_TOO_BIG = 3  /* a record larger than the caller's buffer (also broken) */
} lab_ring_status;

/* Bytes of shared memory a ring with `capacity` bytes of records needs (capacity is
 * rounded up to a power of two of at least 4 KiB). */
size_t lab_ring_bytes(size_t capacity);
/* Makes a ring in mem (lab_ring_bytes(capacity) bytes) and returns the consumer's handle:
 * the referee makes the ring, and its handle keeps the capacity and read position in its
 * own memory, out of the producer's reach. NULL when out of memory. */
lab_ring *lab_ring_init(void *mem, size_t capacity);
/* The producer's handle on a ring made by lab_ring_init and mapped at mem in its process. */
lab_ring *lab_ring_attach(void *mem);
void lab_ring_free(lab_ring *r);
/* How long this side looks again before it sleeps (a few microseconds by default,
 * spin.h). 0: it sleeps at once, and spends no CPU time waiting: where the other process
 * charges that time to a clock (the simulator's host), the waiting side must not spin. */
void lab_ring_set_spin_ns(lab_ring *r, uint64_t ns);
/* The largest payload one record can carry. */
size_t lab_ring_max_payload(const lab_ring *r);

/* ---- the producer ---------------------------------------------------------------------- */

/* Room for a record of len payload bytes (at most lab_ring_max_payload): waits while the
 * ring is full. Returns where to write the payload; lab_ring_commit publishes it. */
void *lab_ring_reserve(lab_ring *r, uint32_t op, uint32_t len);
/* Publishes the record lab_ring_reserve made; returns its sequence number. */
uint64_t lab_ring_commit(lab_ring *r);
/* Sends a record in one go: reserve, copy, commit. */
uint64_t lab_ring_send(lab_ring *r, uint32_t op, const void *payload, uint32_t len);
/* Waits for the reply to record seq and copies up to max bytes of it into out; returns the
 * reply's length. */
uint32_t lab_ring_await(lab_ring *r, uint64_t seq, void *out, uint32_t max);

/* ---- the consumer ---------------------------------------------------------------------- */

/* Takes the next record: copies its header into rec and its payload into buf (max bytes).
 * Waits up to timeout_ms (-1: forever) for one to arrive. */
lab_ring_status lab_ring_next(lab_ring *r, lab_ring_record *rec, void *buf, uint32_t max, int timeout_ms);
/* Answers record seq with len bytes (at most LAB_RING_REPLY_MAX) and wakes its producer. */
void lab_ring_reply(lab_ring *r, uint64_t seq, const void *payload, uint32_t len);
/* Records the producer has published and the consumer has not yet taken. */
uint64_t lab_ring_pending(const lab_ring *r);

#ifdef __cplusplus
}
#endif

#endif
