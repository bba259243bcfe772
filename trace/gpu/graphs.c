/* trace/gpu/graphs.c: executable graphs' node counts (see graphs.h): a small table under a
 * lock, searched linearly (programs instantiate few graphs). */
#include "trace/gpu/graphs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/record/op.h"

typedef struct entry {
    const void *exec;
    size_t nodes;
    size_t branches;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t count, cap;

void trace_gpu_graph_exec_add(const void *exec, size_t nodes, size_t branches) {
    pthread_mutex_lock(&lock);
    if (count == cap) {
        size_t ncap = cap ? cap * 2 : 16;
        entry *n = realloc(table, ncap * sizeof(entry));
        if (!n) {
            pthread_mutex_unlock(&lock);
            return;
        }
        table = n;
        cap = ncap;
    }
    table[count++] = (entry){exec, nodes, branches};
    pthread_mutex_unlock(&lock);
}

void trace_gpu_graph_exec_forget(const void *exec) {
    pthread_mutex_lock(&lock);
    for (size_t i = count; i-- > 0;)
        if (table[i].exec == exec) {
            table[i] = table[--count];
            break;
        }
    pthread_mutex_unlock(&lock);
}

void trace_gpu_graph_name(const void *exec, char *name, size_t size) {
    pthread_mutex_lock(&lock);
    long nodes = -1, branches = 0;
    for (size_t i = count; i-- > 0;)
        if (table[i].exec == exec) {
            nodes = (long)table[i].nodes;
            branches = (long)table[i].branches;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (nodes < 0)
        snprintf(name, size, "graph");
    else
        trace_graph_op_name(name, size, nodes, branches);
}
