/* cli/addr2line.h: running addr2line and reading its answer. The lab harness (a crash
 * report, the lines of a race) and the grader (the lines of a sandboxed run's races) both
 * run addr2line on a lab binary and turn each line it prints into "file:line" for the
 * student. Everything here is async-signal-safe: the harness runs it from a crash
 * handler. */
#ifndef STREAMLAB_CLI_ADDR2LINE_H
#define STREAMLAB_CLI_ADDR2LINE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* addr2line is stopped (SIGALRM) after this long. */
#define CLI_ADDR2LINE_LIMIT_S 10

/* The path of addr2line on $PATH (/usr/bin:/bin when unset) into out; "" when there is
 * none. Call it outside a signal handler (it reads the environment). */
void cli_addr2line_find(char *out, size_t out_len);

/* Runs the addr2line at tool with argv (argv[0] "addr2line", then its arguments), stdin
 * and stderr on /dev/null and no other descriptor of the caller's, for at most
 * CLI_ADDR2LINE_LIMIT_S seconds; reads what it prints into buf (at most cap - 1 bytes,
 * NUL-terminated) and reaps it. Returns the bytes read, 0 when it could not be run. */
size_t cli_addr2line_run(const char *tool, char *const argv[], char *buf, size_t cap);

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
