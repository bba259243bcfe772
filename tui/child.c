/* tui/child.c: a lab program as a child process (see child.h). */
#define _GNU_SOURCE
#include "tui/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void tui_child_init(tui_child *c) {
    memset(c, 0, sizeof(*c));
    c->fd[0] = c->fd[1] = c->fd[2] = -1;
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* environ with extra's names replaced by extra's entries. */
static char **make_env(char *const extra[]) {
    size_t n = 0, k = 0;
    while (environ && environ[n]) n++;
    while (extra && extra[k]) k++;
    char **env = calloc(n + k + 1, sizeof(char *));
    if (!env) return NULL;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (size_t j = 0; j < k && !replaced; j++) {
            size_t len = strcspn(extra[j], "=");
            replaced = !strncmp(environ[i], extra[j], len) && environ[i][len] == '=';
        }
        if (!replaced) env[at++] = environ[i];
    }
    for (size_t j = 0; j < k; j++) env[at++] = extra[j];
    env[at] = NULL;
    return env;
}

int tui_child_start(tui_child *c, char *const argv[], char *const extra_env[], char *err, size_t err_size) {
    tui_child_init(c);
    int ev[2], out[2], er[2], status[2];
    if (pipe2(ev, O_CLOEXEC) != 0) goto fail0;
    if (pipe2(out, O_CLOEXEC) != 0) goto fail1;
    if (pipe2(er, O_CLOEXEC) != 0) goto fail2;
    if (pipe2(status, O_CLOEXEC) != 0) goto fail3;
    char **env = make_env(extra_env);
    if (!env) {
        errno = ENOMEM;
        goto fail4;
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        free(env);
        if (devnull >= 0) close(devnull);
        goto fail4;
    }
    if (pid == 0) {
        /* Move the write ends above 3 so that none is clobbered by the dup2s below. */
        int e = fcntl(ev[1], F_DUPFD_CLOEXEC, 10), o = fcntl(out[1], F_DUPFD_CLOEXEC, 10),
            r = fcntl(er[1], F_DUPFD_CLOEXEC, 10);
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGWINCH, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (e < 0 || o < 0 || r < 0 || (devnull >= 0 && dup2(devnull, 0) < 0) || dup2(o, 1) < 0 || dup2(r, 2) < 0 ||
            dup2(e, TUI_CHILD_EVENTS_FD) < 0) {
            int code = errno;
            (void)!write(status[1], &code, sizeof(code));
            _exit(127);
        }
        execve(argv[0], argv, env);
        int code = errno;
        (void)!write(status[1], &code, sizeof(code));
        _exit(127);
    }
    free(env);
    if (devnull >= 0) close(devnull);
    setpgid(pid, pid); /* also here, so that a stop right away reaches the group */
    close(ev[1]);
    close(out[1]);
    close(er[1]);
    close(status[1]);
    int code = 0;
    ssize_t got;
    do got = read(status[0], &code, sizeof(code));
    while (got < 0 && errno == EINTR);
    close(status[0]);
    if (got == (ssize_t)sizeof(code)) {
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
        }
        close(ev[0]);
        close(out[0]);
        close(er[0]);
        snprintf(err, err_size, "%s: %s", argv[0], strerror(code));
        return -1;
    }
    c->pid = pid;
    c->running = true;
    c->fd[0] = ev[0];
    c->fd[1] = out[0];
    c->fd[2] = er[0];
    for (int i = 0; i < 3; i++) fcntl(c->fd[i], F_SETFL, fcntl(c->fd[i], F_GETFL) | O_NONBLOCK);
    return 0;

fail4:
    close(status[0]);
    close(status[1]);
fail3:
    close(er[0]);
    close(er[1]);
fail2:
    close(out[0]);
    close(out[1]);
fail1:
    close(ev[0]);
    close(ev[1]);
fail0:
    snprintf(err, err_size, "%s", strerror(errno));
    return -1;
}

