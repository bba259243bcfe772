/* labs/referee/ring.c: the command ring between a student's process and the referee (see
 * ring.h). Positions count bytes since the start and only grow; a record is a 16-byte
 * header and its payload rounded up to 16 bytes, so the room left at the end of the ring
 * is always 0 or a whole padding record. */
#define _GNU_SOURCE
#include "labs/referee/ring.h"

#include "labs/referee/spin.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HEADER 16u
#define MIN_CAPACITY 4096u
/* How long a side looks again before it sleeps by default: a few microseconds, about what
 * a command takes the other side to perform. */
#define SPIN_NS 5000u

typedef struct shared {
    _Alignas(64) _Atomic uint64_t head;  /* bytes published by the producer */
    _Atomic uint32_t head_futex;         /* bumped with head, for the consumer to sleep on */
    _Atomic uint32_t consumer_sleeping;
    _Alignas(64) _Atomic uint64_t tail;  /* bytes taken by the consumer */
    _Atomic uint32_t tail_futex;
    _Atomic uint32_t producer_sleeping;
    _Alignas(64) _Atomic uint64_t reply_seq; /* the record the reply area answers */
    _Atomic uint32_t reply_futex;
    _Atomic uint32_t reply_sleeping;
    uint32_t reply_len;
    uint64_t capacity; /* for the producer; the consumer keeps its own copy */
    _Alignas(64) unsigned char reply[LAB_RING_REPLY_MAX];
    _Alignas(64) unsigned char data[];
} shared;

struct lab_ring {
    shared *s;
    uint64_t capacity;
    bool consumer;
    uint64_t tail;     /* consumer: its own read position, never read back from s */
    uint64_t next_seq; /* consumer: the sequence number the next record must carry */
    uint64_t seq;      /* producer: records published */
    uint64_t reserved; /* producer: the bytes of the record being written, 0 when none */
    uint64_t spin_ns;  /* how long to look again before sleeping */
};

static uint64_t round16(uint64_t n) { return (n + 15u) & ~(uint64_t)15u; }

static uint64_t capacity_for(size_t want) {
    uint64_t c = MIN_CAPACITY;
    while (c < want && c < ((uint64_t)1 << 40)) c <<= 1;
    return c;
}

size_t lab_ring_bytes(size_t capacity) { return sizeof(shared) + (size_t)capacity_for(capacity); }

lab_ring *lab_ring_init(void *mem, size_t capacity) {
    lab_ring *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    shared *s = mem;
    memset(s, 0, sizeof(*s));
    s->capacity = capacity_for(capacity);
    r->s = s;
    r->capacity = s->capacity;
    r->consumer = true;
    r->next_seq = 1;
    r->spin_ns = SPIN_NS;
    return r;
}

lab_ring *lab_ring_attach(void *mem) {
    lab_ring *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    r->s = mem;
    r->capacity = r->s->capacity;
    r->spin_ns = SPIN_NS;
    return r;
}

void lab_ring_set_spin_ns(lab_ring *r, uint64_t ns) { r->spin_ns = ns; }

void lab_ring_free(lab_ring *r) { free(r); }

size_t lab_ring_max_payload(const lab_ring *r) { return (size_t)(r->capacity / 4 - HEADER); }

