/* labs/objcheck/allow.c: what a student's lab file may define and call (see allow.h). */
#include "labs/objcheck/allow.h"

#include <ctype.h>
#include <string.h>

#include "cuda_calls/cuda_calls.h"

/* The CUDA runtime calls of the kit's one list (cuda_calls/cuda_calls.inc), with the
 * per-thread entry points that code compiled for per-thread default streams calls, and
 * lab.h's own functions and kernels.h's (api_names.bzl). */
static const char *const api[] = {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
    #name, CUDA_CALLS_IF_PER_THREAD(per_thread, #name "_" #per_thread, )
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
#include "labs/objcheck/api_names.inc"
};

/* The C library a lab may use: what a lab file's host code needs around its CUDA calls.
 * Not here on purpose: the environment (getenv, environ), files and descriptors (open,
 * fopen, read, write, fdopen, dup2), processes and threads (fork, exec*, system, popen,
 * pthread_create, clone, kill), loading code (dlopen, dlsym), raw system calls (syscall),
 * signals (signal, sigaction, sigprocmask, alarm, setitimer), memory protection (mmap,
 * mprotect), sockets, ptrace, code at exit (atexit, on_exit, at_quick_exit), sleeping and
 * long jumps (setjmp, longjmp). */
static const char *const libc[] = {
    /* string.h, and what gcc emits for copies and clears on its own */
    "memchr", "memcmp", "memcpy", "memmove", "memset", "strcat", "strchr", "strcmp", "strcpy", "strcspn", "strlen",
    "strncat", "strncmp", "strncpy", "strnlen", "strpbrk", "strrchr", "strspn", "strstr", "strerror",
    /* stdlib.h: allocation, numbers, sorting, ending the program */
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "abs", "labs", "llabs", "div", "ldiv",
    "atoi", "atol", "atoll", "atof", "strtol", "strtoll", "strtoul", "strtoull", "strtod", "strtof", "qsort",
    "bsearch", "rand", "srand", "exit", "abort",
    /* glibc 2.38's names for the strto* of C23 */
    "__isoc23_strtol", "__isoc23_strtoll", "__isoc23_strtoul", "__isoc23_strtoull",
    /* stdio.h: printing, to stdout and stderr and into strings */
    "stdout", "stderr", "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf",
    "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "fflush", "perror",
    /* _FORTIFY_SOURCE's checked versions of the above */
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vprintf_chk", "__vfprintf_chk",
    "__vsprintf_chk", "__vsnprintf_chk", "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk",
    "__strncpy_chk", "__strcat_chk", "__strncat_chk", "__stpcpy_chk",
    /* ctype.h (its macros read these tables) */
    "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc", "tolower", "toupper", "isalpha", "isdigit",
    "isspace", "isalnum", "isupper", "islower", "isxdigit", "isprint",
    /* math.h */
    "sqrt", "sqrtf", "cbrt", "cbrtf", "pow", "powf", "exp", "expf", "exp2", "exp2f", "log", "logf", "log2", "log2f",
    "log10", "log10f", "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "lround", "lroundf",
    "llround", "llroundf", "trunc", "truncf", "rint", "rintf", "lrint", "lrintf", "nearbyint", "fmod", "fmodf",
    "fmin", "fminf", "fmax", "fmaxf", "hypot", "hypotf", "ldexp", "frexp", "modf", "sin", "sinf", "cos", "cosf",
    "tan", "tanf", "asin", "acos", "atan", "atanf", "atan2", "atan2f", "sinh", "cosh", "tanh", "tanhf",
    /* reading a clock (on the simulator lab_host_ms is the host's clock) */
    "clock_gettime", "clock", "time",
    /* errno and assert */
    "__errno_location", "__assert_fail",
    /* what the compiler emits: the stack protector, libgcc's arithmetic, position-
     * independent code and thread-local variables */
    "__stack_chk_fail", "__stack_chk_guard", "_GLOBAL_OFFSET_TABLE_", "__tls_get_addr", "__popcountdi2",
    "__popcountsi2", "__clzdi2", "__ctzdi2", "__bswapsi2", "__bswapdi2", "__divti3", "__udivti3", "__modti3",
    "__umodti3", "__udivmodti4", "__muldc3", "__mulsc3", "__divdc3", "__divsc3", "__powidf2", "__powisf2",
    "__floattidf", "__floatuntidf", "__fixdfti", "__fixunsdfti",
};

static const char *const definable[] = {"LAB_STUDENT"};

static bool in(const char *const *list, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], name)) return true;
    return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool lab_objcheck_may_define(const char *name) { return in(definable, COUNT(definable), name); }

bool lab_objcheck_may_use(const char *name) { return in(api, COUNT(api), name) || in(libc, COUNT(libc), name); }

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

const char *lab_objcheck_owner(const char *name) {
    if (in(api, COUNT(api), name)) {
        if (starts(name, "cuda")) return "a name of the CUDA runtime";
        if (starts(name, "kernels_")) return "a name of the kernels";
        return "a name of the harness";
    }
    if (in(libc, COUNT(libc), name)) return "a name of the C library";
    if (!strcmp(name, "LAB_SPEC") || starts(name, "lab_spec_")) return "a name of the lab's spec";
    if (starts(name, "lab_") || starts(name, "LAB_") || !strcmp(name, "main")) return "a name of the harness";
    if (starts(name, "sim_")) return "a name of the simulator";
    if (starts(name, "trace_")) return "a name of the tracer";
    if (starts(name, "kernels_")) return "a name of the kernels' internals";
    if (starts(name, "cuda") || (starts(name, "cu") && isupper((unsigned char)name[2])))
        return "a CUDA call the labs do not offer";
    if (starts(name, "cli_") || starts(name, "grade_") || starts(name, "tui_")) return "a name of the kit";
    return NULL;
}

const char *const *lab_objcheck_api_names(size_t *n) {
    *n = COUNT(api);
    return api;
}

const char *const *lab_objcheck_libc_names(size_t *n) {
    *n = COUNT(libc);
    return libc;
}
