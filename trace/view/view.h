/* trace/view/view.h: the front door of trace/view/, what a run's records look like to
 * people: the timeline store and what is read from it (docs/architecture.md).
 *
 * timeline.h keeps the timed ops (a recorder sink, or filled from the event stream);
 * metrics.h measures a run (utilisation, overlap, the pipeline bound); stalls.h says what
 * the legacy default stream held back; polls.h which queries were host waits; blame.h
 * what each wait cost the run's critical path; export_text.h and export_chrome.h draw a
 * run. */
#ifndef STREAMLAB_TRACE_VIEW_VIEW_H
#define STREAMLAB_TRACE_VIEW_VIEW_H

#include "trace/view/timeline.h"

#endif
