/* cli/addr2line.h: reading addr2line's answer. The lab harness (a crash report, the lines
 * of a race) and the grader (the lines of a sandboxed run's races) both run addr2line on
 * a lab binary and turn each line it prints into "file:line" for the student. */
#ifndef STREAMLAB_CLI_ADDR2LINE_H
#define STREAMLAB_CLI_ADDR2LINE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One line of addr2line's answer (n bytes, no newline): "file:line", "file:line
 * (discriminator N)", or "??:0" / "??:?" / "file:?" for an address it has no line for.
 * A found line goes to out as "file:line", the sandbox prefix Bazel compiles under
 * (/proc/self/cwd/) dropped so that the path is the workspace's; cut short if out is
 * small. Returns whether a line was found. Async-signal-safe (no stdio, no allocation). */
bool cli_addr2line_take(const char *line, size_t n, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif
