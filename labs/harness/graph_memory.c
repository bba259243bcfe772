/* labs/harness/graph_memory.c: the memory each of the student's graphs reaches (see
 * graph_memory.h). Three lists of owners, each a handle or capture id with its ranges: the
 * captures still open, the graphs, the executable graphs. Lists are searched in order, as
 * the referee's handle sets are (remote.c): a program has a few of each. */
#include "labs/harness/graph_memory.h"

#include <stdlib.h>
#include <string.h>

typedef struct owner {
    uint64_t key;
    lab_graph_use *uses;
    size_t n, cap;
    bool too_many; /* it reached more ranges than it keeps */
} owner;

typedef struct owners {
    owner *o;
    size_t n, cap;
} owners;

struct lab_graph_memory {
    owners captures, graphs, execs;
    bool lost; /* out of memory once: a range may have gone unnoted, so nothing is checked */
};

lab_graph_memory *lab_graph_memory_new(void) { return calloc(1, sizeof(lab_graph_memory)); }

static void owners_clear(owners *l) {
    for (size_t i = 0; i < l->n; i++) free(l->o[i].uses);
    l->n = 0;
}

void lab_graph_memory_clear(lab_graph_memory *m) {
    if (!m) return;
    owners_clear(&m->captures);
    owners_clear(&m->graphs);
    owners_clear(&m->execs);
    m->lost = false;
}

void lab_graph_memory_free(lab_graph_memory *m) {
    if (!m) return;
    lab_graph_memory_clear(m);
    free(m->captures.o);
    free(m->graphs.o);
    free(m->execs.o);
    free(m);
}

static owner *find(const owners *l, uint64_t key) {
    for (size_t i = 0; i < l->n; i++)
        if (l->o[i].key == key) return &l->o[i];
    return NULL;
}

/* key's owner, made empty where there is none; NULL when out of memory (m is then lost). */
static owner *find_or_add(lab_graph_memory *m, owners *l, uint64_t key) {
    owner *o = find(l, key);
    if (o) return o;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        owner *no = realloc(l->o, cap * sizeof(owner));
        if (!no) {
            m->lost = true;
            return NULL;
        }
        l->o = no;
        l->cap = cap;
    }
    o = &l->o[l->n++];
    memset(o, 0, sizeof(*o));
    o->key = key;
    return o;
}

static void drop(owners *l, uint64_t key) {
    owner *o = find(l, key);
    if (!o) return;
    free(o->uses);
    *o = l->o[--l->n];
}

/* Adds u to o once. A range o cannot keep (past the limit, or out of memory) leaves o
 * unable to be checked: never a range silently not checked. */
static void add_use(owner *o, const lab_graph_use *u) {
    for (size_t i = 0; i < o->n; i++) {
        const lab_graph_use *h = &o->uses[i];
        if (h->start == u->start && h->bytes == u->bytes && h->need == u->need) return;
    }
    if (o->n >= LAB_GRAPH_MEMORY_MAX_USES) {
        o->too_many = true;
        return;
    }
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        lab_graph_use *nu = realloc(o->uses, cap * sizeof(lab_graph_use));
        if (!nu) {
            o->too_many = true;
            return;
        }
        o->uses = nu;
        o->cap = cap;
    }
    o->uses[o->n++] = *u;
}

/* to reaches everything from reaches (to is new: a copy). */
static void copy_uses(owner *to, const owner *from) {
    to->n = 0;
    to->too_many = from->too_many;
    for (size_t i = 0; i < from->n; i++) add_use(to, &from->uses[i]);
}

void lab_graph_memory_note(lab_graph_memory *m, uint64_t capture, const lab_graph_use *u) {
    owner *o = find_or_add(m, &m->captures, capture);
    if (o) add_use(o, u);
}

void lab_graph_memory_captured(lab_graph_memory *m, uint64_t capture, uint64_t graph) {
    if (graph) {
        /* A handle the runtime gives out again is a new graph. A capture with no entry
         * reached no memory. */
        drop(&m->graphs, graph);
        owner *g = find_or_add(m, &m->graphs, graph);
        const owner *c = find(&m->captures, capture);
        if (g && c) copy_uses(g, c);
    }
    drop(&m->captures, capture);
}

void lab_graph_memory_instantiated(lab_graph_memory *m, uint64_t graph, uint64_t exec) {
    drop(&m->execs, exec);
    owner *x = find_or_add(m, &m->execs, exec);
    const owner *g = find(&m->graphs, graph);
    if (!x) return;
    /* Every graph has an entry from its capture: one without was not seen made. */
    if (g)
        copy_uses(x, g);
    else
        x->too_many = true;
}

void lab_graph_memory_forget_graph(lab_graph_memory *m, uint64_t graph) { drop(&m->graphs, graph); }
void lab_graph_memory_forget_exec(lab_graph_memory *m, uint64_t exec) { drop(&m->execs, exec); }

lab_graph_check lab_graph_memory_check(const lab_graph_memory *m, uint64_t exec, bool (*ok)(const lab_graph_use *u),
                                       lab_graph_use *bad) {
    const owner *x = find(&m->execs, exec);
    /* Every executable graph has an entry from its instantiation. */
    if (!x || x->too_many || m->lost) return LAB_GRAPH_UNCHECKED;
    for (size_t i = 0; i < x->n; i++)
        if (!ok(&x->uses[i])) {
            if (bad) *bad = x->uses[i];
            return LAB_GRAPH_BAD;
        }
    return LAB_GRAPH_OK;
}

static size_t uses_of(const owners *l, uint64_t key) {
    const owner *o = find(l, key);
    return o ? o->n : 0;
}

size_t lab_graph_memory_uses_of_exec(const lab_graph_memory *m, uint64_t exec) { return uses_of(&m->execs, exec); }
size_t lab_graph_memory_uses_of_graph(const lab_graph_memory *m, uint64_t graph) { return uses_of(&m->graphs, graph); }
size_t lab_graph_memory_uses_of_capture(const lab_graph_memory *m, uint64_t capture) {
    return uses_of(&m->captures, capture);
}
