/* trace/check/check.h: the front door of trace/check/, the race checker: a recorder sink
 * that finds pairs of accesses nothing orders (docs/race-checker.md, docs/architecture.md).
 *
 * racecheck.h is the checker (install it as a sink, read its reports); race.h is a race
 * report and its fix in words; vector_clock.h is the happens-before bookkeeping. */
#ifndef STREAMLAB_TRACE_CHECK_CHECK_H
#define STREAMLAB_TRACE_CHECK_CHECK_H

#include "trace/check/race.h"
#include "trace/check/racecheck.h"

#endif
