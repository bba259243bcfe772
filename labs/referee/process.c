/* labs/referee/process.c: the referee's side of the student's process (see process.h). */
#define _GNU_SOURCE
#include "labs/referee/process.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "labs/referee/confine.h"
#include "labs/referee/privileges.h"
#include "labs/referee/spin.h"

/* The descriptors the memory files have in the student's process. */
#define CHILD_SHM_FD 3
#define CHILD_OUTPUTS_FD 4
/* How long the student's process may take to start and attach. */
#define START_MS 20000
/* How often the referee, waiting for a command, looks whether the process still lives. */
#define SLICE_MS 50
/* How long lab_referee_ready waits for the process to say it is ready. */
#define READY_WAIT_NS 20000000ull

extern char **environ;

static size_t page_round(size_t n) { return (n + 4095u) & ~(size_t)4095u; }

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* The environment the student's process gets: ours without the kit's own variables (the
 * result channel's and the referee's among them). */
#if defined(__SANITIZE_ADDRESS__)
/* A sanitizer's runtime starts processes of its own (the symbolizer for a report, the leak
 * checker at exit), which the student's process may not (confine.h): it is told not to. Its
 * reports keep their addresses; the lab names the student's lines from its last words. */
static const char *const sanitizer_vars[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS"};
static char sanitizer_env[2][2048];

static char *no_processes(size_t i, const char *current) {
    snprintf(sanitizer_env[i], sizeof(sanitizer_env[i]), "%s=%s%ssymbolize=0:detect_leaks=0", sanitizer_vars[i],
             current ? current : "", current && *current ? ":" : "");
    return sanitizer_env[i];
}
#endif

static char **student_environment(void) {
    size_t n = 0;
    for (char **e = environ; *e; e++) n++;
    char **out = calloc(n + 3, sizeof(char *));
    if (!out) return NULL;
    size_t k = 0;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "STREAMLAB_", 10) != 0) out[k++] = *e;
#if defined(__SANITIZE_ADDRESS__)
    for (size_t i = 0; i < 2; i++) {
        size_t len = strlen(sanitizer_vars[i]);
        bool found = false;
        for (size_t j = 0; j < k; j++) {
            if (strncmp(out[j], sanitizer_vars[i], len) == 0 && out[j][len] == '=') {
                out[j] = no_processes(i, out[j] + len + 1);
                found = true;
            }
        }
        if (!found) out[k++] = no_processes(i, NULL);
    }
#endif
    out[k] = NULL;
    return out;
}

/* True when the student's process has ended (and reaps it). */
static bool has_ended(lab_referee *ref) {
    if (ref->ended) return true;
    int status;
    pid_t r = waitpid(ref->pid, &status, WNOHANG);
    if (r == ref->pid) {
        ref->ended = true;
        ref->status = status;
    }
    return ref->ended;
}

static void end_process(lab_referee *ref) {
    if (!ref->pid || ref->ended) return;
    kill(ref->pid, SIGKILL);
    int status;
    while (waitpid(ref->pid, &status, 0) < 0 && errno == EINTR) {
    }
    ref->ended = true;
    ref->status = status;
}

