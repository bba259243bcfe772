/* trace/gpu/cupti_buffers.c: the pool of CUPTI activity buffers (see cupti_buffers.h). */
#include "trace/gpu/cupti_buffers.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The pool never shrinks: buffers live as long as the process, as CUPTI may hold some. */
#define MAX_FREE 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *free_list[MAX_FREE]; /* under lock */
static size_t n_free, n_made;        /* under lock */

/* A new buffer with every page touched, so that CUPTI's writes fault nothing in. */
static uint8_t *make(void) {
    uint8_t *b = aligned_alloc(8, TRACE_GPU_CUPTI_BUFFER_BYTES);
    if (b) memset(b, 0, TRACE_GPU_CUPTI_BUFFER_BYTES);
    return b;
}

size_t trace_gpu_cupti_buffers_reserve(size_t count) {
    if (count > MAX_FREE) count = MAX_FREE;
    for (;;) {
        pthread_mutex_lock(&lock);
        size_t have = n_free;
        pthread_mutex_unlock(&lock);
        if (have >= count) return have;
        uint8_t *b = make();
        if (!b) return have;
        pthread_mutex_lock(&lock);
        if (n_free < MAX_FREE) {
            free_list[n_free++] = b;
            n_made++;
            b = NULL;
        }
        pthread_mutex_unlock(&lock);
        if (b) {
            free(b);
            return MAX_FREE;
        }
    }
}

uint8_t *trace_gpu_cupti_buffer_get(void) {
    pthread_mutex_lock(&lock);
    uint8_t *b = n_free > 0 ? free_list[--n_free] : NULL;
    pthread_mutex_unlock(&lock);
    if (b) return b;
    b = make();
    if (b) {
        pthread_mutex_lock(&lock);
        n_made++;
        pthread_mutex_unlock(&lock);
    }
    return b;
}

void trace_gpu_cupti_buffer_put(uint8_t *buffer) {
    if (!buffer) return;
    pthread_mutex_lock(&lock);
    if (n_free < MAX_FREE) {
        free_list[n_free++] = buffer;
        buffer = NULL;
    } else {
        n_made--;
    }
    pthread_mutex_unlock(&lock);
    free(buffer);
}

size_t trace_gpu_cupti_buffers_made(void) {
    pthread_mutex_lock(&lock);
    size_t n = n_made;
    pthread_mutex_unlock(&lock);
    return n;
}
