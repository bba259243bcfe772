/* cli/cli.c: the shared parts of streamlab's command lines (see cli.h). */
#define _GNU_SOURCE
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_int(const char *text, long long lo, long long hi, long long *out) {
    if (!text || !*text || !((*text >= '0' && *text <= '9') || *text == '-')) return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool cli_u64(const char *text, uint64_t *out) {
    if (!text || !(*text >= '0' && *text <= '9')) return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end) return false;
    *out = (uint64_t)v;
    return true;
}

/* The long option argv names ("--runs" or "--runs=x"), or NULL. */
static const struct option *find_long(const char *arg, const struct option *options) {
    if (!arg || strncmp(arg, "--", 2) != 0) return NULL;
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    for (const struct option *o = options; o && o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len)) return o;
    return NULL;
}

void cli_refused(int argc, char **argv, const struct option *options, char *err, size_t err_len) {
    const char *arg = optind >= 1 && optind <= argc ? argv[optind - 1] : NULL;
    const struct option *o = find_long(arg, options);
    if (o && o->has_arg == required_argument)
        snprintf(err, err_len, "option '--%s' needs a value", o->name);
    else if (o && o->has_arg == no_argument)
        snprintf(err, err_len, "option '--%s' takes no value", o->name);
    else if (optopt > 0 && optopt < 256)
        snprintf(err, err_len, "unknown option '-%c'", optopt);
    else
        snprintf(err, err_len, "unknown option '%s'", arg ? arg : "?");
}

const char *cli_user_path(const char *path, char *buf, size_t len) {
    const char *wd = getenv("BUILD_WORKING_DIRECTORY");
    if (!path || !*path || path[0] == '/' || !wd || !*wd) return path;
    snprintf(buf, len, "%s/%s", wd, path);
    return buf;
}

const char *cli_signal_name(int sig) {
    static char names[NSIG][24];
    if (sig <= 0 || sig >= NSIG) return NULL;
    if (!names[sig][0]) {
        const char *abbrev = sigabbrev_np(sig);
        if (!abbrev) return NULL;
        snprintf(names[sig], sizeof(names[sig]), "SIG%s", abbrev);
    }
    return names[sig];
}
