/* labs/referee/privileges.c: the student's process gives up its privileges (see
 * privileges.h). System calls without libcap: capget/capset with the kernel's own structs. */
#define _GNU_SOURCE
#include "labs/referee/privileges.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int lab_drop_privileges(char *err, size_t err_len) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, err_len, "no_new_privs: %s", strerror(errno));
        return -1;
    }
    /* Where it may (it holds CAP_SETPCAP: root), root's capabilities are never given back
     * by an exec or a change of user, and the bounding set is emptied. Without CAP_SETPCAP
     * it has nothing these would take away, and no_new_privs keeps an exec from adding. */
    (void)prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                      SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
                0, 0, 0);
    for (int cap = 0; cap < 64; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break; /* past the last */
    (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capset, &header, data) != 0) {
        snprintf(err, err_len, "capset: %s", strerror(errno));
        return -1;
    }
    if (syscall(SYS_capget, &header, data) != 0) {
        snprintf(err, err_len, "capget: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
        if (data[i].effective || data[i].permitted || data[i].inheritable) {
            snprintf(err, err_len, "capabilities still held after capset");
            return -1;
        }
    return 0;
}