void tui_child_attach(tui_child *c, int fd) {
    tui_child_init(c);
    c->fd[0] = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

bool tui_child_active(const tui_child *c) { return c->running || c->fd[0] >= 0 || c->fd[1] >= 0 || c->fd[2] >= 0; }

int tui_child_pollfds(const tui_child *c, struct pollfd *fds) {
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (c->fd[i] >= 0) fds[n++] = (struct pollfd){.fd = c->fd[i], .events = POLLIN};
    return n;
}

bool tui_child_pump(tui_child *c, tui_session *s, size_t budget, double now_ms) {
    static char buf[65536];
    bool changed = false;
    for (int i = 0; i < 3; i++) {
        size_t taken = 0;
        while (c->fd[i] >= 0 && taken < budget) {
            ssize_t n = read(c->fd[i], buf, sizeof(buf));
            if (n > 0) {
                taken += (size_t)n;
                changed = true;
                if (i == 0)
                    tui_session_feed(s, buf, (size_t)n, now_ms);
                else
                    tui_session_output(s, buf, (size_t)n);
            } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                break;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else { /* EOF, or an error that will not go away */
                close_fd(&c->fd[i]);
                if (i == 0) tui_session_end_of_stream(s, now_ms);
                changed = true;
            }
        }
    }
    if (c->running) {
        int ws;
        pid_t r = waitpid(c->pid, &ws, WNOHANG);
        if (r == c->pid) {
            c->running = false;
            c->wait_status = ws;
            /* Whatever is left in the pipes: the last events and the last words on stderr. */
            for (int i = 0; i < 3; i++) {
                for (;;) {
                    if (c->fd[i] < 0) break;
                    ssize_t n = read(c->fd[i], buf, sizeof(buf));
                    if (n > 0) {
                        if (i == 0)
                            tui_session_feed(s, buf, (size_t)n, now_ms);
                        else
                            tui_session_output(s, buf, (size_t)n);
                        continue;
                    }
                    /* EOF, or the pipe is still held open by something the lab started:
                     * either way the program is gone, so stop reading it. */
                    close_fd(&c->fd[i]);
                    if (i == 0) tui_session_end_of_stream(s, now_ms);
                }
            }
            tui_session_exited(s, ws);
            changed = true;
        } else if (r < 0 && errno == ECHILD) {
            c->running = false;
        }
    } else if (c->pid == 0 && c->fd[0] < 0 && s->state == TUI_SESSION_RUNNING) {
        /* A replayed stream ended: there is no process to wait for. */
        tui_session_exited(s, 0);
        changed = true;
    }
    return changed;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void tui_child_stop(tui_child *c, int grace_ms) {
    if (c->running && c->pid > 0) {
        kill(-c->pid, SIGTERM);
        kill(c->pid, SIGTERM);
        int waited = 0, ws;
        pid_t r = 0;
        while ((r = waitpid(c->pid, &ws, WNOHANG)) == 0 && waited < grace_ms) {
            sleep_ms(10);
            waited += 10;
        }
        if (r == 0) {
            kill(-c->pid, SIGKILL);
            kill(c->pid, SIGKILL);
            while ((r = waitpid(c->pid, &ws, 0)) < 0 && errno == EINTR) {
            }
        }
        if (r == c->pid) c->wait_status = ws;
        /* What the lab started is in its group: make sure none of it outlives it. */
        kill(-c->pid, SIGKILL);
    }
    c->running = false;
    for (int i = 0; i < 3; i++) close_fd(&c->fd[i]);
}

void tui_child_make_nonce(char *buf, size_t size) {
    unsigned char raw[16];
    bool ok = false;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ok = read(fd, raw, sizeof(raw)) == (ssize_t)sizeof(raw);
        close(fd);
    }
    if (!ok) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        for (size_t i = 0; i < sizeof(raw); i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            raw[i] = (unsigned char)x;
        }
    }
    size_t at = 0;
    for (size_t i = 0; i < sizeof(raw) && at + 3 <= size; i++) at += (size_t)snprintf(buf + at, size - at, "%02x", raw[i]);
    if (size) buf[at < size ? at : size - 1] = '\0';
}
