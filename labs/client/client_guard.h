/* labs/client/client_guard.h: the student process's last words. A fatal signal, or exit()
 * while a phase runs, is written into the control page (protocol.h, lab_last_words) for the
 * referee, which reports it with the student's line; then the process ends as it would
 * have. (The referee's own crash guard is labs/harness/guard.h.) */
#ifndef STREAMLAB_LAB_CLIENT_GUARD_H
#define STREAMLAB_LAB_CLIENT_GUARD_H

#include "labs/referee/protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

void lab_client_guard_install(void);
/* The phase running now (LAB_PHASE_NONE between phases). */
void lab_client_guard_phase(lab_phase phase);

#ifdef __cplusplus
}
#endif

#endif
