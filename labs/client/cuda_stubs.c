/* labs/client/cuda_stubs.c: the CUDA runtime calls in the student's process (see
 * cuda_stubs.h), written out from the list. */
#define _GNU_SOURCE
#include "labs/client/cuda_stubs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "labs/client/client.h"

__thread const void *lab_client_site;

/* What one call remembers between sending and its reply. */
typedef struct frame {
    bool staged;           /* pageable memory went through staging: the call must wait */
    void *dst;             /* the student's pageable destination, copied back after */
    size_t dst_bytes;
    void (*fn)(void *);    /* a host function, until its argument comes */
} frame;

/* The reply: the call's result, then what its out parameters point to, each in 8-byte
 * steps. */
typedef struct reply {
    int32_t err;
    int32_t pad;
    unsigned char bytes[LAB_RING_REPLY_MAX - 8];
} reply;

static void put_slot(lab_client_call *c, const void *p, size_t n) { lab_client_put(c, p, n); }

static void put_flag(lab_client_call *c, const void *p) {
    uint64_t v = p != NULL;
    lab_client_put(c, &v, sizeof(v));
}

/* A source the referee must read: shared or device memory goes as it is; the student's own
 * memory is copied into staging first. */
static void put_src(lab_client_call *c, frame *f, const void *p, size_t bytes) {
    const void *send = p;
    if (bytes && lab_client_memory_of(p, bytes) == LAB_CLIENT_PAGEABLE) {
        void *s = lab_client_staging(bytes);
        if (!s) lab_client_die("no staging memory for a pageable copy");
        memcpy(s, p, bytes);
        send = s;
        f->staged = true;
    }
    uint64_t v = (uint64_t)(uintptr_t)send;
    lab_client_put(c, &v, sizeof(v));
}

/* A destination the referee writes: the student's own memory gets it from staging after. */
static void put_dst(lab_client_call *c, frame *f, void *p, size_t bytes) {
    void *send = p;
    if (bytes && lab_client_memory_of(p, bytes) == LAB_CLIENT_PAGEABLE) {
        /* A source staged in the same call uses the staging memory's first half. */
        void *s = lab_client_staging(2 * bytes);
        if (!s) lab_client_die("no staging memory for a pageable copy");
        send = (unsigned char *)s + bytes;
        f->dst = p;
        f->dst_bytes = bytes;
        f->staged = true;
    }
    uint64_t v = (uint64_t)(uintptr_t)send;
    lab_client_put(c, &v, sizeof(v));
}

/* Reads n bytes of the reply into p (when p is not NULL), 8-byte steps. */
static const unsigned char *take(const unsigned char *at, const unsigned char *end, void *p, size_t n) {
    size_t padded = (n + 7u) & ~(size_t)7u;
    if (at + padded > end) return end;
    if (p) memcpy(p, at, n);
    return at + padded;
}

/* An out array: its count, then its elements. */
static const unsigned char *take_array(const unsigned char *at, const unsigned char *end, void *p, size_t elem) {
    uint64_t count = 0;
    at = take(at, end, &count, sizeof(count));
    if ((size_t)(end - at) / (elem ? elem : 1) < count) return end;
    return take(at, end, p, (size_t)count * elem);
}

/* The parameters going out. */
#define PUT_void
#define PUT_in(T, n) put_slot(&c_, &n, sizeof(T));
#define PUT_in_default(T, n, v) put_slot(&c_, &n, sizeof(T));
#define PUT_out(T, n) put_flag(&c_, n);
#define PUT_inout(T, n)                      \
    put_flag(&c_, n);                        \
    if (n) put_slot(&c_, n, sizeof(*(n)));
#define PUT_out_array(T, n, c) put_flag(&c_, n);
#define PUT_dst(T, n, b) put_dst(&c_, &f_, (void *)(n), (size_t)(b));
#define PUT_src(T, n, b) put_src(&c_, &f_, (const void *)(n), (size_t)(b));
#define PUT_host_mem(T, n, b) put_slot(&c_, &n, sizeof(T));
#define PUT_addr(T, n) put_slot(&c_, &n, sizeof(T));
#define PUT_host_fn(T, n) f_.fn = (void (*)(void *))(n);
#define PUT_host_fn_arg(T, n)                                   \
    {                                                           \
        uint64_t token_ = lab_client_host_fn(f_.fn, (void *)(n)); \
        put_slot(&c_, &token_, sizeof(token_));                 \
    }

/* What comes back. */
#define GET_void
#define GET_in(T, n)
#define GET_in_default(T, n, v)
#define GET_out(T, n) at_ = take(at_, end_, n, sizeof(*(n)));
#define GET_inout(T, n) at_ = take(at_, end_, n, sizeof(*(n)));
#define GET_out_array(T, n, c) at_ = take_array(at_, end_, n, sizeof(*(n)));
#define GET_dst(T, n, b)
#define GET_src(T, n, b)
#define GET_host_mem(T, n, b)
#define GET_addr(T, n)
#define GET_host_fn(T, n)
#define GET_host_fn_arg(T, n)

/* A call that waits for its answer, and one that need not unless it staged memory;
 * per_thread: the call is its per-thread entry point (LAB_CALL_PER_THREAD). */