static void post_phase(lab_referee *ref, lab_phase phase) {
    ref->control->phase = (uint32_t)phase;
    __atomic_store_n(&ref->control->phase_seq, ++ref->phase_seq, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, (uint32_t *)&ref->control->phase_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void lab_referee_ready(lab_referee *ref) {
    if (!ref->pid || ref->ended || !(ref->control->flags & LAB_CONTROL_REAL_DEVICE)) return;
    uint32_t want = __atomic_add_fetch(&ref->control->ready_seq, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, (uint32_t *)&ref->control->phase_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    /* A process that does not answer (stopped, or busy in a host function) is not waited
     * for long: readiness is an optimisation, never a condition. */
    lab_spin spin = lab_spin_start(READY_WAIT_NS);
    while (__atomic_load_n(&ref->control->ready_ack, __ATOMIC_SEQ_CST) != want && lab_spin_again(&spin)) {
    }
}

/* Puts fd at want in a child about to exec, without close-on-exec. */
static bool place_fd(int fd, int want) {
    if (fd == want) return fcntl(want, F_SETFD, 0) == 0; /* dup2 onto itself keeps close-on-exec */
    return dup2(fd, want) >= 0;
}

int lab_referee_start(lab_referee *ref, char *const argv[], size_t bytes, size_t ring_bytes, size_t outputs_bytes,
                      int shm_fd, int outputs_fd, uint32_t flags, char *err, size_t err_len) {
    memset(ref, 0, sizeof(*ref));
    ref->shm.fd = -1;
    ref->outputs.fd = -1;
    /* Nothing of ours may be read through /proc or ptrace by a process of the same user. */
    if (prctl(PR_SET_DUMPABLE, 0) != 0) {
        snprintf(err, err_len, "cannot make the referee undumpable: %s", strerror(errno));
        return -1;
    }
    size_t ring_share = page_round(lab_ring_bytes(ring_bytes));
    if (bytes < LAB_CONTROL_BYTES + 2 * ring_share + 4096) bytes = LAB_CONTROL_BYTES + 2 * ring_share + 4096;
    bytes = page_round(bytes);
    if (lab_shm_create(&ref->shm, bytes, shm_fd, err, err_len) != 0) return -1;
    outputs_bytes = page_round(outputs_bytes ? outputs_bytes : 4096);
    if (lab_shm_create(&ref->outputs, outputs_bytes, outputs_fd, err, err_len) != 0 ||
        lab_shm_seal_writes(&ref->outputs, err, err_len) != 0) {
        lab_referee_stop(ref);
        return -1;
    }
    ref->control = ref->shm.base;
    memset(ref->control, 0, LAB_CONTROL_BYTES);
    ref->control->ring_bytes = ring_share;
    ref->control->data_offset = LAB_CONTROL_BYTES + 2 * ring_share;
    ref->control->flags = flags;
    ref->data_offset = LAB_CONTROL_BYTES + 2 * ring_share;
    ref->ring = lab_ring_init((unsigned char *)ref->shm.base + LAB_CONTROL_BYTES, ring_bytes);
    ref->fn_ring = lab_ring_init((unsigned char *)ref->shm.base + LAB_CONTROL_BYTES + ring_share, ring_bytes);
    ref->payload = malloc(LAB_REFEREE_PAYLOAD_MAX);
    if (ref->ring && ref->fn_ring && (flags & LAB_CONTROL_REAL_DEVICE)) {
        lab_ring_set_spin_ns(ref->ring, LAB_REAL_DEVICE_SPIN_NS);
        lab_ring_set_spin_ns(ref->fn_ring, LAB_REAL_DEVICE_SPIN_NS);
    }
    if (!ref->ring || !ref->fn_ring || !ref->payload) {
        snprintf(err, err_len, "out of memory");
        lab_referee_stop(ref);
        return -1;
    }

    size_t argc = 0;
    while (argv[argc]) argc++;
    char arg[128];
    snprintf(arg, sizeof(arg), "%s%d,%lx,%zu,%d,%lx,%zu", LAB_REFEREE_ARG, CHILD_SHM_FD,
             (unsigned long)(uintptr_t)ref->shm.base, ref->shm.bytes, CHILD_OUTPUTS_FD,
             (unsigned long)(uintptr_t)ref->outputs.base, ref->outputs.bytes);
    char **args = calloc(argc + 2, sizeof(char *));
    char **envp = student_environment();
    if (!args || !envp) {
        free(args);
        free(envp);
        snprintf(err, err_len, "out of memory");
        lab_referee_stop(ref);
        return -1;
    }
    memcpy(args, argv, argc * sizeof(char *));
    args[argc] = arg;
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        free(args);
        free(envp);
        lab_referee_stop(ref);
        return -1;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Lift both files above where they go, then place them. */
        int keep = fcntl(errpipe[1], F_DUPFD_CLOEXEC, CHILD_OUTPUTS_FD + 3);
        int shm = fcntl(ref->shm.fd, F_DUPFD_CLOEXEC, CHILD_OUTPUTS_FD + 1);
        int outs = fcntl(ref->outputs.fd, F_DUPFD_CLOEXEC, CHILD_OUTPUTS_FD + 1);
        if (keep < 0 || shm < 0 || outs < 0 || !place_fd(shm, CHILD_SHM_FD) || !place_fd(outs, CHILD_OUTPUTS_FD))
            _exit(127);
        close_range(CHILD_OUTPUTS_FD + 1, (unsigned)keep - 1, 0);
        close_range((unsigned)keep + 1, ~0U, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        /* No privilege (privileges.h), and no process, socket, namespace, memfd or signal to
         * another process (confine.h). Where the kernel has no seccomp, the rest of the
         * design still holds: it owns nothing the grade needs. */
        char why[160];
        if (lab_drop_privileges(why, sizeof(why)) != 0) {
            char said[220];
            int n = snprintf(said, sizeof(said), "cannot give up the privileges of the lab's process: %s", why);
            if (n > 0 && write(keep, said, (size_t)n) < 0) {
            }
            _exit(127);
        }
        (void)lab_confine_student(why, sizeof(why));
        execve(args[0], args, envp);
        char msg[300];
        int n = snprintf(msg, sizeof(msg), "cannot start %s: %s", args[0], strerror(errno));
        if (n > 0 && write(keep, msg, (size_t)n) < 0) {
        }
        _exit(127);
    }
    free(args);
    free(envp);
    close(errpipe[1]);
    if (pid < 0) {
        close(errpipe[0]);
        snprintf(err, err_len, "fork: %s", strerror(errno));
        lab_referee_stop(ref);
        return -1;
    }
    ref->pid = pid;
    char msg[300];
    ssize_t n;
    while ((n = read(errpipe[0], msg, sizeof(msg) - 1)) < 0 && errno == EINTR) {
    }
    close(errpipe[0]);
    if (n > 0) {
        msg[n] = '\0';
        snprintf(err, err_len, "%s", msg);
        lab_referee_stop(ref);
        return -1;
    }

    /* Its first word is hello, once it has mapped the memory. */
    lab_ring_record rec;
    uint64_t deadline = now_ms() + START_MS;
    for (;;) {
        lab_ring_status st = lab_ring_next(ref->ring, &rec, ref->payload, LAB_REFEREE_PAYLOAD_MAX, SLICE_MS);
        if (st == LAB_RING_OK && rec.op == LAB_OP_HELLO) return 0;
        if (st == LAB_RING_OK || st == LAB_RING_BROKEN || st == LAB_RING_TOO_BIG) {
            snprintf(err, err_len, "the student's process did not start as a lab program does");
            break;
        }
        if (has_ended(ref)) {
            snprintf(err, err_len, "the student's process ended before it started (%s %d)",
                     WIFSIGNALED(ref->status) ? "signal" : "exit status",
                     WIFSIGNALED(ref->status) ? WTERMSIG(ref->status) : WEXITSTATUS(ref->status));
            break;
        }
        if (now_ms() > deadline) {
            snprintf(err, err_len, "the student's process did not start within %d s", START_MS / 1000);
            break;
        }
    }
    lab_referee_stop(ref);
    return -1;
}

lab_phase_end lab_referee_phase(lab_referee *ref, lab_phase phase, lab_referee_serve_fn serve, void *ctx,
                                int timeout_ms, int *rc) {
    *rc = 0;
    if (has_ended(ref)) return LAB_PHASE_DIED;
    post_phase(ref, phase);
    uint64_t deadline = timeout_ms >= 0 ? now_ms() + (uint64_t)timeout_ms : 0;
    for (;;) {
        lab_ring_record rec;
        lab_ring_status st = lab_ring_next(ref->ring, &rec, ref->payload, LAB_REFEREE_PAYLOAD_MAX, SLICE_MS);
        if (st == LAB_RING_OK) {
            if (rec.op == LAB_OP_PHASE_DONE) {
                int32_t v = 0;
                if (rec.len != sizeof(v)) break;
                memcpy(&v, ref->payload, sizeof(v));
                *rc = v;
                return LAB_PHASE_ENDED;
            }
            if (rec.op < LAB_OP_FIRST_CALL || serve(ctx, ref, &rec, ref->payload) != 0) break;
            continue;
        }
        if (st != LAB_RING_TIMEOUT) break;
        if (has_ended(ref)) {
            /* What it sent before it ended still counts (a crash after queued work). */
            while (lab_ring_pending(ref->ring) &&
                   lab_ring_next(ref->ring, &rec, ref->payload, LAB_REFEREE_PAYLOAD_MAX, 0) == LAB_RING_OK &&
                   rec.op >= LAB_OP_FIRST_CALL && serve(ctx, ref, &rec, ref->payload) == 0) {
            }
            return LAB_PHASE_DIED;
        }
        if (timeout_ms >= 0 && now_ms() > deadline) {
            end_process(ref);
            return LAB_PHASE_TIMEOUT;
        }
    }
    end_process(ref);
    return LAB_PHASE_BROKEN;
}

void *lab_referee_data(const lab_referee *ref, size_t *bytes) {
    *bytes = ref->shm.bytes - ref->data_offset;
    return (unsigned char *)ref->shm.base + ref->data_offset;
}

void *lab_referee_outputs(const lab_referee *ref, size_t *bytes) {
    *bytes = ref->outputs.bytes;
    return ref->outputs.base;
}

void lab_referee_stop(lab_referee *ref) {
    if (ref->pid && !ref->ended) {
        post_phase(ref, LAB_PHASE_EXIT);
        uint64_t deadline = now_ms() + 1000;
        while (!has_ended(ref) && now_ms() < deadline) {
            struct timespec t = {0, 5 * 1000000L};
            nanosleep(&t, NULL);
        }
        end_process(ref);
    }
    lab_ring_free(ref->ring);
    lab_ring_free(ref->fn_ring);
    free(ref->payload);
    lab_shm_close(&ref->shm);
    lab_shm_close(&ref->outputs);
    memset(ref, 0, sizeof(*ref));
    ref->shm.fd = -1;
    ref->outputs.fd = -1;
}
