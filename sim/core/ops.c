/* sim/core/ops.c: op allocation from a free list, and dependency lists (see ops.h). */
#include "sim/core/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sim_op *g_free;

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "streamlab simulated GPU: out of memory\n");
        abort();
    }
    return p;
}

sim_op *sim_op_new(sim_op_kind kind) {
    sim_op *op = g_free;
    if (op)
        g_free = op->next;
    else
        op = xmalloc(sizeof(*op));
    memset(op, 0, sizeof(*op));
    op->kind = (uint8_t)kind;
    op->jitter = 1.0;
    op->deps = op->deps_inline;
    op->deps_cap = SIM_OP_INLINE_DEPS;
    return op;
}

void sim_op_free(sim_op *op) {
    if (op->deps != op->deps_inline) free(op->deps);
    if (op->kind == SIM_OP_COMPUTE && op->u.kernel.args != op->u.kernel.inline_args)
        free(op->u.kernel.args);
    if (op->kind == SIM_OP_COPY) {
        free(op->u.copy.staged);
        op->u.copy.staged = NULL;
    }
    op->next = g_free;
    g_free = op;
}

sim_op *sim_op_clone(const sim_op *op) {
    sim_op *c = sim_op_new((sim_op_kind)op->kind);
    c->u = op->u;
    if (op->kind == SIM_OP_COPY && op->u.copy.staged) {
        c->u.copy.staged = xmalloc(op->u.copy.bytes ? op->u.copy.bytes : 1);
        memcpy(c->u.copy.staged, op->u.copy.staged, op->u.copy.bytes);
    }
    if (op->kind == SIM_OP_COMPUTE) {
        sim_kernel_state *k = &c->u.kernel;
        const sim_kernel_state *src = &op->u.kernel;
        if (src->args == src->inline_args) {
            k->args = k->inline_args;
        } else if (src->args) {
            k->args = xmalloc(src->args_size ? src->args_size : 1);
            memcpy(k->args, src->args, src->args_size);
        }
        k->next_block = k->done_blocks = 0;
        k->order = 0;
        k->dispatching = false;
    }
    return c;
}

void sim_op_add_dep(sim_op *op, uint32_t stream, uint64_t seq) {
    if (op->n_deps == op->deps_cap) {
        uint32_t ncap = op->deps_cap * 2;
        sim_dep *n = xmalloc(ncap * sizeof(sim_dep));
        memcpy(n, op->deps, op->n_deps * sizeof(sim_dep));
        if (op->deps != op->deps_inline) free(op->deps);
        op->deps = n;
        op->deps_cap = ncap;
    }
    op->deps[op->n_deps++] = (sim_dep){stream, seq};
}

void sim_op_pool_release(void) {
    while (g_free) {
        sim_op *n = g_free->next;
        free(g_free);
        g_free = n;
    }
}
