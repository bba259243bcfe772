/* labs/objcheck/main.c: objcheck, the command that checks a student's compiled lab file
 * before it is linked (objcheck.h says what it refuses).
 *
 *   objcheck [--source labs/03_double_buffer/lab.c] [--sanitized] [--stamp FILE] OBJECT...
 *   objcheck --list
 *
 * Prints each refusal as a compiler prints an error ("file:line: not accepted: ...") and
 * exits 1 when any object is refused, 0 when all are accepted (and then writes the stamp
 * file, for a build action), 2 on bad usage. labs/lab.bzl runs it on every lab binary's
 * student object; the grader's kits carry it (grading/kit.bzl). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "labs/objcheck/allow.h"
#include "labs/objcheck/objcheck.h"

static void usage(FILE *to) {
    fputs("usage: objcheck [--source FILE] [--sanitized] [--stamp FILE] OBJECT...\n"
          "       objcheck --list\n"
          "Checks a compiled lab file before it is linked: no constructors or destructors, no global\n"
          "definition but LAB_STUDENT, and only the calls a lab may make (docs/labs.md).\n"
          "  --source FILE  the student's file as it was compiled (for the lines of refusals)\n"
          "  --sanitized    the object was built with -fsanitize=address/undefined: accept what\n"
          "                 the sanitizers add\n"
          "  --stamp FILE   written when every object is accepted\n"
          "  --list         prints the names a lab file may use\n",
          to);
}

int main(int argc, char **argv) {
    static const struct option options[] = {
        {"source", required_argument, NULL, 's'},
        {"stamp", required_argument, NULL, 't'},
        {"sanitized", no_argument, NULL, 'z'},
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    lab_objcheck_options opt = {0};
    const char *stamp = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': opt.source = optarg; break;
        case 'z': opt.sanitized = true; break;
        case 't': stamp = optarg; break;
        case 'l': {
            size_t n;
            const char *const *names = lab_objcheck_api_names(&n);
            for (size_t i = 0; i < n; i++) printf("%s\n", names[i]);
            names = lab_objcheck_libc_names(&n);
            for (size_t i = 0; i < n; i++) printf("%s\n", names[i]);
            return 0;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "objcheck: no object to check\n");
        usage(stderr);
        return 2;
    }
    int status = 0;
    for (int i = optind; i < argc; i++) {
        lab_objcheck_result r;
        if (lab_objcheck_file(argv[i], &opt, &r) != 0) status = 1;
        lab_objcheck_print(&r, argv[i], stdout);
        lab_objcheck_result_free(&r);
    }
    fflush(stdout);
    if (status == 0 && stamp) {
        FILE *f = fopen(stamp, "w");
        if (!f || fputs("accepted\n", f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "objcheck: cannot write %s\n", stamp);
            return 2;
        }
    }
    return status;
}
