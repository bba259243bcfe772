/* labs/referee/shm.c: the memory the referee and the student's process share (see shm.h). */
#define _GNU_SOURCE
#include "labs/referee/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

/* Where to map: below where Linux puts programs (0x55..., 0x56...) and the mmap area
 * (0x7f...), above the heap of a non-PIE program, with room for the largest region. */
static const uintptr_t candidates[] = {
    (uintptr_t)0x3e0000000000ull, (uintptr_t)0x2e0000000000ull, (uintptr_t)0x1e0000000000ull,
    (uintptr_t)0x4e0000000000ull, (uintptr_t)0x0e0000000000ull,
};

static void *map_at(int fd, uintptr_t at, size_t bytes, bool writable) {
    void *p = mmap((void *)at, bytes, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
    if (p == MAP_FAILED) return NULL;
    if ((uintptr_t)p != at) { /* a kernel without MAP_FIXED_NOREPLACE treats it as a hint */
        munmap(p, bytes);
        errno = EEXIST;
        return NULL;
    }
    return p;
}

int lab_shm_create(lab_shm *shm, size_t bytes, int inherited_fd, char *err, size_t err_len) {
    memset(shm, 0, sizeof(*shm));
    shm->fd = -1;
    int fd = inherited_fd;
    if (fd < 0) {
        fd = memfd_create("streamlab-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0) {
            snprintf(err, err_len, "cannot make the shared memory: memfd_create: %s", strerror(errno));
            return -1;
        }
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < bytes) {
        if (ftruncate(fd, (off_t)bytes) != 0) {
            snprintf(err, err_len, "cannot make %zu MiB of shared memory: %s%s", bytes >> 20, strerror(errno),
                     errno == EFBIG ? " (a file size limit: whoever starts the lab can pass memory files in "
                                      LAB_SHM_FDS_ENV ")"
                                    : "");
            if (fd != inherited_fd) close(fd);
            return -1;
        }
    }
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        void *p = map_at(fd, candidates[i], bytes, true);
        if (p) {
            shm->fd = fd;
            shm->base = p;
            shm->bytes = bytes;
            return 0;
        }
    }
    snprintf(err, err_len, "cannot map the shared memory at any of its addresses: %s", strerror(errno));
    if (fd != inherited_fd) close(fd);
    return -1;
}

int lab_shm_seal_writes(lab_shm *shm, char *err, size_t err_len) {
    if (fcntl(shm->fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        snprintf(err, err_len, "cannot seal the outputs' memory against the student's writes: %s%s", strerror(errno),
                 errno == EPERM ? " (made without MFD_ALLOW_SEALING)" : errno == EINVAL ? " (Linux 5.1 or newer needed)" : "");
        return -1;
    }
    return 0;
}

int lab_shm_attach(lab_shm *shm, int fd, void *base, size_t bytes, bool writable, char *err, size_t err_len) {
    memset(shm, 0, sizeof(*shm));
    shm->fd = -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < bytes) {
        snprintf(err, err_len, "the shared memory is smaller than %zu bytes", bytes);
        return -1;
    }
    void *p = map_at(fd, (uintptr_t)base, bytes, writable);
    if (!p) {
        snprintf(err, err_len, "cannot map the shared memory at %p: %s", base, strerror(errno));
        return -1;
    }
    shm->fd = fd;
    shm->base = p;
    shm->bytes = bytes;
    return 0;
}

void lab_shm_close(lab_shm *shm) {
    if (shm->base) munmap(shm->base, shm->bytes);
    if (shm->fd >= 0) close(shm->fd);
    memset(shm, 0, sizeof(*shm));
    shm->fd = -1;
}

bool lab_shm_contains(const lab_shm *shm, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)shm->base;
    return shm->base && a >= b && n <= shm->bytes && a - b <= shm->bytes - n;
}
