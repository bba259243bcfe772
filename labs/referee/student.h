/* labs/referee/student.h: the student process's side of the referee: attach to the memory
 * the referee shares, say hello, wait for each phase the referee asks for, send commands
 * and say when a phase is done. The client library (the CUDA calls, kernels and lab_*
 * calls as commands) is built on it. */
#ifndef STREAMLAB_LAB_REFEREE_STUDENT_H
#define STREAMLAB_LAB_REFEREE_STUDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/referee/protocol.h"
#include "labs/referee/ring.h"
#include "labs/referee/shm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_student {
    lab_shm shm;
    lab_shm outputs; /* read-only here */
    lab_control *control;
    lab_ring *ring; /* the producer's handle */
    lab_ring *fn_ring; /* the host-function thread's (process.h) */
    bool real_device;  /* LAB_CONTROL_REAL_DEVICE */
    uint32_t phase_seq;
    void *data;         /* the data memory */
    size_t data_bytes;
} lab_student;

/* Finds LAB_REFEREE_ARG among argv, maps the shared memory and says hello. Returns 0, 1
 * when argv has no such argument (not started by a referee), or -1 with err filled. */
int lab_student_attach(lab_student *s, int argc, char **argv, char *err, size_t err_len);
/* Waits for the referee's next phase. */
lab_phase lab_student_next_phase(lab_student *s);
/* Says the phase is done, with what it returned. */
void lab_student_phase_done(lab_student *s, int rc);

#ifdef __cplusplus
}
#endif

#endif
