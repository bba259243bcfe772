/* labs/client/main.c: main() of the student's binary. It connects to the referee that
 * started it, learns the lab's context, and runs the student's setup(), run() and
 * teardown() whenever the referee asks, having given up every privilege first
 * (privileges.h); everything else (the workload, the checks, the clock, the verdict) is the
 * referee's. Started any other way, it says how to run a lab. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "labs/client/client.h"
#include "labs/client/context.h"
#include "labs/client/client_guard.h"
#include "labs/referee/privileges.h"
#include "labs/harness/lab.h"

int main(int argc, char **argv) {
    char err[256];
    int attached = lab_student_attach(&lab_client_student, argc, argv, err, sizeof(err));
    if (attached > 0) {
        fprintf(stderr,
                "%s: this is the student's side of a lab, which its lab binary starts and drives: run the lab "
                "(bazel run //labs:NN_topic) instead\n",
                argv[0]);
        return 64;
    }
    if (attached < 0) lab_client_die(err);
    /* Before anything of the student's runs: no privilege that reaches past the process's own
     * (privileges.h). */
    if (lab_drop_privileges(err, sizeof(err)) != 0) {
        fprintf(stderr, "streamlab: the lab's process could not give up its privileges: %s\n", err);
        _exit(70);
    }
    lab_client_guard_install();
    lab_ctx *ctx = lab_client_context_load();
    if (lab_client_host_fn_thread() != 0) lab_client_die("cannot start the thread for host functions");
    for (;;) {
        lab_phase phase = lab_student_next_phase(&lab_client_student);
        int rc = 0;
        lab_client_guard_phase(phase);
        switch (phase) {
        case LAB_PHASE_SETUP: rc = LAB_STUDENT.setup(ctx); break;
        case LAB_PHASE_RUN: rc = LAB_STUDENT.run(ctx); break;
        case LAB_PHASE_TEARDOWN: LAB_STUDENT.teardown(ctx); break;
        case LAB_PHASE_EXIT:
            /* Nothing more of the student's runs: no exit handlers (the student's, or a leak
             * checker's report on memory the process is about to give back anyway). */
            fflush(NULL);
            _exit(0);
        default: lab_client_die("the referee asked for a phase that does not exist");
        }
        lab_client_guard_phase(LAB_PHASE_NONE);
        /* What the student printed comes out before what the referee prints next. */
        fflush(NULL);
        lab_student_phase_done(&lab_client_student, rc);
    }
}
