/* grading/build/grade_toolchain.h: what a C compiler needs to read, so that the sandbox can let
 * a compile read that and nothing else of the grading host.
 *
 * Found by asking the compiler (the kit's, which the instructor built with: trusted, and
 * run outside the sandbox): its own folder (-print-search-dirs' install folder, cc1, the
 * plugins), the programs it runs (-print-prog-name: cc1, as, collect2, ld, ld.gold,
 * ld.bfd, lto-wrapper) and the shared libraries of each (ldd), the dynamic loader's cache,
 * the system's C header folders (the #include <...> search list of `cc -E -v`) for a
 * compile, and the library folders (-print-search-dirs) for a link; a library folder that
 * holds another of them, such as /usr/lib beside /usr/lib/x86_64-linux-gnu, may only be
 * listed (the linker lists every folder it searches; gold fails where it cannot). Where the
 * compiler cannot be asked so, the lists are the system's program and library folders
 * (/usr, /lib, /bin, ...), never /etc, /proc, /home or /root, and `asked` is false.
 * Found once per compiler and kept for the life of the process (worker processes inherit
 * what the grader found before it forked them). */
#ifndef STREAMLAB_GRADE_TOOLCHAIN_H
#define STREAMLAB_GRADE_TOOLCHAIN_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_toolchain {
    char *driver;         /* as given ("/usr/bin/gcc") */
    char **compile_reads; /* NULL-terminated files and folders a compile reads */
    char **link_reads;    /* NULL-terminated files and folders a link reads */
    char **link_lists;    /* NULL-terminated folders a link lists and reads nothing in */
    bool asked;           /* false: the compiler could not be asked (why says why) */
    char why[256];
} grade_toolchain;

/* The lists for the compiler driver at `driver` (an absolute path). Never NULL. */
const grade_toolchain *grade_toolchain_get(const char *driver);

#ifdef __cplusplus
}
#endif

#endif
