/* trace/view/lane_label.h: a stream lane's label in the columns a view gives it, for the
 * text timeline (export_text.h) and the live timeline (tui/). `s13 "graph branch 1" p-5`
 * when it fits; otherwise the name is shortened in the middle, `s13 "grap…ch 1" p-5`
 * (ASCII: `s13 "grap~ch 1" p-5`), so that the id, both quotes, the suffix and both ends
 * of the name stay (names that differ only at the end, "graph branch 1" and "graph branch
 * 2", stay apart). The view then gives the full name elsewhere: the text timeline in a
 * line under its legend, the live timeline in the selected bar's details. */
#ifndef STREAMLAB_TRACE_LANE_LABEL_H
#define STREAMLAB_TRACE_LANE_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes `id "name" suffix` (no quotes or name when name is NULL or empty, no suffix when
 * it is NULL or empty) in at most cols columns (one per UTF-8 code point) into buf.
 * Returns true when the name was shortened. Where even a one-character name does not
 * fit, the label is cut at cols (a column too narrow for any label). */
bool trace_lane_label_fit(const char *id, const char *name, const char *suffix, size_t cols, bool utf8, char *buf,
                          size_t len);

/* The columns of a UTF-8 string: its code points. */
size_t trace_lane_label_columns(const char *s);

#ifdef __cplusplus
}
#endif

#endif
