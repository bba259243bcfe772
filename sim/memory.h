/* sim/memory.h: the simulated runtime's allocation calls, over the allocation table of
 * sim/core/memory.h (which says what the simulator knows about memory). */
#ifndef STREAMLAB_SIM_MEMORY_H
#define STREAMLAB_SIM_MEMORY_H

#include "sim/core/memory.h"

#endif
