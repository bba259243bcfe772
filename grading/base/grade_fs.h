/* grading/base/grade_fs.h: the files and folders the grader makes, reads and removes: the
 * scratch tree, copies of kits, reports. Every function says what went wrong in err
 * (naming the path) and returns -1, or returns 0. */
#ifndef STREAMLAB_GRADE_FS_H
#define STREAMLAB_GRADE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Creates dir and its missing parents with `mode` (an existing folder is fine). */
int grade_mkdir_p(const char *dir, mode_t mode, char *err, size_t err_len);
/* Removes path and everything below it, never following symbolic links. A missing path is
 * fine. */
int grade_rm_rf(const char *path, char *err, size_t err_len);
/* Copies the tree at src to dst (created), regular files and folders only; files get
 * mode 0644 and folders 0755, so that an unprivileged user can read them. */
int grade_copy_tree(const char *src, const char *dst, char *err, size_t err_len);
/* Reads at most max bytes of a regular file into a malloc'd NUL-terminated buffer.
 * *truncated (may be NULL) says whether the file was longer. */
int grade_read_file(const char *path, size_t max, char **data, size_t *len, bool *truncated, char *err,
                    size_t err_len);
/* The same, refusing a symbolic link (for files of a submission). */
int grade_read_file_nofollow(const char *path, size_t max, char **data, size_t *len, bool *truncated, char *err,
                             size_t err_len);
/* Writes data to path through a new temporary file and rename, with mode 0644 (a symbolic
 * link at path is replaced, not followed). Files in --out are written with
 * grade_beneath.h instead. */
int grade_write_file(const char *path, const char *data, size_t len, char *err, size_t err_len);
/* Writes data to a new file (O_EXCL) with the given mode. */
int grade_write_new_file(const char *path, const char *data, size_t len, mode_t mode, char *err, size_t err_len);
/* a/b as a malloc'd string. */
char *grade_path_join(const char *a, const char *b);
/* Whether path is an existing folder / regular file (not following a final symlink for
 * folders: a symbolic link is neither). */
bool grade_is_dir(const char *path);
bool grade_is_file(const char *path);

#ifdef __cplusplus
}
#endif

#endif
