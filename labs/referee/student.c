/* labs/referee/student.c: the student process's side of the referee (see student.h). */
#define _GNU_SOURCE
#include "labs/referee/student.h"

#include "labs/referee/spin.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int lab_student_attach(lab_student *s, int argc, char **argv, char *err, size_t err_len) {
    memset(s, 0, sizeof(*s));
    const char *arg = NULL;
    size_t n = strlen(LAB_REFEREE_ARG);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], LAB_REFEREE_ARG, n)) arg = argv[i] + n;
    if (!arg) return 1;
    int fd = -1, ofd = -1;
    uintptr_t base = 0, obase = 0;
    size_t bytes = 0, obytes = 0;
    if (sscanf(arg, "%d,%" SCNxPTR ",%zu,%d,%" SCNxPTR ",%zu", &fd, &base, &bytes, &ofd, &obase, &obytes) != 6 ||
        fd < 0 || !base || !bytes || ofd < 0 || !obase || !obytes) {
        snprintf(err, err_len, "a malformed %s argument: %s", LAB_REFEREE_ARG, arg);
        return -1;
    }
    if (lab_shm_attach(&s->shm, fd, (void *)base, bytes, true, err, err_len) != 0 ||
        lab_shm_attach(&s->outputs, ofd, (void *)obase, obytes, false, err, err_len) != 0)
        return -1;
    /* Mapped: the process keeps no descriptor of them (it has 0-2 only), so nothing written
     * to a descriptor can reach the memory the two share. */
    close(s->shm.fd);
    close(s->outputs.fd);
    s->shm.fd = s->outputs.fd = -1;
    s->control = s->shm.base;
    s->ring = lab_ring_attach((unsigned char *)s->shm.base + LAB_CONTROL_BYTES);
    s->fn_ring = lab_ring_attach((unsigned char *)s->shm.base + LAB_CONTROL_BYTES + s->control->ring_bytes);
    if (!s->ring || !s->fn_ring) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    s->real_device = (s->control->flags & LAB_CONTROL_REAL_DEVICE) != 0;
    uint64_t spin_ns = s->real_device ? LAB_REAL_DEVICE_SPIN_NS : 0;
    lab_ring_set_spin_ns(s->ring, spin_ns);
    lab_ring_set_spin_ns(s->fn_ring, spin_ns);
    s->data = (unsigned char *)s->shm.base + s->control->data_offset;
    s->data_bytes = bytes - s->control->data_offset;
    lab_ring_send(s->ring, LAB_OP_HELLO, NULL, 0);
    return 0;
}

lab_phase lab_student_next_phase(lab_student *s) {
    uint64_t spin_ns = s->real_device ? LAB_REAL_DEVICE_SPIN_NS : 0;
    lab_spin spin = lab_spin_start(spin_ns);
    for (;;) {
        uint32_t seq = __atomic_load_n(&s->control->phase_seq, __ATOMIC_SEQ_CST);
        if (seq != s->phase_seq) {
            s->phase_seq = seq;
            return (lab_phase)s->control->phase;
        }
        /* Asked to be ready: say so, and spin afresh until the phase comes. */
        uint32_t ready = __atomic_load_n(&s->control->ready_seq, __ATOMIC_SEQ_CST);
        if (ready != __atomic_load_n(&s->control->ready_ack, __ATOMIC_SEQ_CST)) {
            __atomic_store_n(&s->control->ready_ack, ready, __ATOMIC_SEQ_CST);
            spin = lab_spin_start(spin_ns);
        }
        if (lab_spin_again(&spin)) continue;
        syscall(SYS_futex, (uint32_t *)&s->control->phase_seq, FUTEX_WAIT, seq, NULL, NULL, 0);
    }
}

void lab_student_phase_done(lab_student *s, int rc) {
    int32_t v = rc;
    lab_ring_send(s->ring, LAB_OP_PHASE_DONE, &v, sizeof(v));
}
