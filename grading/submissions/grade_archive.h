/* grading/submissions/grade_archive.h: reading a student's archive (.zip, .tar.gz, .tgz, .tar; any
 * format libarchive recognises) into a file index, without extracting anything to disk:
 * the entries' names, and the bytes of those that may be wanted. Entries with absolute
 * paths or ".." are ignored; so are links and devices. An archive that libarchive cannot
 * read, or that claims more than a sane amount of data, is reported as unreadable. */
#ifndef STREAMLAB_GRADE_ARCHIVE_H
#define STREAMLAB_GRADE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/submissions/grade_index.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a file name looks like an archive the grader reads; *stem_len is the length of
 * the name without the extension. */
bool grade_archive_name(const char *name, size_t *stem_len);
/* Indexes the archive at path. Returns 0, or -1 with "NAME: why" in err. */
int grade_archive_index(const char *path, const grade_wanted *wanted, size_t n, bool loose, grade_index *idx,
                        char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
