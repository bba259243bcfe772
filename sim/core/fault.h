/* sim/core/fault.h: an asynchronous fault of the simulated device (a kernel that touched
 * memory outside every allocation): once raised, the device moves no more data, and the
 * runtime API turns it into its sticky error (sim/errors.c) until a reset. */
#ifndef STREAMLAB_SIM_CORE_FAULT_H
#define STREAMLAB_SIM_CORE_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sim_fault_kind {
    SIM_FAULT_NONE = 0,
    SIM_FAULT_ILLEGAL_ADDRESS /* a load or store outside every allocation */
} sim_fault_kind;

/* Raises a fault (the first one wins). */
void sim_fault_raise(sim_fault_kind kind);
/* The fault raised since the last clear, or SIM_FAULT_NONE. */
sim_fault_kind sim_fault_current(void);
/* Forgets it (a reset). */
void sim_fault_clear(void);

#ifdef __cplusplus
}
#endif

#endif
