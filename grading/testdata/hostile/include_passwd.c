/* grading/testdata/hostile/include_passwd.c: a lab file that includes the grading host's
 * /etc/passwd, hoping the compiler quotes its first line in the error it reports (it did:
 * the compile could read /etc and all of /usr).
 * Expected: the compiler cannot open it ("/etc/passwd: Permission denied"), the lab does not
 * compile, and no line of the file appears in the student's report. */
#include "/etc/passwd"
#include "labs/harness/lab.h"

static int setup(lab_ctx *ctx) {
    (void)ctx;
    return 0;
}

static int run(lab_ctx *ctx) {
    (void)ctx;
    return 0;
}

static void teardown(lab_ctx *ctx) { (void)ctx; }

const lab_impl LAB_STUDENT = {setup, run, teardown};
