/* grading/grade_sandbox_helper.c: a program that tries, in the sandbox, what a hostile
 * lab might, and prints what happened (grade_sandbox_test runs it):
 *
 *   helper sockets          every socket family and type, socketpair, io_uring: "NAME: ok"
 *                           or "NAME: <error>", one line each
 *   helper udp PORT         a datagram to 127.0.0.1:PORT
 *   helper unix PATH        a datagram to the Unix socket PATH, and a stream connection
 *   helper escape           memfd_create, unshare of a user and mount namespace, a mount
 *   helper write MB         MB MiB into one file in the working folder, then exits 0
 *   helper fill             8 MiB files in the working folder, errors or not, until stopped
 *   helper files            empty files in the working folder, errors or not, until stopped */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* Built with AddressSanitizer (the asan configuration), the helper does without the leak
 * check at exit: LeakSanitizer stops the program with a tracer process of its own, which the
 * sandbox's filter (no new processes) kills with SIGSYS. The lab programs the grader runs
 * get the same through ASAN_OPTIONS (grade_runner.c); the helper is run with the test's own
 * environment, which has none. Read by the sanitizer's runtime; unused elsewhere. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

static void say(const char *what, int rc) {
    if (rc < 0)
        printf("%s: %s\n", what, strerror(errno));
    else
        printf("%s: ok\n", what);
}

static void try_socket(const char *name, int domain, int type) {
    int fd = socket(domain, type, 0);
    say(name, fd);
    if (fd >= 0) close(fd);
}

static int sockets(void) {
    try_socket("AF_INET SOCK_DGRAM", AF_INET, SOCK_DGRAM);
    try_socket("AF_INET SOCK_STREAM", AF_INET, SOCK_STREAM);
    try_socket("AF_INET6 SOCK_DGRAM", AF_INET6, SOCK_DGRAM);
    try_socket("AF_UNIX SOCK_STREAM", AF_UNIX, SOCK_STREAM);
    try_socket("AF_UNIX SOCK_DGRAM", AF_UNIX, SOCK_DGRAM);
    try_socket("AF_UNIX SOCK_SEQPACKET", AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC);
    try_socket("AF_NETLINK SOCK_RAW", AF_NETLINK, SOCK_RAW);
    try_socket("AF_PACKET SOCK_DGRAM", AF_PACKET, SOCK_DGRAM);
    int pair[2];
    int rc = socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
    say("socketpair AF_UNIX", rc);
    if (rc == 0) {
        close(pair[0]);
        close(pair[1]);
    }
    char params[120];
    memset(params, 0, sizeof(params));
    long fd = syscall(__NR_io_uring_setup, 4, params);
    say("io_uring_setup", fd < 0 ? -1 : 0);
    if (fd >= 0) close((int)fd);
    return 0;
}

static int udp(int port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    say("socket", fd);
    if (fd < 0) return 0;
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    say("sendto", (int)sendto(fd, "escaped", 7, 0, (struct sockaddr *)&to, sizeof(to)));
    close(fd);
    return 0;
}

static int unix_socket(const char *path) {
    struct sockaddr_un to = {.sun_family = AF_UNIX};
    snprintf(to.sun_path, sizeof(to.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    say("socket dgram", fd);
    if (fd >= 0) {
        say("sendto", (int)sendto(fd, "escaped", 7, 0, (struct sockaddr *)&to, sizeof(to)));
        close(fd);
    }
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    say("socket stream", fd);
    if (fd >= 0) {
        say("connect", connect(fd, (struct sockaddr *)&to, sizeof(to)));
        close(fd);
    }
    return 0;
}

static int escape(void) {
    int fd = memfd_create("hoard", MFD_CLOEXEC);
    say("memfd_create", fd);
    if (fd >= 0) close(fd);
    say("unshare", unshare(CLONE_NEWUSER | CLONE_NEWNS));
    say("mount", mount("tmpfs", ".", "tmpfs", 0, NULL));
    return 0;
}

static int write_mb(long mb) {
    static char block[1 << 20];
    memset(block, 'x', sizeof(block));
    FILE *f = fopen("data.bin", "wb");
    if (!f) {
        perror("data.bin");
        return 1;
    }
    for (long i = 0; i < mb; i++)
        if (fwrite(block, 1, sizeof(block), f) != sizeof(block)) {
            perror("data.bin");
            return 1;
        }
    if (fclose(f) != 0) {
        perror("data.bin");
        return 1;
    }
    printf("wrote %ld MiB\n", mb);
    return 0;
}

static _Noreturn void fill(void) {
    static char block[8 << 20];
    memset(block, 'x', sizeof(block));
    for (unsigned long i = 0;; i++) {
        char name[32];
        snprintf(name, sizeof(name), "cache%lu.bin", i % 100000);
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) continue;
        if (write(fd, block, sizeof(block)) < 0) {
        }
        close(fd);
    }
}

static _Noreturn void files(void) {
    for (unsigned long i = 0;; i++) {
        char name[32];
        snprintf(name, sizeof(name), "f%lu", i % 1000000);
        int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) close(fd);
    }
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 2 && !strcmp(argv[1], "sockets")) return sockets();
    if (argc >= 3 && !strcmp(argv[1], "udp")) return udp(atoi(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "unix")) return unix_socket(argv[2]);
    if (argc >= 2 && !strcmp(argv[1], "escape")) return escape();
    if (argc >= 3 && !strcmp(argv[1], "write")) return write_mb(atol(argv[2]));
    if (argc >= 2 && !strcmp(argv[1], "fill")) fill();
    if (argc >= 2 && !strcmp(argv[1], "files")) files();
    fprintf(stderr, "usage: %s sockets | udp PORT | unix PATH | escape | write MB | fill | files\n", argv[0]);
    return 64;
}
