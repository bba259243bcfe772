/* cuda_calls/cuda_calls_gen.c: writes what is made from the list of CUDA calls
 * (cuda_calls.inc) outside the C preprocessor's reach, to standard output:
 *
 *   cuda_calls_gen --bzl       wrapped.bzl: WRAPPED_CUDA_CALLS, the names trace/gpu/BUILD
 *                              links with -Wl,--wrap= (Bazel cannot read a C header, so
 *                              this file is checked in; //cuda_calls:wrapped_bzl_test
 *                              fails while it differs from what this prints);
 *   cuda_calls_gen --by-name   cuda_calls_by_name.h: for each call and per-thread entry
 *                              point X, CUDA_CALLS_PARAMS_X, CUDA_CALLS_ARGS_X and
 *                              CUDA_CALLS_RET_X, so that code can name one call's
 *                              signature (the interposer's wrapper macros do); a genrule
 *                              writes it at build time.
 *
 * Every entry's fields are checked to be words of their field (cuda_calls.h): a misspelt
 * one fails to compile this file, naming it. */
#include <getopt.h>
#include <stdio.h>

#include "cuda_calls/cuda_calls.h"

/* The words of each field: an entry with another word is an undeclared identifier here. */
enum {
    cuda_calls_kind_device = 1, cuda_calls_kind_error = 1, cuda_calls_kind_memory = 1,
    cuda_calls_kind_copy = 1, cuda_calls_kind_stream = 1, cuda_calls_kind_event = 1,
    cuda_calls_kind_graph = 1,
    cuda_calls_sync_async = 1, cuda_calls_sync_sync = 1, cuda_calls_sync_host = 1,
    cuda_calls_sync_pure = 1,
    cuda_calls_per_thread_ptds = 1, cuda_calls_per_thread_ptsz = 1, cuda_calls_per_thread_none = 1,
    cuda_calls_gpu_wrapped = 1, cuda_calls_gpu_unwrapped = 1
};

#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                  \
    _Static_assert(cuda_calls_kind_##kind && cuda_calls_sync_##sync && cuda_calls_per_thread_##per_thread && \
                       cuda_calls_gpu_##gpu,                                                             \
                   #name);
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

static const char header_bzl[] =
    "# cuda_calls/wrapped.bzl: written by cuda_calls_gen from cuda_calls.inc; do not edit. After a\n"
    "# change to the list: bazel run //cuda_calls:cuda_calls_gen -- --bzl > cuda_calls/wrapped.bzl\n"
    "\n"
    "# The runtime calls the GPU build's interposer wraps (the list's `wrapped` calls and their\n"
    "# per-thread entry points): trace/gpu/BUILD links with -Wl,--wrap= each of them.\n"
    "WRAPPED_CUDA_CALLS = [\n";

static void write_bzl(void) {
    fputs(header_bzl, stdout);
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                  \
    CUDA_CALLS_IF_WRAPPED(gpu, puts("    \"" #name "\",");                                               \
                          CUDA_CALLS_IF_PER_THREAD(per_thread, puts("    \"" #name "_" #per_thread "\",");))
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
    puts("]");
}

/* One call's macros, the parameters as the list writes them. */
static void by_name(const char *name, const char *ret, const char *params) {
    printf("#define CUDA_CALLS_RET_%s %s\n", name, ret);
    printf("#define CUDA_CALLS_PARAMS_%s CUDA_CALLS_PARAMS(%s)\n", name, params);
    printf("#define CUDA_CALLS_ARGS_%s CUDA_CALLS_ARGS(%s)\n", name, params);
}

static void write_by_name(void) {
    puts("/* cuda_calls_by_name.h: written by cuda_calls_gen --by-name from cuda_calls/cuda_calls.inc.");
    puts(" * CUDA_CALLS_RET_X, CUDA_CALLS_PARAMS_X and CUDA_CALLS_ARGS_X for each call X of the list");
    puts(" * and each per-thread entry point (cudaMemcpy_ptds): its return type, its parameter list");
    puts(" * and the argument list that passes them on. */");
    puts("#ifndef STREAMLAB_CUDA_CALLS_BY_NAME_H");
    puts("#define STREAMLAB_CUDA_CALLS_BY_NAME_H");
    puts("");
    puts("#include \"cuda_calls/cuda_calls.h\"");
    puts("");
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                  \
    by_name(#name, #ret, #params);                                                                       \
    CUDA_CALLS_IF_PER_THREAD(per_thread, by_name(#name "_" #per_thread, #ret, #params);)
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
    puts("");
    puts("#endif");
}

static void usage(FILE *to) {
    fputs("usage: cuda_calls_gen --bzl | --by-name\n"
          "  --bzl      print wrapped.bzl (the names the interposer wraps)\n"
          "  --by-name  print cuda_calls_by_name.h (each call's signature by name)\n",
          to);
}

int main(int argc, char **argv) {
    static const struct option options[] = {
        {"bzl", no_argument, NULL, 'b'},
        {"by-name", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int mode = 0, opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case 'b':
        case 'n':
            if (mode && mode != opt) {
                fputs("cuda_calls_gen: give one of --bzl and --by-name, not both\n", stderr);
                return 64;
            }
            mode = opt;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 64;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cuda_calls_gen: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 64;
    }
    if (!mode) {
        fputs("cuda_calls_gen: say what to print, --bzl or --by-name\n", stderr);
        usage(stderr);
        return 64;
    }
    if (mode == 'b')
        write_bzl();
    else
        write_by_name();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("cuda_calls_gen: writing standard output");
        return 1;
    }
    return 0;
}
