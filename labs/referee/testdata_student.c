/* labs/referee/testdata_student.c: a student's process for process_test: it attaches to the
 * referee and answers each phase as its first argument says (an honest one, one that
 * crashes, hangs, writes nonsense into the ring, or tries to read the referee's memory). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "labs/referee/student.h"

enum { OP_ADD_ONE = LAB_OP_FIRST_CALL, OP_NOTE = LAB_OP_FIRST_CALL + 1 };

/* What the process could learn of its referee: 1 when the referee's memory or environment
 * could be read. */
static int peek(void) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)getppid());
    int fd = open(path, O_RDONLY);
    if (fd >= 0) return 1;
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)getppid());
    fd = open(path, O_RDONLY);
    if (fd >= 0) {
        char buf[16];
        ssize_t n = read(fd, buf, sizeof(buf));
        close(fd);
        if (n > 0) return 1;
    }
    return 0;
}

/* Every way to write the outputs' memory the student's process has; each must fail. */
static int write_outputs(lab_student *s) {
    volatile uint32_t *out = s->outputs.base;
    if (out[0] != 0xfeedu) return 2;
    if (mprotect(s->outputs.base, 4096, PROT_READ | PROT_WRITE) == 0) return 11;
    /* The process keeps no descriptor of the memory files once they are mapped. */
    if (s->outputs.fd >= 0 || s->shm.fd >= 0) return 15;
    for (int d = 3; d < 64; d++)
        if (fcntl(d, F_GETFD) >= 0) return 16;
    /* A mapping's file, reopened through /proc: sealed all the same. */
    char path[96];
    snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)(uintptr_t)s->outputs.base,
             (unsigned long)((uintptr_t)s->outputs.base + s->outputs.bytes));
    int fd = open(path, O_RDWR);
    if (fd < 0) fd = open(path, O_RDONLY);
    if (fd >= 0) {
        void *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (w != MAP_FAILED) return 13;
        if (write(fd, "x", 1) == 1) return 14;
        close(fd);
    }
    return 10;
}

static int run(lab_student *s, const char *how) {
    if (!strcmp(how, "outputs")) return write_outputs(s);
    /* SIGILL: a sanitizer's runtime leaves it alone (it turns SIGSEGV into an abort). */
    if (!strcmp(how, "crash")) raise(SIGILL);
    if (!strcmp(how, "hang"))
        for (;;) pause();
    if (!strcmp(how, "garbage")) {
        memset((char *)s->control + LAB_CONTROL_BYTES, 0x5a, 256);
        for (;;) pause();
    }
    if (!strcmp(how, "peek")) return peek() ? 99 : 5;
    if (!strcmp(how, "env")) return getenv("STREAMLAB_SECRET") ? 98 : 6;
    /* Honest: 1000 one-way notes, their sum written into the shared data as well. */
    uint64_t sum = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        lab_ring_send(s->ring, OP_NOTE, &i, sizeof(i));
        sum += i;
    }
    memcpy(s->data, &sum, sizeof(sum));
    return 7;
}

int main(int argc, char **argv) {
    lab_student s;
    char err[256];
    int a = lab_student_attach(&s, argc, argv, err, sizeof(err));
    if (a != 0) {
        fprintf(stderr, "testdata_student: %s\n", a > 0 ? "not started by a referee" : err);
        return 2;
    }
    const char *how = argc > 2 ? argv[1] : "honest";
    for (;;) {
        lab_phase p = lab_student_next_phase(&s);
        if (p == LAB_PHASE_EXIT) _exit(0);
        if (p == LAB_PHASE_SETUP) {
            uint32_t v = 41, answer = 0;
            uint64_t seq = lab_ring_send(s.ring, OP_ADD_ONE, &v, sizeof(v));
            lab_ring_await(s.ring, seq, &answer, sizeof(answer));
            lab_student_phase_done(&s, answer == 42 ? 0 : 1);
        } else if (p == LAB_PHASE_RUN) {
            lab_student_phase_done(&s, run(&s, how));
        } else {
            lab_student_phase_done(&s, 0);
        }
    }
}
