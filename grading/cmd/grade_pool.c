/* grading/cmd/grade_pool.c: worker processes (see grade_pool.h). */
#define _GNU_SOURCE
#include "grading/cmd/grade_pool.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int grade_pool_run(size_t n, int parallel, grade_job_fn job, grade_done_fn done, void *ctx,
                   volatile sig_atomic_t *stop) {
    if (parallel < 1) parallel = 1;
    pid_t *pids = calloc((size_t)parallel, sizeof(pid_t));
    size_t *which = calloc((size_t)parallel, sizeof(size_t));
    size_t next = 0, finished = 0;
    int running = 0;
    int rc = 0;
    pid_t me = getpid();
    while (finished < n) {
        if (stop && *stop) {
            for (int s = 0; s < parallel; s++)
                if (pids[s] > 0) kill(pids[s], SIGKILL);
            for (int s = 0; s < parallel; s++)
                if (pids[s] > 0) {
                    while (waitpid(pids[s], NULL, 0) < 0 && errno == EINTR) {
                    }
                    pids[s] = 0;
                }
            rc = 1;
            break;
        }
        while (running < parallel && next < n) {
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) {
                if (running == 0) {
                    /* Nothing runs that could free a process slot: give up on the rest. */
                    fprintf(stderr, "grade: cannot start a worker: %s\n", strerror(errno));
                    for (; next < n; next++, finished++) done(ctx, next, -1);
                    rc = -1;
                }
                break;
            }
            if (pid == 0) {
                /* A worker dies with the grader (Ctrl-C), and its lab programs with it. */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != me) _exit(1);
                signal(SIGINT, SIG_DFL);
                signal(SIGTERM, SIG_DFL);
                int status = job(ctx, next);
                fflush(NULL);
                _exit(status);
            }
            for (int s = 0; s < parallel; s++)
                if (pids[s] == 0) {
                    pids[s] = pid;
                    which[s] = next;
                    break;
                }
            running++;
            next++;
        }
        if (running == 0) break;
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int s = 0; s < parallel; s++)
            if (pids[s] == pid) {
                pids[s] = 0;
                running--;
                finished++;
                done(ctx, which[s], status);
            }
    }
    free(pids);
    free(which);
    return rc;
}
