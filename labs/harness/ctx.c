/* labs/harness/ctx.c: the lab.h accessors and the buffers behind them. */
#include "labs/harness/ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/harness/backend.h"
#include "trace/record/recorder.h"

const lab_workload *lab_get_workload(const lab_ctx *ctx) { return &ctx->buffers->workload; }

const uint32_t *lab_input(const lab_ctx *ctx, int batch) {
    if (batch < 0 || batch >= ctx->buffers->workload.batches) {
        fprintf(stderr, "streamlab: lab_input(ctx, %d): there are only batches 0 to %d\n", batch,
                ctx->buffers->workload.batches - 1);
        return NULL;
    }
    if (LAB_SPEC.load_us > 0 || LAB_SPEC.batch_load_us) {
        fprintf(stderr, "streamlab: lab_input(ctx, %d): this lab's inputs come from its loader: "
                        "lab_load_batch(ctx, %d, dst) writes batch %d into a buffer of yours\n",
                batch, batch, batch);
        return NULL;
    }
    return ctx->buffers->inputs[batch];
}

uint32_t *lab_output(lab_ctx *ctx, int batch) {
    if (batch < 0 || batch >= ctx->buffers->workload.batches) {
        fprintf(stderr, "streamlab: lab_output(ctx, %d): there are only batches 0 to %d\n", batch,
                ctx->buffers->workload.batches - 1);
        return NULL;
    }
    return ctx->buffers->outputs[batch];
}

void lab_name_stream(lab_ctx *ctx, cudaStream_t stream, const char *name) {
    (void)ctx;
    lab_backend_name_stream(stream, name);
}

void lab_name_event(lab_ctx *ctx, cudaEvent_t event, const char *name) {
    (void)ctx;
    lab_backend_name_event(event, name);
}

void lab_report_ms(lab_ctx *ctx, const char *stage, double ms) {
    const lab_spec *spec = &LAB_SPEC;
    for (int i = 0; i < spec->n_stages && i < LAB_MAX_STAGES; i++) {
        if (!stage || strcmp(stage, spec->stages[i].name) != 0) continue;
        ctx->reported[i].set = true;
        ctx->reported[i].ms = ms;
        ctx->reported[i].run = trace_current_run();
        return;
    }
    fprintf(stderr, "streamlab: lab_report_ms(ctx, \"%s\", ...): this lab has no such stage", stage ? stage : "(null)");
    for (int i = 0; i < spec->n_stages; i++) fprintf(stderr, "%s\"%s\"", i ? ", " : " (it has ", spec->stages[i].name);
    fprintf(stderr, "%s\n", spec->n_stages ? ")" : "; it asks for no times");
}

double lab_host_ms(void) { return (double)lab_backend_now_ns() / 1e6; }

void lab_set_state(lab_ctx *ctx, void *state) { ctx->state = state; }

void *lab_get_state(const lab_ctx *ctx) { return ctx->state; }

/* What a stream-capture error means in a lab's terms, and what to change (lab 07). The
 * rules are the CUDA Programming Guide's ("Prohibited and unhandled operations") and
 * docs/simulator.md's table; NULL for other errors. */
static const char *capture_advice(cudaError_t err) {
    switch (err) {
    case cudaErrorStreamCaptureUnsupported:
        return "this call is not allowed while a stream is being captured into a graph (synchronising or "
               "querying a capturing stream, cudaDeviceSynchronize, cudaMalloc or cudaMemcpy in a global-mode "
               "capture), and it invalidated the capture. Make the call before cudaStreamBeginCapture or after "
               "cudaStreamEndCapture: inside a capture nothing runs, so there is nothing to wait for";
    case cudaErrorStreamCaptureInvalidated:
        return "an earlier call during this capture was refused, which invalidated it: every later call on "
               "its streams fails and cudaStreamEndCapture returns no graph. Fix the first call that failed";
    case cudaErrorStreamCaptureUnjoined:
        return "a stream joined the capture (it waited on an event recorded on a capturing stream) and was "
               "never joined back: record an event on it after its last work and make the stream that began "
               "the capture wait on that event before cudaStreamEndCapture";
    case cudaErrorStreamCaptureIsolation:
        return "a capturing stream waited on an event recorded outside the capture (before "
               "cudaStreamBeginCapture, or on a stream that is not capturing): a graph cannot depend on work "
               "outside it. Record the event after cudaStreamBeginCapture, on a stream in the capture";
    case cudaErrorStreamCaptureImplicit:
        return "the legacy default stream (stream 0, cudaMemcpy, cudaMemset) was used while a blocking stream "
               "was capturing: capture on streams made with cudaStreamNonBlocking, and keep stream 0 out of it";
    case cudaErrorStreamCaptureUnmatched:
        return "cudaStreamEndCapture must be called on the stream that called cudaStreamBeginCapture, not on a "
               "stream that joined the capture";
    case cudaErrorStreamCaptureMerge:
        return "a wait joined two separate captures into one; begin one capture and fork the other streams "
               "from it with events";
    case cudaErrorCapturedEvent:
        return "this event was recorded inside a capture, where nothing runs: it cannot be queried or "
               "synchronised until the capture has ended (and then stands for its last record outside it)";
    case cudaErrorStreamCaptureWrongThread:
        return "a capture begun in thread-local mode must be ended by the thread that began it";
    default:
        return NULL;
    }
}

