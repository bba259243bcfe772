/* grading/build/grade_toolchain.c: what a compiler reads (see grade_toolchain.h). */
#define _GNU_SOURCE
#include "grading/build/grade_toolchain.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grading/base/grade_text.h"

#define OUTPUT_MAX (1u << 20)
#define MAX_TOOLCHAINS 8

/* ---- a list of paths, each once (by where it really is) ------------------------------------ */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static void add_path(path_list *l, const char *path) {
    char *real = realpath(path, NULL);
    if (!real) return; /* not here: nothing to read */
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], real)) {
            free(real);
            return;
        }
    if (l->n + 2 > l->cap) {
        l->cap = l->cap ? 2 * l->cap : 32;
        l->v = realloc(l->v, l->cap * sizeof(char *));
    }
    l->v[l->n++] = real;
    l->v[l->n] = NULL;
}

static char **take(path_list *l) {
    if (!l->v) l->v = calloc(1, sizeof(char *));
    return l->v;
}

static void add_all(path_list *l, const path_list *from) {
    for (size_t i = 0; i < from->n; i++) add_path(l, from->v[i]);
}

static void free_list(path_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* ---- asking the compiler -------------------------------------------------------------------- */

/* What argv prints (stdout and stderr together) with a clean environment, or NULL when it
 * cannot be run or fails. */
static char *capture(char *const argv[]) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return NULL;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0) _exit(127);
        char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C", NULL};
        execve(argv[0], argv, envp);
        _exit(127);
    }
    close(p[1]);
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    char buf[8192];
    ssize_t n;
    while ((n = read(p[0], buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (b.len < OUTPUT_MAX) grade_buf_append(&b, buf, (size_t)n);
    }
    close(p[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    char *text = grade_buf_take(&b);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The value of "key: " on a line of text (up to the line's end), malloc'd, or NULL. */
static char *line_value(const char *text, const char *key) {
    size_t k = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, k) != 0) continue;
        const char *v = line + k;
        size_t len = strcspn(v, "\n");
        return strndup(v, len);
    }
    return NULL;
}

/* A program as the compiler finds it: an absolute path, or a name looked up on the PATH
 * it runs with. malloc'd, or NULL. */
static char *program_path(const char *driver, const char *name) {
    char *arg = grade_strf("-print-prog-name=%s", name);
    char *argv[] = {(char *)driver, arg, NULL};
    char *out = capture(argv);
    free(arg);
    if (!out) return NULL;
    out[strcspn(out, "\n")] = '\0';
    char *found = NULL;
    if (out[0] == '/') {
        found = access(out, X_OK) == 0 ? grade_strdup(out) : NULL;
    } else {
        static const char *const dirs[] = {"/usr/bin", "/bin"};
        for (size_t i = 0; i < 2 && !found; i++) {
            char *p = grade_strf("%s/%s", dirs[i], out);
            if (access(p, X_OK) == 0) found = p;
            else free(p);
        }
    }
    free(out);
    return found;
}

/* The shared libraries program loads, and the loader (ldd). */
static void add_libraries(path_list *l, const char *program) {
    char *argv[] = {"/usr/bin/ldd", (char *)program, NULL};
    if (access(argv[0], X_OK) != 0) argv[0] = "/bin/ldd";
    char *out = capture(argv);
    if (!out) return;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char *arrow = strstr(line, "=> ");
        char *path = arrow ? arrow + 3 : line + strspn(line, " \t");
        if (path[0] != '/') continue;
        path[strcspn(path, " \t(")] = '\0';
        add_path(l, path);
    }
    free(out);
}

/* The entries of a colon-separated list ("=a:b:c"). */
static void add_colon_list(path_list *l, const char *list) {
    if (!list) return;
    char *copy = grade_strdup(list[0] == '=' ? list + 1 : list);
    for (char *save = NULL, *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
        if (p[0] == '/') add_path(l, p);
    free(copy);
}

/* Whether folder a holds folder b (a proper ancestor). */
static bool holds(const char *a, const char *b) {
    size_t n = strlen(a);
    if (n == 1 && a[0] == '/') return b[1] != '\0';
    return strncmp(a, b, n) == 0 && b[n] == '/';
}

/* The #include <...> folders of `driver -xc -E -v /dev/null`. */
static void add_include_dirs(path_list *l, const char *driver) {
    char *argv[] = {(char *)driver, "-xc", "-E", "-v", "/dev/null", NULL};
    char *out = capture(argv);
    if (!out) return;
    char *start = strstr(out, "#include <...> search starts here:");
    char *end = start ? strstr(start, "End of search list.") : NULL;
    if (start && end) {
        *end = '\0';
        char *p = strchr(start, '\n');
        for (char *line = p ? strtok(p, "\n") : NULL; line; line = strtok(NULL, "\n")) {
            line += strspn(line, " \t");
            /* Darwin-style " (framework directory)" tails do not occur on Linux; cut any. */
            line[strcspn(line, " \t")] = '\0';
            if (line[0] == '/') add_path(l, line);
        }
    }
    free(out);
}

static bool ask(grade_toolchain *tc) {
    const char *driver = tc->driver;
    char *argv[] = {(char *)driver, "-print-search-dirs", NULL};
    char *dirs = capture(argv);
    if (!dirs) {
        snprintf(tc->why, sizeof(tc->why), "%s -print-search-dirs failed", driver);
        return false;
    }
    char *install = line_value(dirs, "install: ");
    char *libraries = line_value(dirs, "libraries: ");
    free(dirs);
    path_list includes = {0}, libdirs = {0}, listdirs = {0}, tools = {0}, common = {0};
    bool ok = install != NULL;
    if (!ok) snprintf(tc->why, sizeof(tc->why), "%s -print-search-dirs names no install folder", driver);

    add_include_dirs(&includes, driver);
    if (ok && includes.n == 0) {
        ok = false;
        snprintf(tc->why, sizeof(tc->why), "%s -E -v lists no #include <...> folder", driver);
    }
    if (ok) {
        /* Library folders; those that hold another of them are only listed. */
        path_list all = {0};
        add_colon_list(&all, libraries);
        for (size_t i = 0; i < all.n; i++) {
            bool parent = false;
            for (size_t j = 0; j < all.n && !parent; j++) parent = j != i && holds(all.v[i], all.v[j]);
            add_path(parent ? &listdirs : &libdirs, all.v[i]);
        }
        free_list(&all);

        add_path(&common, driver);
        add_path(&common, install);
        static const char *const programs[] = {"cc1", "as", "collect2", "ld", "ld.gold", "ld.bfd", "lto-wrapper"};
        for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
            char *p = program_path(driver, programs[i]);
            if (!p) continue;
            add_path(&tools, p);
            /* cc1's folder: gcc's own programs and plugins (the install folder on Debian,
             * libexec elsewhere). */
            if (i == 0) {
                char *copy = grade_strdup(p);
                add_path(&common, dirname(copy));
                free(copy);
            }
            free(p);
        }
        add_all(&common, &tools);
        add_libraries(&common, driver);
        for (size_t i = 0; i < tools.n; i++) add_libraries(&common, tools.v[i]);
        /* The loader's cache, the C library's character-set modules and the locale the
         * programs run in (LANG=C.UTF-8): nothing of the host's own. */
        add_path(&common, "/etc/ld.so.cache");
        for (size_t i = 0; i < common.n; i++) {
            const char *base = strrchr(common.v[i], '/');
            if (base && !strncmp(base, "/libc.so.", 9)) {
                char *gconv = grade_strf("%.*s/gconv", (int)(base - common.v[i]), common.v[i]);
                add_path(&common, gconv);
                free(gconv);
                break;
            }
        }
        add_path(&common, "/usr/lib/locale");
        add_path(&common, "/dev/null");

        path_list compile = {0}, link = {0};
        add_all(&compile, &common);
        add_all(&compile, &includes);
        add_all(&link, &common);
        add_all(&link, &libdirs);
        tc->compile_reads = take(&compile);
        tc->link_reads = take(&link);
        tc->link_lists = take(&listdirs);
        listdirs = (path_list){0};
    }
    free_list(&includes);
    free_list(&libdirs);
    free_list(&listdirs);
    free_list(&tools);
    free_list(&common);
    free(install);
    free(libraries);
    return ok;
}

const grade_toolchain *grade_toolchain_get(const char *driver) {
    static grade_toolchain known[MAX_TOOLCHAINS];
    static size_t n_known;
    for (size_t i = 0; i < n_known; i++)
        if (!strcmp(known[i].driver, driver)) return &known[i];
    static grade_toolchain extra; /* past MAX_TOOLCHAINS: asked again each time */
    grade_toolchain *tc = n_known < MAX_TOOLCHAINS ? &known[n_known++] : &extra;
    if (tc == &extra) {
        free(extra.driver);
        for (char **p = extra.compile_reads; p && *p; p++) free(*p);
        for (char **p = extra.link_reads; p && *p; p++) free(*p);
        for (char **p = extra.link_lists; p && *p; p++) free(*p);
        free(extra.compile_reads);
        free(extra.link_reads);
        free(extra.link_lists);
        memset(&extra, 0, sizeof(extra));
    }
    tc->driver = grade_strdup(driver);
    tc->asked = ask(tc);
    if (!tc->asked) {
        /* The system's programs and libraries, none of its settings or users' files. */
        static const char *const system[] = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache",
                                             "/dev/null"};
        path_list l = {0}, m = {0};
        for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++) {
            add_path(&l, system[i]);
            add_path(&m, system[i]);
        }
        path_list none = {0};
        tc->compile_reads = take(&l);
        tc->link_reads = take(&m);
        tc->link_lists = take(&none);
    }
    return tc;
}
