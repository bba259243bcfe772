/* grading/testdata/hostile/macro_bomb.c: a lab file whose run() uses a macro that expands
 * to 10^10 tokens: the preprocessor works on it for minutes and gigabytes (it held a
 * worker for 120 s per lab; a class of them held the grader for hours).
 * Expected: the compile is stopped at its CPU-time (--compile-timeout) or memory limit and
 * the lab "does not compile: the compiler took too long" (or "used too much memory"),
 * with the limit in the reason; the others of the class are graded as alone. */
#include "labs/harness/lab.h"

#define X0 x, x, x, x, x, x, x, x, x, x
#define X1 X0, X0, X0, X0, X0, X0, X0, X0, X0, X0
#define X2 X1, X1, X1, X1, X1, X1, X1, X1, X1, X1
#define X3 X2, X2, X2, X2, X2, X2, X2, X2, X2, X2
#define X4 X3, X3, X3, X3, X3, X3, X3, X3, X3, X3
#define X5 X4, X4, X4, X4, X4, X4, X4, X4, X4, X4
#define X6 X5, X5, X5, X5, X5, X5, X5, X5, X5, X5
#define X7 X6, X6, X6, X6, X6, X6, X6, X6, X6, X6
#define X8 X7, X7, X7, X7, X7, X7, X7, X7, X7, X7
#define X9 X8, X8, X8, X8, X8, X8, X8, X8, X8, X8

static int setup(lab_ctx *ctx) {
    (void)ctx;
    return 0;
}

static int run(lab_ctx *ctx) {
    (void)ctx;
    int x = 1;
    int table[] = {X9};
    return table[0] - x;
}

static void teardown(lab_ctx *ctx) { (void)ctx; }

const lab_impl LAB_STUDENT = {setup, run, teardown};
