/* labs/client/context.h: the lab_ctx the student's code is given in the student's process:
 * the workload and the addresses of the lab's inputs and outputs, as the referee gave them
 * (in the memory both processes share), and the student's own state. */
#ifndef STREAMLAB_LAB_CLIENT_CONTEXT_H
#define STREAMLAB_LAB_CLIENT_CONTEXT_H

#include "labs/harness/lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Asks the referee for the context (once, before the first phase). */
lab_ctx *lab_client_context_load(void);

#ifdef __cplusplus
}
#endif

#endif