/* Sleeps while *word == seen, up to ms milliseconds (-1: no limit). */
static void futex_sleep(_Atomic uint32_t *word, uint32_t seen, int ms) {
    struct timespec ts, *t = NULL;
    if (ms >= 0) {
        ts.tv_sec = ms / 1000;
        ts.tv_nsec = (long)(ms % 1000) * 1000000L;
        t = &ts;
    }
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, t, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word) { syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* ---- the producer ------------------------------------------------------------------------ */

/* Waits until the consumer has taken enough for `bytes` more to fit. */
static void wait_for_room(lab_ring *r, uint64_t head, uint64_t bytes) {
    shared *s = r->s;
    lab_spin spin = lab_spin_start(r->spin_ns);
    while (head + bytes - atomic_load(&s->tail) > r->capacity) {
        if (lab_spin_again(&spin)) continue;
        uint32_t seen = atomic_load(&s->tail_futex);
        atomic_store(&s->producer_sleeping, 1);
        if (head + bytes - atomic_load(&s->tail) > r->capacity) futex_sleep(&s->tail_futex, seen, 100);
        atomic_store(&s->producer_sleeping, 0);
    }
}

static void put_header(unsigned char *at, uint32_t op, uint32_t len, uint64_t seq) {
    memcpy(at, &op, 4);
    memcpy(at + 4, &len, 4);
    memcpy(at + 8, &seq, 8);
}

void *lab_ring_reserve(lab_ring *r, uint32_t op, uint32_t len) {
    shared *s = r->s;
    uint64_t size = HEADER + round16(len);
    uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    uint64_t pos = head & (r->capacity - 1);
    if (pos + size > r->capacity) {
        /* Pad to the end of the ring; the record starts again at 0. */
        uint64_t pad = r->capacity - pos;
        wait_for_room(r, head, pad);
        put_header(s->data + pos, 0, (uint32_t)(pad - HEADER), 0);
        head += pad;
        atomic_store(&s->head, head);
        pos = 0;
    }
    wait_for_room(r, head, size);
    put_header(s->data + pos, op, len, r->seq + 1);
    r->reserved = size;
    return s->data + pos + HEADER;
}

uint64_t lab_ring_commit(lab_ring *r) {
    shared *s = r->s;
    atomic_fetch_add(&s->head, r->reserved);
    r->reserved = 0;
    atomic_fetch_add(&s->head_futex, 1);
    if (atomic_load(&s->consumer_sleeping)) futex_wake(&s->head_futex);
    return ++r->seq;
}

uint64_t lab_ring_send(lab_ring *r, uint32_t op, const void *payload, uint32_t len) {
    void *at = lab_ring_reserve(r, op, len);
    if (len) memcpy(at, payload, len);
    return lab_ring_commit(r);
}

uint32_t lab_ring_await(lab_ring *r, uint64_t seq, void *out, uint32_t max) {
    shared *s = r->s;
    lab_spin spin = lab_spin_start(r->spin_ns);
    while (atomic_load(&s->reply_seq) != seq) {
        if (lab_spin_again(&spin)) continue;
        uint32_t seen = atomic_load(&s->reply_futex);
        atomic_store(&s->reply_sleeping, 1);
        if (atomic_load(&s->reply_seq) != seq) futex_sleep(&s->reply_futex, seen, 100);
        atomic_store(&s->reply_sleeping, 0);
    }
    uint32_t len = s->reply_len < LAB_RING_REPLY_MAX ? s->reply_len : LAB_RING_REPLY_MAX;
    memcpy(out, s->reply, len < max ? len : max);
    return len;
}

/* ---- the consumer ------------------------------------------------------------------------ */

/* Waits until the producer's position differs from the consumer's; false on timeout. */
static bool wait_for_record(lab_ring *r, int timeout_ms) {
    shared *s = r->s;
    uint64_t deadline = timeout_ms >= 0 ? now_ms() + (uint64_t)timeout_ms : 0;
    lab_spin spin = lab_spin_start(r->spin_ns);
    while (atomic_load(&s->head) == r->tail) {
        if (lab_spin_again(&spin)) continue;
        int ms = -1;
        if (timeout_ms >= 0) {
            uint64_t now = now_ms();
            if (now >= deadline) return false;
            ms = (int)(deadline - now);
        }
        uint32_t seen = atomic_load(&s->head_futex);
        atomic_store(&s->consumer_sleeping, 1);
        if (atomic_load(&s->head) == r->tail) futex_sleep(&s->head_futex, seen, ms);
        atomic_store(&s->consumer_sleeping, 0);
    }
    return true;
}

/* Hands size bytes back to the producer. */
static void release(lab_ring *r, uint64_t size) {
    shared *s = r->s;
    r->tail += size;
    atomic_store(&s->tail, r->tail);
    atomic_fetch_add(&s->tail_futex, 1);
    if (atomic_load(&s->producer_sleeping)) futex_wake(&s->tail_futex);
}

lab_ring_status lab_ring_next(lab_ring *r, lab_ring_record *rec, void *buf, uint32_t max, int timeout_ms) {
    shared *s = r->s;
    for (;;) {
        if (!wait_for_record(r, timeout_ms)) return LAB_RING_TIMEOUT;
        uint64_t head = atomic_load(&s->head);
        uint64_t avail = head - r->tail;
        if (head < r->tail || avail > r->capacity || avail % 16 || avail < HEADER) return LAB_RING_BROKEN;
        uint64_t pos = r->tail & (r->capacity - 1);
        unsigned char header[HEADER];
        memcpy(header, s->data + pos, HEADER);
        lab_ring_record h;
        memcpy(&h.op, header, 4);
        memcpy(&h.len, header + 4, 4);
        memcpy(&h.seq, header + 8, 8);
        uint64_t size = HEADER + round16(h.len);
        if (h.op == 0) {
            /* Padding: exactly the rest of the ring. */
            if (size != r->capacity - pos || size > avail) return LAB_RING_BROKEN;
            release(r, size);
            continue;
        }
        if (size > avail || pos + size > r->capacity || h.seq != r->next_seq) return LAB_RING_BROKEN;
        if (h.len > max) return LAB_RING_TOO_BIG;
        if (h.len) memcpy(buf, s->data + pos + HEADER, h.len);
        r->next_seq++;
        release(r, size);
        *rec = h;
        return LAB_RING_OK;
    }
}

void lab_ring_reply(lab_ring *r, uint64_t seq, const void *payload, uint32_t len) {
    shared *s = r->s;
    if (len > LAB_RING_REPLY_MAX) len = LAB_RING_REPLY_MAX;
    if (len) memcpy(s->reply, payload, len);
    s->reply_len = len;
    atomic_store(&s->reply_seq, seq);
    atomic_fetch_add(&s->reply_futex, 1);
    if (atomic_load(&s->reply_sleeping)) futex_wake(&s->reply_futex);
}

uint64_t lab_ring_pending(const lab_ring *r) {
    uint64_t head = atomic_load(&r->s->head);
    return head >= r->tail ? head - r->tail : 0;
}
