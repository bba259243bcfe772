/* grading/grade_lines.c: the source lines of a sandboxed run's races (see grade_lines.h). */
#define _POSIX_C_SOURCE 200809L
#include "grading/grade_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/addr2line.h"

#define MAX_SITES 16
#define ADDR2LINE_LIMIT_S 10

/* Runs addr2line -e binary on the sites; its answer (one line per site) into buf. */
static size_t run_addr2line(const char *binary, const char *const *sites, size_t n, char *buf, size_t cap) {
    const char *argv[MAX_SITES + 4];
    size_t argc = 0;
    argv[argc++] = "addr2line";
    argv[argc++] = "-e";
    argv[argc++] = binary;
    for (size_t i = 0; i < n; i++) argv[argc++] = sites[i];
    argv[argc] = NULL;
    int fds[2];
    if (pipe(fds) != 0) return 0;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        for (int fd = STDERR_FILENO + 1; fd < 1024; fd++) close(fd);
        alarm(ADDR2LINE_LIMIT_S);
        execvp("addr2line", (char *const *)argv);
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

void grade_lines_fill(const char *binary, const char *build_dir, cJSON *result) {
    static const char *const keys[2][2] = {{"first_site", "first_line"}, {"second_site", "second_line"}};
    cJSON *reports = cJSON_GetObjectItemCaseSensitive(result, "race_reports");
    const char *sites[MAX_SITES];
    cJSON *owner[MAX_SITES];
    const char *line_key[MAX_SITES];
    size_t n = 0;
    cJSON *race;
    cJSON_ArrayForEach(race, reports) {
        for (int side = 0; side < 2 && n < MAX_SITES; side++) {
            const cJSON *site = cJSON_GetObjectItemCaseSensitive(race, keys[side][0]);
            if (!cJSON_IsString(site) || strncmp(site->valuestring, "0x", 2) != 0) continue;
            if (strspn(site->valuestring + 2, "0123456789abcdef") != strlen(site->valuestring + 2)) continue;
            if (cJSON_GetObjectItemCaseSensitive(race, keys[side][1])) continue;
            sites[n] = site->valuestring;
            owner[n] = race;
            line_key[n] = keys[side][1];
            n++;
        }
    }
    if (n == 0) return;
    char answer[8192];
    if (run_addr2line(binary, sites, n, answer, sizeof(answer)) == 0) return;
    const char *at = answer;
    for (size_t i = 0; i < n && *at; i++) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        char line[1024];
        if (cli_addr2line_take(at, len, line, sizeof(line))) {
            const char *shown = line;
            size_t dir = build_dir ? strlen(build_dir) : 0;
            while (dir > 1 && build_dir[dir - 1] == '/') dir--;
            if (dir && strncmp(line, build_dir, dir) == 0 && line[dir] == '/') shown = line + dir + 1;
            cJSON_AddStringToObject(owner[i], line_key[i], shown);
        }
        if (!nl) break;
        at = nl + 1;
    }
}
