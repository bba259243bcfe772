/* labs/objcheck/testdata/fake_module_ctor.c: a constructor named as gcc names ASan's module
 * constructor, in ASan's section, that reads the environment: objcheck's sanitizer mode
 * accepts a module constructor only when its code calls nothing but the sanitizer, so this
 * one is refused there too (//labs/objcheck:sanitized_test). */
#include <stdlib.h>
#include "labs/harness/lab.h"

static const char *stolen;

__attribute__((constructor(99), used)) static void _sub_I_00099_7(void) { stolen = getenv("STREAMLAB_EVENTS_NONCE"); }

static int setup(lab_ctx *ctx) {
    (void)ctx;
    return stolen == NULL;
}

static int run(lab_ctx *ctx) {
    (void)ctx;
    return 0;
}

static void teardown(lab_ctx *ctx) { (void)ctx; }

const lab_impl LAB_STUDENT = {setup, run, teardown};
