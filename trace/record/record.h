/* trace/record/record.h: the front door of trace/record/, what happened as op records and
 * the recorder that sources write into and sinks read from (docs/architecture.md).
 *
 * op.h is the record (trace_op, trace_stream); recorder.h is where sources report and
 * sinks subscribe; copy_rules.h and batch_tags.h are what the recorder applies to each
 * copy and range. Include this header, or the one you need. */
#ifndef STREAMLAB_TRACE_RECORD_RECORD_H
#define STREAMLAB_TRACE_RECORD_RECORD_H

#include "trace/record/op.h"
#include "trace/record/recorder.h"

#endif
