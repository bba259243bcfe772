/* trace/check/race_corpus/corpus.h: what the race corpus programs share. Each program in this
 * folder is a plain C program against the CUDA runtime API, with either a planted race
 * (the race checker must report it: exit status 66 under STREAMLAB_RACECHECK=1) or a
 * correct ordering (it must report none: exit status 0). */
#ifndef STREAMLAB_TRACE_RACE_CORPUS_H
#define STREAMLAB_TRACE_RACE_CORPUS_H

#include <stddef.h>

#include <cuda_runtime.h>

/* Exits with a message when a CUDA call fails. */
#define CORPUS_CHECK(call) corpus_check((call), #call, __FILE__, __LINE__)
void corpus_check(cudaError_t err, const char *what, const char *file, int line);


/* Launches out[i] = 2 * in[i] for n floats on stream s: a kernel that reads in and writes
 * out, with its memory ranges declared as every launch function in kernels/ declares
 * them. */
void corpus_scale(const float *in, float *out, size_t n, cudaStream_t s);

/* The host reads (or writes) n bytes at p, as the lab harness declares its own accesses
 * (lab_store_batch, lab_load_batch) to the race checker. */
void corpus_host_read(const void *p, size_t n, const char *what);
void corpus_host_write(const void *p, size_t n, const char *what);

#endif
