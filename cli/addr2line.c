/* cli/addr2line.c: running addr2line and reading its answer (see addr2line.h). */
#define _GNU_SOURCE
#include "cli/addr2line.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void cli_addr2line_find(char *out, size_t out_len) {
    if (out_len) out[0] = '\0';
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        if (n > 0 && n + sizeof("/addr2line") <= out_len) {
            memcpy(out, path, n);
            memcpy(out + n, "/addr2line", sizeof("/addr2line"));
            if (access(out, X_OK) == 0) return;
            out[0] = '\0';
        }
        path += n;
        if (*path == ':') path++;
    }
}

size_t cli_addr2line_run(const char *tool, char *const argv[], char *buf, size_t cap) {
    if (cap) buf[0] = '\0';
    if (!tool || !*tool || cap == 0) return 0;
    int fds[2];
    if (pipe(fds) != 0) return 0;
    /* _Fork: the async-signal-safe fork (no atfork handlers), glibc 2.34 and later. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    pid_t pid = _Fork();
#else
    pid_t pid = fork();
#endif
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        /* Nothing else of the caller's: a reader waiting for the end of a lab's event
         * stream must not wait for addr2line. */
        for (int fd = STDERR_FILENO + 1; fd < 1024; fd++) close(fd);
        alarm(CLI_ADDR2LINE_LIMIT_S);
        char *const envp[] = {"LC_ALL=C", NULL};
        execve(tool, argv, envp);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t r = read(fds[0], buf + len, cap - 1 - len);
        if (r > 0)
            len += (size_t)r;
        else if (r == 0 || errno != EINTR)
            break;
    }
    buf[len] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return len;
}

bool cli_addr2line_take(const char *line, size_t n, char *out, size_t out_len) {
    if (out_len) out[0] = '\0';
    if (n >= 2 && line[0] == '?' && line[1] == '?') return false;
    size_t end = 0;
    while (end < n && line[end] != ' ') end++; /* drops " (discriminator N)" */
    size_t colon = end;
    while (colon > 0 && line[colon - 1] != ':') colon--;
    if (colon == 0 || colon >= end) return false;
    if (end - colon == 1 && (line[colon] == '0' || line[colon] == '?')) return false;
    static const char cwd[] = "/proc/self/cwd/";
    size_t start = 0;
    if (end >= sizeof(cwd) - 1 && memcmp(line, cwd, sizeof(cwd) - 1) == 0) start = sizeof(cwd) - 1;
    if (!out_len) return true;
    size_t m = end - start < out_len - 1 ? end - start : out_len - 1;
    memcpy(out, line + start, m);
    out[m] = '\0';
    return true;
}
