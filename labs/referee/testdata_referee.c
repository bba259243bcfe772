/* labs/referee/testdata_referee.c: a referee for process_test, started as a program of its own
 * (as a lab binary is, after the grader has become the user nobody): it starts
 * testdata_student (its first argument) in "peek" mode and exits 0 when the student's process
 * could not read its memory or environment, 1 when it could, 2 when it did not run. */
#include <stdio.h>

#include "labs/referee/process.h"

static int serve_nothing(void *ctx, lab_referee *ref, const lab_ring_record *rec, const void *payload) {
    (void)ctx;
    (void)ref;
    (void)rec;
    (void)payload;
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    char *args[] = {argv[1], "peek", "x", NULL};
    lab_referee ref;
    char err[512];
    if (lab_referee_start(&ref, args, 8u << 20, 64u << 10, 1u << 20, -1, -1, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "testdata_referee: %s\n", err);
        return 2;
    }
    int rc = 0;
    lab_phase_end end = lab_referee_phase(&ref, LAB_PHASE_RUN, serve_nothing, NULL, 10000, &rc);
    lab_referee_stop(&ref);
    if (end != LAB_PHASE_ENDED) return 2;
    return rc == 5 ? 0 : 1;
}
