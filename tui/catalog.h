/* tui/catalog.h: the labs that exist, read from labs/catalog.json (cJSON): each lab's id,
 * number, title, the Bazel labels of its launchers (yours and the reference), which
 * the TUI finds among its runfiles, and the student's file (to tell when it is newer than
 * the build the TUI runs). */
#ifndef STREAMLAB_TUI_CATALOG_H
#define STREAMLAB_TUI_CATALOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tui_lab {
    char id[64];          /* "03_double_buffer" */
    int number;           /* 3 */
    char title[128];      /* "Double buffering: overlap copies and compute" */
    char program[2][128]; /* runfiles paths of the launchers, by tui_variant:
                             "labs/03_double_buffer", "solutions/03_double_buffer" */
    char student_file[192]; /* the student's file in the workspace ("labs/03_double_buffer/lab.c");
                               "" when the entry names none */
} tui_lab;

typedef struct tui_catalog {
    tui_lab *labs;
    size_t n;
} tui_catalog;

/* Parses the catalog's JSON text. Returns 0, or -1 with a message in err (the catalog is
 * then empty). Entries are checked: a missing or mistyped field, a label that is not
 * "//package:name", or a repeated id is an error. */
int tui_catalog_parse(const char *json, tui_catalog *out, char *err, size_t err_size);
/* Reads and parses a file. */
int tui_catalog_load(const char *path, tui_catalog *out, char *err, size_t err_size);
void tui_catalog_free(tui_catalog *c);

/* The lab named by id ("03_double_buffer"), by its number ("03", "3"), or by a unique
 * prefix of its id ("03_d"); -1 when none matches, -2 when several do. */
long tui_catalog_find(const tui_catalog *c, const char *name);

/* "//labs:03_double_buffer" -> "labs/03_double_buffer". Returns 0, or -1 when the label
 * is not of that form (or has "..", or is too long). */
int tui_label_to_path(const char *label, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
