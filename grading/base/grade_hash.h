/* grading/base/grade_hash.h: fingerprints of what a grade depends on, so that --resume can tell
 * a student whose result is still good (same submission, kits, rubric and settings) from
 * one to grade again: a 64-bit FNV-1a over bytes, files and folder trees (names and
 * contents, in name order; a symbolic link by its target, never followed). Not a
 * cryptographic hash: it guards against change, not against an adversary (the student
 * cannot write the stored results). */
#ifndef STREAMLAB_GRADE_HASH_H
#define STREAMLAB_GRADE_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRADE_HASH_START 0xcbf29ce484222325ull

uint64_t grade_hash_bytes(uint64_t h, const void *data, size_t len);
uint64_t grade_hash_str(uint64_t h, const char *s);
/* A file, or a folder and everything below it. Returns 0, or -1 with err. */
int grade_hash_path(uint64_t *h, const char *path, char *err, size_t err_len);
/* 16 lower-case hex digits and a NUL into out[17]. */
void grade_hash_hex(uint64_t h, char out[17]);

#ifdef __cplusplus
}
#endif

#endif