#define STUB_BODY(name, params, one_way, per_thread)                                       \
    lab_client_call c_;                                                                   \
    frame f_;                                                                             \
    memset(&f_, 0, sizeof(f_));                                                           \
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;                            \
    lab_client_begin(&c_, LAB_OP_CUDA + LAB_CUDA_##name, lab_client_site);                \
    if (per_thread) lab_client_flag(&c_, LAB_CALL_PER_THREAD);                             \
    CUDA_CALLS_EACH(PUT_, params)                                                         \
    if ((one_way) && lab_client_student.real_device && !f_.staged) {                      \
        lab_client_send(&c_);                                                             \
        return cudaSuccess;                                                               \
    }                                                                                     \
    reply r_;                                                                             \
    uint32_t rn_ = lab_client_ask(&c_, &r_, sizeof(r_));                                  \
    if (rn_ < 8) lab_client_die("a call's answer is too short");                         \
    const unsigned char *at_ = r_.bytes, *end_ = r_.bytes + (rn_ - 8);                    \
    (void)at_;                                                                            \
    (void)end_;                                                                           \
    CUDA_CALLS_EACH(GET_, params)                                                         \
    if (f_.dst && r_.err == cudaSuccess) memcpy(f_.dst, (const unsigned char *)lab_client_staging(0) + f_.dst_bytes, f_.dst_bytes); \
    return (cudaError_t)r_.err;

/* fn: the function's name (lab_stub_NAME, or the per-thread entry point itself). */
#define STUB_async(fn, name, per_thread, ret, params) \
    ret fn CUDA_CALLS_PARAMS(params) { STUB_BODY(name, params, true, per_thread) }
#define STUB_sync(fn, name, per_thread, ret, params) \
    ret fn CUDA_CALLS_PARAMS(params) { STUB_BODY(name, params, false, per_thread) }
#define STUB_host STUB_sync
/* The error strings: asked once per code, kept. */
#define STUB_pure(fn, name, per_thread, ret, params) \
    ret fn CUDA_CALLS_PARAMS(params) { return error_text(LAB_CUDA_##name, the_code CUDA_CALLS_ARGS(params)); }

typedef struct text {
    int which;
    int code;
    char *text;
} text;

static text *texts;
static size_t n_texts;
static pthread_mutex_t texts_lock = PTHREAD_MUTEX_INITIALIZER;

/* The error strings' one parameter, the code. */
static cudaError_t the_code(cudaError_t code) { return code; }

static const char *error_text(int which, cudaError_t code) {
    pthread_mutex_lock(&texts_lock);
    for (size_t i = 0; i < n_texts; i++)
        if (texts[i].which == which && texts[i].code == (int)code) {
            pthread_mutex_unlock(&texts_lock);
            return texts[i].text;
        }
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_CUDA + (uint32_t)which, lab_client_site);
    int32_t v = (int32_t)code;
    lab_client_put(&c, &v, sizeof(v));
    char buf[512];
    uint32_t n = lab_client_ask(&c, buf, sizeof(buf) - 1);
    buf[n < sizeof(buf) - 1 ? n : sizeof(buf) - 1] = '\0';
    text *nt = realloc(texts, (n_texts + 1) * sizeof(text));
    const char *out = "unrecognized error code";
    if (nt) {
        texts = nt;
        texts[n_texts] = (text){which, (int)code, strdup(buf)};
        if (texts[n_texts].text) out = texts[n_texts++].text;
    }
    pthread_mutex_unlock(&texts_lock);
    return out;
}

#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
    STUB_##sync(lab_stub_##name, name, false, ret, params)
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

/* The public names: every call but the memory calls (memory.c), which keep the client's
 * table of device allocations around their stubs. */
#define PUBLIC_memory(name, ret, params)
#define PUBLIC_ANY(name, ret, params)            \
    ret name CUDA_CALLS_PARAMS(params) {         \
        lab_client_site = __builtin_return_address(0); \
        return lab_stub_##name CUDA_CALLS_ARGS(params); \
    }
#define PUBLIC_device PUBLIC_ANY
#define PUBLIC_error PUBLIC_ANY
#define PUBLIC_copy PUBLIC_ANY
#define PUBLIC_stream PUBLIC_ANY
#define PUBLIC_event PUBLIC_ANY
#define PUBLIC_graph PUBLIC_ANY
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) PUBLIC_##kind(name, ret, params)
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

/* The per-thread entry points (name_ptsz, name_ptds: the list's per_thread field), which a
 * student's file compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM calls, its CUDA header
 * having renamed the calls: the plain call's command, marked LAB_CALL_PER_THREAD, so that
 * the referee performs the per-thread entry point, in which stream 0 and the implicit
 * stream of cudaMemcpy and cudaMemset are cudaStreamPerThread. Declared here: the toolkit's
 * header declares them only to a file compiled for per-thread default streams. */
#define ONE_WAY_async true
#define ONE_WAY_sync false
#define ONE_WAY_host false
#define PER_THREAD_ENTRY(name, per_thread, sync, ret, params)        \
    ret name##_##per_thread CUDA_CALLS_PARAMS(params);                \
    ret name##_##per_thread CUDA_CALLS_PARAMS(params) {               \
        lab_client_site = __builtin_return_address(0);                \
        STUB_BODY(name, params, ONE_WAY_##sync, true)                 \
    }
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
    CUDA_CALLS_IF_PER_THREAD(per_thread, PER_THREAD_ENTRY(name, per_thread, sync, ret, params))
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