void lab_report_cuda_error(const char *call, const char *file, int line, cudaError_t err) {
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(err),
            cudaGetErrorString(err));
    const char *advice = capture_advice(err);
    if (advice) fprintf(stderr, "  stream capture: %s.\n", advice);
    if (err == cudaErrorNotPermitted) /* lab 08 */
        fprintf(stderr, "  host function: a function queued with cudaLaunchHostFunc must not call CUDA (the runtime "
                        "may refuse with cudaErrorNotPermitted, or deadlock). Make the call from the host thread, "
                        "ordered by an event, and let host functions do host work only.\n");
}

static const lab_host_provider *g_provider;

void lab_buffers_set_provider(const lab_host_provider *provider) { g_provider = provider; }

/* A lab buffer in host memory: from the provider when there is one (the memory the student's
 * process shares with the referee, an output in the part it can only read). */
static cudaError_t host_alloc(uint32_t **p, size_t bytes, lab_memory where, bool is_output) {
    if (g_provider) {
        *p = g_provider->alloc(bytes, where != LAB_MEMORY_PAGEABLE, is_output);
        return *p ? cudaSuccess : cudaErrorMemoryAllocation;
    }
    if (where == LAB_MEMORY_PAGEABLE) {
        *p = malloc(bytes);
        if (!*p) return cudaErrorMemoryAllocation;
        /* Written once, as data read from a file or handed over by a framework has been:
         * pinning fresh pages would also pay for the OS to fault them in (on a lent H200,
         * registering 128 MiB took 40 ms fresh and 5 ms written). */
        memset(*p, 0, bytes);
        return cudaSuccess;
    }
    return cudaMallocHost((void **)p, bytes);
}

static void host_free(uint32_t *p, lab_memory where) {
    if (!p) return;
    if (g_provider)
        g_provider->free(p);
    else if (where == LAB_MEMORY_PAGEABLE)
        free(p);
    else
        cudaFreeHost(p);
}

int lab_buffers_alloc(lab_buffers *b, const lab_workload *w, lab_memory inputs, lab_memory outputs, char *err,
                      size_t err_len) {
    memset(b, 0, sizeof(*b));
    b->workload = *w;
    b->input_memory = inputs;
    b->output_memory = outputs;
    size_t n = (size_t)w->batches;
    b->inputs = calloc(n, sizeof(uint32_t *));
    b->outputs = calloc(n, sizeof(uint32_t *));
    b->expected = calloc(n, sizeof(uint32_t *));
    if (!b->inputs || !b->outputs || !b->expected) {
        snprintf(err, err_len, "out of host memory for %zu batches", n);
        return cudaErrorMemoryAllocation;
    }
    for (size_t i = 0; i < n; i++) {
        cudaError_t e = host_alloc(&b->inputs[i], w->batch_bytes, inputs, false);
        if (e == cudaSuccess) e = host_alloc(&b->outputs[i], w->batch_bytes, outputs, true);
        if (e != cudaSuccess) {
            snprintf(err, err_len, "allocating %zu bytes of host memory for batch %zu failed: %s", w->batch_bytes, i,
                     cudaGetErrorString(e));
            return e;
        }
        b->expected[i] = malloc(w->batch_bytes);
        if (!b->expected[i]) {
            snprintf(err, err_len, "out of host memory for batch %zu", i);
            return cudaErrorMemoryAllocation;
        }
    }
    return 0;
}

void lab_buffers_free(lab_buffers *b) {
    for (int i = 0; i < b->workload.batches; i++) {
        if (b->inputs) host_free(b->inputs[i], b->input_memory);
        if (b->outputs) host_free(b->outputs[i], b->output_memory);
        if (b->expected) free(b->expected[i]);
    }
    free(b->inputs);
    free(b->outputs);
    free(b->expected);
    memset(b, 0, sizeof(*b));
}
