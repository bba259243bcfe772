/* sim/core/clock.h: the host thread's virtual clock. Runtime calls charge their host cost
 * to it (perturbed when a perturbation is set), waits move it to the completion they
 * waited for, and host functions (which run on the driver's thread on a real GPU) do not
 * hold it up. The runtime-call framing around it is sim/call.h's. */
#ifndef STREAMLAB_SIM_CORE_CLOCK_H
#define STREAMLAB_SIM_CORE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Charges ns of host time (perturbed). */
void sim_host_charge(double ns);
/* Moves the host clock forward to t (no-op if it is already later). */
void sim_host_advance_to(uint64_t t);
/* The host clock. */
uint64_t sim_host_now(void);

/* Host functions run on the simulator's thread; runtime calls made from one fail. */
void sim_host_fn_enter(void);
void sim_host_fn_leave(void);
bool sim_in_host_fn(void);
/* Work a host function's body does (sim_host_work inside it): it runs on the runtime's
 * host-function thread, so it lengthens the function's op, not the program's clock.
 * sim_host_fn_enter zeroes it; sim_host_fn_work reads it after the body returns. */
void sim_host_fn_add_work(uint64_t ns);
uint64_t sim_host_fn_work(void);

/* Back to time 0. */
void sim_host_clock_reset(void);

/* ns rounded to the clock's unit, 0 for nothing or less, saturating. */
uint64_t sim_clock_ns(double ns);

#ifdef __cplusplus
}
#endif

#endif
