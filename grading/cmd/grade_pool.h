/* grading/cmd/grade_pool.h: grading students in parallel, each in a worker process of its own
 * (so that nothing one submission does to a worker can touch another's grade, and a
 * worker that dies takes only its student with it). */
#ifndef STREAMLAB_GRADE_POOL_H
#define STREAMLAB_GRADE_POOL_H

#include <signal.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs in the worker; what it returns is the worker's exit status. */
typedef int (*grade_job_fn)(void *ctx, size_t index);
/* Runs in the main process when job `index`'s worker has ended (wait status as waitpid
 * gives it). */
typedef void (*grade_done_fn)(void *ctx, size_t index, int wait_status);

/* Runs jobs 0..n-1, at most `parallel` at once. When *stop (may be NULL) becomes non-zero
 * (a signal handler sets it), no more jobs start, the running workers are killed (and
 * their lab programs with them) and waited for, and done() is not called for them.
 * Returns 0, 1 when stopped, or -1 when no worker could be started at all. Workers start
 * with SIGINT and SIGTERM at their defaults. */
int grade_pool_run(size_t n, int parallel, grade_job_fn job, grade_done_fn done, void *ctx,
                   volatile sig_atomic_t *stop);

#ifdef __cplusplus
}
#endif

#endif
