/* labs/client/client.c: the student process's connection to the referee (see client.h). */
#define _GNU_SOURCE
#include "labs/client/client.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

lab_student lab_client_student;

/* One call at a time on the main ring (a student's program may call from several threads);
 * the host-function thread has a ring of its own (process.h), which it alone uses. */
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread bool on_host_fn_thread;

bool lab_client_in_host_fn(void) { return on_host_fn_thread; }

/* Where this binary is loaded: call sites are sent relative to it. */
extern const char __executable_start[];

_Noreturn void lab_client_die(const char *what) {
    fprintf(stderr, "streamlab: the lab's connection to its referee broke: %s\n", what);
    _exit(70);
}

void lab_client_begin(lab_client_call *c, uint32_t op, const void *return_address) {
    c->op = op;
    c->len = 0;
    lab_call_header h = {.site = (uint64_t)((uintptr_t)return_address - (uintptr_t)__executable_start)};
    lab_client_put(c, &h, sizeof(h));
}

void lab_client_flag(lab_client_call *c, uint64_t flags) {
    lab_call_header h;
    memcpy(&h, c->payload, sizeof(h));
    h.site |= flags;
    memcpy(c->payload, &h, sizeof(h));
}

void lab_client_put(lab_client_call *c, const void *p, size_t n) {
    size_t padded = (n + 7u) & ~(size_t)7u;
    if (c->len + padded > sizeof(c->payload)) lab_client_die("a call's arguments do not fit its record");
    memset(c->payload + c->len, 0, padded);
    if (n) memcpy(c->payload + c->len, p, n);
    c->len += (uint32_t)padded;
}

void lab_client_send(lab_client_call *c) {
    if (on_host_fn_thread) { /* one-way calls come from the main thread only */
        (void)lab_client_ask(c, NULL, 0);
        return;
    }
    lab_client_flag(c, LAB_CALL_ONE_WAY);
    pthread_mutex_lock(&ring_lock);
    lab_ring_send(lab_client_student.ring, c->op, c->payload, c->len);
    pthread_mutex_unlock(&ring_lock);
}

uint32_t lab_client_ask(lab_client_call *c, void *reply, uint32_t max) {
    if (on_host_fn_thread) {
        lab_ring *r = lab_client_student.fn_ring;
        uint64_t seq = lab_ring_send(r, c->op, c->payload, c->len);
        return lab_ring_await(r, seq, reply, max);
    }
    pthread_mutex_lock(&ring_lock);
    uint64_t seq = lab_ring_send(lab_client_student.ring, c->op, c->payload, c->len);
    uint32_t n = lab_ring_await(lab_client_student.ring, seq, reply, max);
    pthread_mutex_unlock(&ring_lock);
    return n;
}

/* ---- memory ------------------------------------------------------------------------------ */

typedef struct allocation {
    uintptr_t start;
    size_t bytes;
} allocation;

static allocation *allocations;
static size_t n_allocations, cap_allocations;
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;

void lab_client_device_alloc(void *p, size_t bytes) {
    pthread_mutex_lock(&memory_lock);
    if (n_allocations == cap_allocations) {
        size_t cap = cap_allocations ? cap_allocations * 2 : 64;
        allocation *na = realloc(allocations, cap * sizeof(allocation));
        if (!na) lab_client_die("out of memory");
        allocations = na;
        cap_allocations = cap;
    }
    allocations[n_allocations++] = (allocation){(uintptr_t)p, bytes ? bytes : 1};
    pthread_mutex_unlock(&memory_lock);
}

void lab_client_device_free(void *p) {
    pthread_mutex_lock(&memory_lock);
    for (size_t i = 0; i < n_allocations; i++)
        if (allocations[i].start == (uintptr_t)p) {
            allocations[i] = allocations[--n_allocations];
            break;
        }
    pthread_mutex_unlock(&memory_lock);
}

lab_client_memory lab_client_memory_of(const void *p, size_t n) {
    if (!p) return LAB_CLIENT_NULL;
    uintptr_t a = (uintptr_t)p;
    lab_client_memory m = LAB_CLIENT_PAGEABLE;
    pthread_mutex_lock(&memory_lock);
    for (size_t i = 0; i < n_allocations; i++)
        if (a >= allocations[i].start && a - allocations[i].start < allocations[i].bytes) {
            m = LAB_CLIENT_DEVICE;
            break;
        }
    pthread_mutex_unlock(&memory_lock);
    if (m == LAB_CLIENT_PAGEABLE && (lab_shm_contains(&lab_client_student.shm, p, n ? n : 1) ||
                                     lab_shm_contains(&lab_client_student.outputs, p, n ? n : 1)))
        m = LAB_CLIENT_SHARED;
    return m;
}

static void *staging;
static size_t staging_bytes;

void *lab_client_staging(size_t n) {
    if (n <= staging_bytes) return staging;
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_STAGING, __builtin_return_address(0));
    uint64_t want = n;
    lab_client_put(&c, &want, sizeof(want));
    uint64_t at = 0;
    if (lab_client_ask(&c, &at, sizeof(at)) != sizeof(at) || !at) return NULL;
    staging = (void *)(uintptr_t)at;
    staging_bytes = n;
    return staging;
}

/* ---- host functions --------------------------------------------------------------------- */

typedef struct host_fn {
    void (*fn)(void *);
    void *arg;
} host_fn;

static host_fn *host_fns;
static size_t n_host_fns, cap_host_fns;
static pthread_mutex_t host_fn_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t lab_client_host_fn(void (*fn)(void *), void *arg) {
    pthread_mutex_lock(&host_fn_lock);
    /* The same function and argument again (a host function queued every run) reuse their
     * number. */
    for (size_t i = 0; i < n_host_fns; i++)
        if (host_fns[i].fn == fn && host_fns[i].arg == arg) {
            pthread_mutex_unlock(&host_fn_lock);
            return i + 1;
        }
    if (n_host_fns == cap_host_fns) {
        size_t cap = cap_host_fns ? cap_host_fns * 2 : 16;
        host_fn *nh = realloc(host_fns, cap * sizeof(host_fn));
        if (!nh) lab_client_die("out of memory");
        host_fns = nh;
        cap_host_fns = cap;
    }
    host_fns[n_host_fns++] = (host_fn){fn, arg};
    uint64_t token = n_host_fns;
    pthread_mutex_unlock(&host_fn_lock);
    return token;
}

/* Runs each host function the referee asks for, one at a time, as the runtime's own thread
 * does, and says when it has returned. */
static void *host_fn_thread(void *unused) {
    (void)unused;
    on_host_fn_thread = true;
    lab_control *ctl = lab_client_student.control;
    uint32_t seen = 0;
    for (;;) {
        uint32_t seq = __atomic_load_n(&ctl->fn_seq, __ATOMIC_SEQ_CST);
        if (seq == seen) {
            syscall(SYS_futex, &ctl->fn_seq, FUTEX_WAIT, seq, NULL, NULL, 0);
            continue;
        }
        seen = seq;
        uint64_t token = ctl->fn_token;
        host_fn h = {NULL, NULL};
        pthread_mutex_lock(&host_fn_lock);
        if (token >= 1 && token <= n_host_fns) h = host_fns[token - 1];
        pthread_mutex_unlock(&host_fn_lock);
        if (h.fn) h.fn(h.arg);
        __atomic_store_n(&ctl->fn_done, seq, __ATOMIC_SEQ_CST);
        syscall(SYS_futex, &ctl->fn_done, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
    return NULL;
}

int lab_client_host_fn_thread(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, host_fn_thread, NULL) != 0) return -1;
    pthread_detach(t);
    return 0;
}
