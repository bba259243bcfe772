/* labs/referee/privileges.h: the student's process gives up every privilege it was started
 * with, before any of the student's code runs.
 *
 * The referee (the lab binary, its parent) is not dumpable, so a process of the same user
 * cannot read its environment (the result channel's nonce), its memory or its descriptors
 * (the event stream) through /proc, attach to it with ptrace, or read it with
 * process_vm_readv. A process with CAP_SYS_PTRACE can do all of these anyway, and a lab
 * often runs as root: in a container, a CI job, a build sandbox, or the grader's. So the
 * student's process drops every capability it has, empties its bounding set (an exec of
 * any program, a set-user-ID one included, gives none back) and locks root's special
 * treatment off; uid 0 without capabilities is one more user to the kernel's checks.
 *
 * The referee does it in its child before it starts the student's program (process.c), so
 * nothing of that program runs with a privilege; the client does it again first thing
 * (labs/client/main.c), for a student's program started some other way. */
#ifndef STREAMLAB_LAB_REFEREE_PRIVILEGES_H
#define STREAMLAB_LAB_REFEREE_PRIVILEGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Drops every capability of the calling process for good (and sets no_new_privs). Returns
 * 0 when it holds none afterwards, or -1 with err filled. */
int lab_drop_privileges(char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
