/* sim/events.h: the event calls of the simulated runtime (cudaEventCreate*, Record, Query,
 * Synchronize, ElapsedTime, Destroy, and cudaStreamWaitEvent), over the event table of
 * sim/core/events.h. */
#ifndef STREAMLAB_SIM_EVENTS_H
#define STREAMLAB_SIM_EVENTS_H

#include "sim/core/events.h"

#endif
