/* grading/out/grade_beneath.h: files and folders written below one folder and never outside
 * it: the class's --out. Every path is relative to the folder's descriptor and walked one
 * component at a time (openat, mkdirat, O_NOFOLLOW | O_DIRECTORY), so that neither a name
 * holding "..", an absolute path nor a symbolic link placed in the folder beforehand can
 * send a write elsewhere: "." and ".." components and empty ones are refused, a symbolic
 * link where a folder is expected is refused, and a file is written through a temporary
 * file beside it and renamed into place, which replaces a link in its way instead of
 * following it. Each function returns 0, or -1 with err naming the path (shown: how the
 * folder is called in messages, e.g. the --out path as given). */
#ifndef STREAMLAB_GRADE_BENEATH_H
#define STREAMLAB_GRADE_BENEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the folder rel below dir_fd ("" or NULL: dir_fd itself), creating the missing
 * folders with mode when create is set. Returns a descriptor (O_DIRECTORY, close-on-exec)
 * or -1 with err. */
int grade_beneath_dir(int dir_fd, const char *shown, const char *rel, bool create, mode_t mode, char *err,
                      size_t err_len);
/* Writes data to the file rel below dir_fd (mode 0644), creating its folders (0755). */
int grade_beneath_write(int dir_fd, const char *shown, const char *rel, const char *data, size_t len, char *err,
                        size_t err_len);
/* Removes the file rel below dir_fd; a missing one is fine. */
int grade_beneath_unlink(int dir_fd, const char *shown, const char *rel, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
