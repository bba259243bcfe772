/* trace/view/export_chrome.h: a timeline as Chrome/Perfetto trace JSON (the "Trace Event
 * Format"), for chrome://tracing, ui.perfetto.dev or Nsight-less inspection of a run.
 *
 * Two processes: "engines" (one track each for the H2D engine, compute, the D2H engine,
 * the host, harness phases and races) and "streams" (one track per stream). Tracks are
 * named and ordered with "M" metadata events (process_name, process_sort_index,
 * thread_name, thread_sort_index). Every op with a duration is an "X" event on its
 * engine's track and on its stream's track, ts and dur in microseconds from the first
 * op; event records and waits are instant ("i") events on their stream. args carry op,
 * kind, dir, bytes, batch, run, stream, stream_name, pinned, GB/s and grid/block; races are
 * marked on both of their ops and linked by flow events (trace_export_chrome_json). */
#ifndef STREAMLAB_TRACE_EXPORT_CHROME_H
#define STREAMLAB_TRACE_EXPORT_CHROME_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "trace/check/race.h"
#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Track ids (Trace Event Format pid/tid). */
#define TRACE_CHROME_PID_ENGINES 1
#define TRACE_CHROME_PID_STREAMS 2
#define TRACE_CHROME_TID_PHASES 10
#define TRACE_CHROME_TID_RACES 11
/* A stream's tid in the streams process is its id + 1; an engine's is its trace_engine. */

/* A run on several devices (trace_timeline_multi_device) has instead: process "host"
 * (TRACE_CHROME_PID_ENGINES: the host track, phases and races), a process per device
 * used, "GPU 0", "GPU 1" (its engines' tracks, tid the trace_engine, and its streams',
 * tid TRACE_CHROME_TID_STREAM_BASE + the stream id), and "link" (a track per direction
 * of peer copies, "GPU 0 -> GPU 1"). A peer copy's args carry src_device and dst_device,
 * and every op's its device. */
#define TRACE_CHROME_PID_DEVICE(d) (3 + (int)(d))
#define TRACE_CHROME_PID_LINK (3 + TRACE_MAX_DEVICES)
#define TRACE_CHROME_TID_STREAM_BASE 100
#define TRACE_CHROME_TID_LINK(src, dst) (1 + (int)(src) * TRACE_MAX_DEVICES + (int)(dst))

/* The trace of run (TRACE_RUN_ANY: all kept), with races (may be NULL). Each race whose ops
 * are in the run has: an instant on the races track at its later op's start, named "RAW race
 * 1: H2D batch 3 / kernel process batch 3"; a mark ("race 1 RAW (earlier op)", "... (later
 * op)") on each op's own track (its stream's, else its engine's); a flow arrow ("s" then "f",
 * id the race's seq, bound to the bars) from the earlier op to the later one; and a "races"
 * argument on both ops' bars naming it. The race's args carry its number (seq: the caller
 * numbers them, the TUI 1, 2, ... within the run as the report does), kind, both ops, their
 * streams, the student's lines (trace_race_op.line, where the caller filled them in), the
 * bytes and the fix. NULL only when out of memory. The caller frees it with cJSON_Delete. */
cJSON *trace_export_chrome_json(trace_timeline *tl, int32_t run, const trace_race *races, size_t n_races);

/* Writes it to path. Returns 0, or -1 with a message in err. */
int trace_export_chrome_file(trace_timeline *tl, int32_t run, const trace_race *races, size_t n_races,
                             const char *path, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
