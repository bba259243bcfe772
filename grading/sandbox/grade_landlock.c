/* grading/sandbox/grade_landlock.c: Landlock rulesets through the raw system calls (see
 * grade_landlock.h). */
#define _GNU_SOURCE
#include "grading/sandbox/grade_landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* Access rights by ABI version (include/uapi/linux/landlock.h of the kernel). */
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_ALL (0x7FULL << 6) /* MAKE_CHAR .. MAKE_SYM */
#define LL_FS_REFER (1ULL << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define LL_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

#define LL_READ (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE)

/* The ruleset attribute as of ABI 6; older kernels are given a shorter prefix. */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define LL_RULE_PATH_BENEATH 1

int grade_landlock_abi(char *why, size_t why_len) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, (uint32_t)LANDLOCK_CREATE_RULESET_VERSION);
    if (abi >= 1) return (int)abi;
    if (why) {
        if (errno == ENOSYS)
            snprintf(why, why_len, "this kernel has no Landlock (Linux 5.13 or newer has it)");
        else if (errno == EOPNOTSUPP)
            snprintf(why, why_len, "Landlock is built into this kernel but turned off (boot option lsm=...landlock)");
        else
            snprintf(why, why_len, "Landlock is not usable: %s", strerror(errno));
    }
    return -1;
}

static int add_rule(int ruleset, const char *path, uint64_t access, char *err, size_t err_len) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : (snprintf(err, err_len, "landlock: open %s: %s", path, strerror(errno)), -1);
    /* A rule on a single file may carry only the rights that apply to files. */
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= LL_FILE_RIGHTS;
    struct ll_path_beneath pb = {.allowed_access = access, .parent_fd = fd};
    long rc = syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
    int saved = errno;
    close(fd);
    if (rc != 0) {
        snprintf(err, err_len, "landlock: rule for %s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

int grade_landlock_restrict(int abi, const grade_landlock_rules *rules, char *err, size_t err_len) {
    uint64_t fs = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_ALL;
    if (abi >= 2) fs |= LL_FS_REFER;
    if (abi >= 3) fs |= LL_FS_TRUNCATE;
    if (rules->read_dirs) fs |= LL_READ;
    struct ll_ruleset_attr attr = {.handled_access_fs = fs};
    size_t size = sizeof(uint64_t);
    if (abi >= 4) {
        size = 2 * sizeof(uint64_t);
        if (rules->deny_tcp) attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    }
    if (abi >= 6) {
        size = sizeof(attr);
        if (rules->scope_signals) attr.scoped |= LL_SCOPE_SIGNAL;
        if (rules->scope_abstract_sockets) attr.scoped |= LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    }
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) {
        snprintf(err, err_len, "landlock: create ruleset: %s", strerror(errno));
        return -1;
    }
    int rc = 0;
    for (const char *const *p = rules->write_dirs; rc == 0 && p && *p; p++) rc = add_rule(ruleset, *p, fs, err, err_len);
    for (const char *const *p = rules->read_dirs; rc == 0 && p && *p; p++)
        rc = add_rule(ruleset, *p, fs & LL_READ, err, err_len);
    for (const char *const *p = rules->read_dirs ? rules->list_dirs : NULL; rc == 0 && p && *p; p++)
        rc = add_rule(ruleset, *p, LL_FS_READ_DIR, err, err_len);
    for (const char *const *p = rules->write_files; rc == 0 && p && *p; p++)
        rc = add_rule(ruleset, *p, fs & LL_FILE_RIGHTS, err, err_len);
    if (rc == 0 && syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
        snprintf(err, err_len, "landlock: restrict: %s", strerror(errno));
        rc = -1;
    }
    close(ruleset);
    return rc;
}
