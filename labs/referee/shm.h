/* labs/referee/shm.h: the memory the referee and the student's process share.
 *
 * One memory file (memfd), mapped by both processes at the same address, so that a pointer
 * into it means the same bytes on both sides: the pinned host memory the student asks for,
 * the lab's inputs and outputs, the staging of pageable copies, and the command ring. The
 * referee makes it and hands the student's process its descriptor; the student's process
 * maps it where the referee says (lab_shm_attach). The file is sparse: only the pages
 * written cost memory.
 *
 * The lab's outputs live in a second memory file that the student's process can only read:
 * the referee maps it writable, then seals it against any other write (F_SEAL_FUTURE_WRITE),
 * so a result can reach an output only through the referee, by a device-to-host copy.
 *
 * A file the grader's sandbox limits in size (RLIMIT_FSIZE) cannot be made that large
 * inside it, so the one who starts the lab may make the files (memfd_create with
 * MFD_ALLOW_SEALING, sized) and pass their descriptors (lab_shm_create's inherited_fd; the
 * lab binary reads them from STREAMLAB_SHM_FDS, "shared,outputs"). */
#ifndef STREAMLAB_LAB_SHM_H
#define STREAMLAB_LAB_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/referee/protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_shm {
    int fd;          /* the memory file */
    void *base;      /* where it is mapped, the same in both processes */
    size_t bytes;    /* its size */
} lab_shm;

/* Makes (or, with inherited_fd >= 0, takes and resizes) a memory file of bytes and maps it
 * at an address that a freshly started process is unlikely to use. Returns 0, or -1 with
 * err filled. */
int lab_shm_create(lab_shm *shm, size_t bytes, int inherited_fd, char *err, size_t err_len);
/* From now on the file can be written only through the mappings made so far (the referee's):
 * a later mapping, of any process, is read-only. Returns 0, or -1 with err filled. */
int lab_shm_seal_writes(lab_shm *shm, char *err, size_t err_len);
/* Maps the memory file fd of bytes at base, exactly there (the student's process), writable
 * or read-only. Returns 0, or -1 with err filled (the address is taken, or the file is
 * smaller). */
int lab_shm_attach(lab_shm *shm, int fd, void *base, size_t bytes, bool writable, char *err, size_t err_len);
/* Unmaps and closes. */
void lab_shm_close(lab_shm *shm);
/* Whether [p, p + n) lies inside the shared memory. */
bool lab_shm_contains(const lab_shm *shm, const void *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif
