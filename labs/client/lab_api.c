/* labs/client/lab_api.c: lab.h in the student's process. What is fixed for the whole run
 * (the workload, where each batch's input and output are) is answered here from the context
 * the referee sent at start; what the lab does for the student (loading a batch, a request's
 * arrival, the background work, a stage's time, a stream's name) is a command to the
 * referee, which does it as the harness does in one process (labs/harness/). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/client/client.h"
#include "labs/client/context.h"

struct lab_ctx {
    lab_workload workload;
    uint32_t flags;
    uint32_t **inputs;
    uint32_t **outputs;
    void *state;
};

static lab_ctx the_ctx;

lab_ctx *lab_client_context_load(void) {
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_CONTEXT, __builtin_return_address(0));
    lab_context_reply r;
    if (lab_client_ask(&c, &r, sizeof(r)) != sizeof(r) || r.batches < 0) lab_client_die("no lab context");
    lab_ctx *ctx = &the_ctx;
    ctx->workload.batches = r.batches;
    ctx->workload.steps = r.steps;
    ctx->workload.batch_elems = r.batch_elems;
    ctx->workload.batch_bytes = r.batch_bytes;
    ctx->workload.process.mul = r.process_mul;
    ctx->workload.process.add = r.process_add;
    ctx->workload.process.iters = r.process_iters;
    ctx->flags = r.flags;
    ctx->inputs = calloc((size_t)r.batches + 1, sizeof(uint32_t *));
    ctx->outputs = calloc((size_t)r.batches + 1, sizeof(uint32_t *));
    if (!ctx->inputs || !ctx->outputs) lab_client_die("out of memory");
    for (int32_t first = 0; first < r.batches; first += LAB_BATCHES_PER_REPLY) {
        lab_client_begin(&c, LAB_OP_BATCHES, __builtin_return_address(0));
        uint32_t f = (uint32_t)first;
        lab_client_put(&c, &f, sizeof(f));
        uint64_t pairs[2 * LAB_BATCHES_PER_REPLY];
        uint32_t n = lab_client_ask(&c, pairs, sizeof(pairs));
        for (uint32_t k = 0; k + 1 < n / 8 && first + (int32_t)(k / 2) < r.batches; k += 2) {
            ctx->inputs[first + k / 2] = (uint32_t *)(uintptr_t)pairs[k];
            ctx->outputs[first + k / 2] = (uint32_t *)(uintptr_t)pairs[k + 1];
        }
    }
    return ctx;
}

const lab_workload *lab_get_workload(const lab_ctx *ctx) { return &ctx->workload; }

const uint32_t *lab_input(const lab_ctx *ctx, int batch) {
    if (batch < 0 || batch >= ctx->workload.batches) {
        fprintf(stderr, "streamlab: lab_input(ctx, %d): there are only batches 0 to %d\n", batch,
                ctx->workload.batches - 1);
        return NULL;
    }
    if (ctx->flags & LAB_CONTEXT_LOADER) {
        fprintf(stderr, "streamlab: lab_input(ctx, %d): this lab's inputs come from its loader: "
                        "lab_load_batch(ctx, %d, dst) writes batch %d into a buffer of yours\n",
                batch, batch, batch);
        return NULL;
    }
    return ctx->inputs[batch];
}

uint32_t *lab_output(lab_ctx *ctx, int batch) {
    if (batch < 0 || batch >= ctx->workload.batches) {
        fprintf(stderr, "streamlab: lab_output(ctx, %d): there are only batches 0 to %d\n", batch,
                ctx->workload.batches - 1);
        return NULL;
    }
    return ctx->outputs[batch];
}

void lab_set_state(lab_ctx *ctx, void *state) { ctx->state = state; }

void *lab_get_state(const lab_ctx *ctx) { return ctx->state; }

/* A call that answers with an int32. */
static int32_t ask_int(lab_client_call *c) {
    int32_t v = 1;
    lab_client_ask(c, &v, sizeof(v));
    return v;
}

int lab_load_batch(lab_ctx *ctx, int batch, void *dst) {
    (void)ctx;
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_LOAD_BATCH, __builtin_return_address(0));
    int32_t b = batch;
    size_t bytes = the_ctx.workload.batch_bytes;
    /* The referee writes only shared memory: a buffer of the student's own gets the batch
     * through staging. */
    lab_client_memory m = lab_client_memory_of(dst, bytes);
    void *target = dst;
    if (m == LAB_CLIENT_PAGEABLE) {
        target = lab_client_staging(bytes);
        if (!target) lab_client_die("no staging memory for lab_load_batch");
    }
    uint64_t at = (uint64_t)(uintptr_t)target;
    lab_client_put(&c, &b, sizeof(b));
    lab_client_put(&c, &at, sizeof(at));
    int32_t rc = ask_int(&c);
    /* A host copy on the program's time, as a GPU's host makes it: told at the load's line. */
    if (rc == 0 && target != dst) lab_client_copy(dst, target, bytes, false, __builtin_return_address(0));
    return rc;
}

void lab_wait_request(lab_ctx *ctx, int i) {
    (void)ctx;
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_WAIT_REQUEST, __builtin_return_address(0));
    int32_t v = i;
    lab_client_put(&c, &v, sizeof(v));
    (void)ask_int(&c);
}

int lab_background(lab_ctx *ctx, cudaStream_t stream) {
    (void)ctx;
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_BACKGROUND, __builtin_return_address(0));
    uint64_t s = (uint64_t)(uintptr_t)stream;
    lab_client_put(&c, &s, sizeof(s));
    return ask_int(&c);
}

/* A string argument: its length, then its bytes (cut to what a record holds). */
static void put_string(lab_client_call *c, const char *s) {
    uint32_t n = s ? (uint32_t)strnlen(s, 256) : UINT32_MAX;
    lab_client_put(c, &n, sizeof(n));
    if (s) lab_client_put(c, s, n);
}

void lab_report_ms(lab_ctx *ctx, const char *stage, double ms) {
    (void)ctx;
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_REPORT_MS, __builtin_return_address(0));
    lab_client_put(&c, &ms, sizeof(ms));
    put_string(&c, stage);
    (void)ask_int(&c);
}

double lab_host_ms(void) {
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_HOST_MS, __builtin_return_address(0));
    double ms = 0;
    lab_client_ask(&c, &ms, sizeof(ms));
    return ms;
}

/* A stream's or an event's name (op LAB_OP_NAME_STREAM or LAB_OP_NAME_EVENT), asked for at
 * the program's call site. */
static void send_name(uint32_t op, const void *handle, const char *name, const void *site) {
    lab_client_call c;
    lab_client_begin(&c, op, site);
    uint64_t h = (uint64_t)(uintptr_t)handle;
    lab_client_put(&c, &h, sizeof(h));
    put_string(&c, name);
    (void)ask_int(&c);
}

void lab_name_stream(lab_ctx *ctx, cudaStream_t stream, const char *name) {
    (void)ctx;
    send_name(LAB_OP_NAME_STREAM, stream, name, __builtin_return_address(0));
}

void lab_name_event(lab_ctx *ctx, cudaEvent_t event, const char *name) {
    (void)ctx;
    send_name(LAB_OP_NAME_EVENT, event, name, __builtin_return_address(0));
}

void lab_report_cuda_error(const char *call, const char *file, int line, cudaError_t err) {
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_REPORT_CUDA_ERROR, __builtin_return_address(0));
    int32_t v[2] = {line, (int32_t)err};
    lab_client_put(&c, v, sizeof(v));
    put_string(&c, call);
    put_string(&c, file);
    (void)ask_int(&c);
}
