/* cli/cli.h: what every streamlab command line shares, so that the lab binaries, the
 * grader, the timeline and the benchmarks read their options the same way and say the
 * same thing about a bad one (docs/architecture.md).
 *
 * Options themselves are parsed with getopt_long by each program; this is the part around
 * it: numbers in a range, seeds, the message for an option getopt_long refused, paths
 * given to `bazel run`, which are the user's, not the runfiles directory's, and the names
 * of the signals a program reports. */
#ifndef STREAMLAB_CLI_H
#define STREAMLAB_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A whole decimal number from lo to hi, all of text ("12", not "12x", "", " 12" or
 * "1e3"). False, with *out untouched, otherwise. */
bool cli_int(const char *text, long long lo, long long hi, long long *out);

/* A non-negative whole number of up to 64 bits, decimal or 0x-hexadecimal (a seed).
 * False for anything else, a sign included. */
bool cli_u64(const char *text, uint64_t *out);

/* After getopt_long returned '?': what was wrong, in the words every streamlab program
 * uses ("option '--runs' needs a value", "unknown option '--rnus'"). options is the table
 * given to getopt_long. */
void cli_refused(int argc, char **argv, const struct option *options, char *err, size_t err_len);

/* A signal's name as every streamlab program writes it ("SIGSEGV", "SIGSYS"), or NULL for
 * one the C library has no name for (each caller says such a one its own way). */
const char *cli_signal_name(int sig);

/* A path the user typed: relative paths are taken from the directory `bazel run` was
 * typed in (BUILD_WORKING_DIRECTORY) when there is one. Returns path itself or buf. */
const char *cli_user_path(const char *path, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
