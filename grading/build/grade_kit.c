/* grading/build/grade_kit.c: grading kits: manifest, location, installation, command lines
 * (see grade_kit.h). */
#define _GNU_SOURCE
#include "grading/build/grade_kit.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"

#define MANIFEST_MAX_BYTES (4u << 20)

static int str_array(const cJSON *root, const char *key, char ***out, size_t *n, const char *file, char *err,
                     size_t err_len) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(a)) {
        snprintf(err, err_len, "%s: \"%s\" must be an array of strings", file, key);
        return -1;
    }
    size_t count = (size_t)cJSON_GetArraySize(a);
    *out = calloc(count + 1, sizeof(char *));
    const cJSON *s;
    cJSON_ArrayForEach(s, a) {
        if (!cJSON_IsString(s)) {
            snprintf(err, err_len, "%s: \"%s\" must be an array of strings", file, key);
            return -1;
        }
        (*out)[(*n)++] = grade_strdup(s->valuestring);
    }
    return 0;
}

static char *need_string(const cJSON *root, const char *key, const char *file, char *err, size_t err_len) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsString(s) || !*s->valuestring) {
        snprintf(err, err_len, "%s: \"%s\" must be a non-empty string", file, key);
        return NULL;
    }
    return grade_strdup(s->valuestring);
}

/* A program of the kit, manifest key `key`: its path, or NULL with err filled. */
static char *kit_program(const cJSON *root, const char *dir, const char *key, const char *file, char *err,
                         size_t err_len) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsString(v) || strstr(v->valuestring, "..") || v->valuestring[0] == '/') {
        snprintf(err, err_len, "%s: \"%s\" must be a path inside the kit (a kit of an older grader: rebuild it)", file,
                 key);
        return NULL;
    }
    return grade_path_join(dir, v->valuestring);
}

int grade_kit_load(const char *dir, grade_kit *kit, char *err, size_t err_len) {
    memset(kit, 0, sizeof(*kit));
    char *file = grade_path_join(dir, "manifest.json");
    char *text = NULL;
    size_t len = 0;
    bool truncated = false;
    int rc = -1;
    cJSON *root = NULL;
    if (grade_read_file(file, MANIFEST_MAX_BYTES, &text, &len, &truncated, err, err_len) != 0) goto out;
    root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        snprintf(err, err_len, "%s: not a kit manifest (not a JSON object)", file);
        goto out;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsNumber(v) || v->valueint != 1) {
        snprintf(err, err_len, "%s: kit manifest version %s, this grader reads version 1", file,
                 cJSON_IsNumber(v) ? "other than 1" : "missing");
        goto out;
    }
    kit->dir = grade_strdup(dir);
    if (!(kit->lab = need_string(root, "lab", file, err, err_len))) goto out;
    if (!(kit->backend = need_string(root, "backend", file, err, err_len))) goto out;
    if (!(kit->student_file = need_string(root, "student_file", file, err, err_len))) goto out;
    if (!(kit->compiler = need_string(root, "compiler", file, err, err_len))) goto out;
    if (!(kit->linker = need_string(root, "linker", file, err, err_len))) goto out;
    if (str_array(root, "compile", &kit->compile, &kit->n_compile, file, err, err_len)) goto out;
    if (str_array(root, "link", &kit->link, &kit->n_link, file, err, err_len)) goto out;
    if (str_array(root, "link_flags", &kit->link_flags, &kit->n_link_flags, file, err, err_len)) goto out;
    kit->sanitized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "sanitized"));
    const cJSON *skeleton = cJSON_GetObjectItemCaseSensitive(root, "skeleton");
    if (skeleton) {
        if (!cJSON_IsString(skeleton) || strstr(skeleton->valuestring, "..") || skeleton->valuestring[0] == '/') {
            snprintf(err, err_len, "%s: \"skeleton\" must be a path inside the kit", file);
            goto out;
        }
        kit->skeleton = grade_path_join(dir, skeleton->valuestring);
    }
    if (!(kit->objcheck = kit_program(root, dir, "objcheck", file, err, err_len))) goto out;
    if (!(kit->referee = kit_program(root, dir, "referee", file, err, err_len))) goto out;
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(root, "libraries");
    if (!cJSON_IsArray(libs)) {
        snprintf(err, err_len, "%s: \"libraries\" must be an array", file);
        goto out;
    }
    kit->libs = calloc((size_t)cJSON_GetArraySize(libs) + 1, sizeof(grade_kit_lib));
    const cJSON *lib;
    cJSON_ArrayForEach(lib, libs) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(lib, "path");
        if (!cJSON_IsString(p) || strstr(p->valuestring, "..") || p->valuestring[0] == '/') {
            snprintf(err, err_len, "%s: a library without a relative \"path\"", file);
            goto out;
        }
        grade_kit_lib *l = &kit->libs[kit->n_libs++];
        l->path = grade_strdup(p->valuestring);
        l->alwayslink = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lib, "alwayslink"));
        l->shared = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lib, "shared"));
    }
    bool has_libs = false;
    for (size_t i = 0; i < kit->n_link; i++) has_libs |= !strcmp(kit->link[i], "@LIBS@");
    if (!has_libs) {
        snprintf(err, err_len, "%s: the link line has no @LIBS@ placeholder", file);
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    free(text);
    free(file);
    if (rc) grade_kit_free(kit);
    return rc;
}

static void free_strings(char **v, size_t n) {
    if (!v) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void grade_kit_free(grade_kit *kit) {
    free(kit->dir);
    free(kit->lab);
    free(kit->backend);
    free(kit->student_file);
    free(kit->skeleton);
    free(kit->objcheck);
    free(kit->referee);
    free(kit->compiler);
    free(kit->linker);
    free_strings(kit->compile, kit->n_compile);
    free_strings(kit->link, kit->n_link);
    free_strings(kit->link_flags, kit->n_link_flags);
    for (size_t i = 0; i < kit->n_libs; i++) free(kit->libs[i].path);
    free(kit->libs);
    memset(kit, 0, sizeof(*kit));
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int grade_kit_set_load(const char *kits_dir, grade_kit_set *set, char *err, size_t err_len) {
    memset(set, 0, sizeof(*set));
    DIR *d = opendir(kits_dir);
    if (!d) {
        snprintf(err, err_len, "kits folder %s: cannot open it", kits_dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *sub = grade_path_join(kits_dir, e->d_name);
        char *manifest = grade_path_join(sub, "manifest.json");
        /* Runfiles may be symbolic links: follow them here. */
        if (access(manifest, R_OK) == 0) {
            names = realloc(names, (n + 1) * sizeof(char *));
            names[n++] = grade_strdup(e->d_name);
        }
        free(manifest);
        free(sub);
    }
    closedir(d);
    qsort(names, n, sizeof(char *), compare_names);
    set->kits = calloc(n + 1, sizeof(grade_kit));
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char *sub = grade_path_join(kits_dir, names[i]);
        if (rc == 0 && grade_kit_load(sub, &set->kits[set->n], err, err_len) == 0) set->n++;
        else rc = -1;
        free(sub);
        free(names[i]);
    }
    free(names);
    if (rc) grade_kit_set_free(set);
    return rc;
}

void grade_kit_set_free(grade_kit_set *set) {
    for (size_t i = 0; i < set->n; i++) grade_kit_free(&set->kits[i]);
    free(set->kits);
    memset(set, 0, sizeof(*set));
}

const grade_kit *grade_kit_set_find(const grade_kit_set *set, const char *lab, const char *backend) {
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->kits[i].lab, lab) && !strcmp(set->kits[i].backend, backend)) return &set->kits[i];
    return NULL;
}

/* The folder this program is in, and its runfiles root; malloc'd or NULL. */
static char *self_exe(void) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) return NULL;
    buf[n] = '\0';
    return grade_strdup(buf);
}

/* An installed grader (grade_install.h): the folder this program is in holds
 * INSTALLED.txt. Its own files are the only ones it uses (not those of a RUNFILES_DIR it
 * was started under). malloc'd folder, or NULL. */
static char *installed_dir(void) {
    char *exe = self_exe();
    if (!exe) return NULL;
    char *copy = grade_strdup(exe);
    char *dir = grade_strdup(dirname(copy));
    free(copy);
    free(exe);
    char *marker = grade_strf("%s/INSTALLED.txt", dir);
    bool installed = access(marker, R_OK) == 0;
    free(marker);
    if (installed) return dir;
    free(dir);
    return NULL;
}

static bool installed_dir_present(void) {
    char *dir = installed_dir();
    bool present = dir != NULL;
    free(dir);
    return present;
}

/* path beside an installed grader, or NULL when this one is not installed or it lacks it. */
static char *installed_file(const char *path) {
    char *dir = installed_dir();
    if (!dir) return NULL;
    char *p = grade_strf("%s/%s", dir, path);
    free(dir);
    if (access(p, R_OK) == 0) return p;
    free(p);
    return NULL;
}

char *grade_runfile(const char *name) {
    if (installed_dir_present()) return installed_file(name);
    const char *rf = getenv("RUNFILES_DIR");
    char *candidates[3] = {NULL, NULL, NULL};
    if (rf && *rf) candidates[0] = grade_strf("%s/streamlab/grading/%s", rf, name);
    char *exe = self_exe();
    if (exe) {
        candidates[1] = grade_strf("%s.runfiles/streamlab/grading/%s", exe, name);
        char *copy = grade_strdup(exe);
        candidates[2] = grade_strf("%s/%s", dirname(copy), name);
        free(copy);
        free(exe);
    }
    char *found = NULL;
    for (int i = 0; i < 3; i++) {
        if (!found && candidates[i] && access(candidates[i], R_OK) == 0) found = candidates[i];
        else free(candidates[i]);
    }
    return found;
}

char *grade_workspace_runfile(const char *path) {
    if (installed_dir_present()) return installed_file(path);
    const char *rf = getenv("RUNFILES_DIR");
    char *candidates[2] = {NULL, NULL};
    if (rf && *rf) candidates[0] = grade_strf("%s/streamlab/%s", rf, path);
    char *exe = self_exe();
    if (exe) candidates[1] = grade_strf("%s.runfiles/streamlab/%s", exe, path);
    free(exe);
    char *found = NULL;
    for (int i = 0; i < 2; i++) {
        if (!found && candidates[i] && access(candidates[i], R_OK) == 0) found = candidates[i];
        else free(candidates[i]);
    }
    return found;
}

char *grade_kit_default_dir(void) { return grade_runfile("kits"); }

int grade_kit_install(const grade_kit *kit, const char *dest, grade_kit *copy, char *err, size_t err_len) {
    if (grade_mkdir_p(dest, 0755, err, err_len) != 0) return -1;
    if (grade_copy_tree(kit->dir, dest, err, err_len) != 0) return -1;
    if (grade_kit_load(dest, copy, err, err_len) != 0) return -1;
    /* The copy leaves files 0644; the kit's programs run. */
    const char *programs[] = {copy->objcheck, copy->referee};
    for (size_t i = 0; i < 2; i++) {
        if (chmod(programs[i], 0755) != 0) {
            snprintf(err, err_len, "cannot make %s executable: %s", programs[i], strerror(errno));
            grade_kit_free(copy);
            return -1;
        }
    }
    return 0;
}

typedef struct argv_builder {
    char **v;
    size_t n, cap;
} argv_builder;

static void push(argv_builder *a, char *s) {
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = realloc(a->v, a->cap * sizeof(char *));
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

/* s with each @NAME@ of the table replaced. */
static char *fill(const char *s, const char *const table[][2], size_t rows) {
    char *cur = grade_strdup(s);
    for (size_t i = 0; i < rows; i++) {
        if (!strstr(cur, table[i][0])) continue;
        char *next = grade_text_replace(cur, table[i][0], table[i][1]);
        free(cur);
        cur = next;
    }
    return cur;
}

char **grade_kit_compile_argv(const grade_kit *kit, const char *src, const char *obj) {
    const char *const table[][2] = {{"@KIT@", kit->dir}, {"@SRC@", src}, {"@OBJ@", obj}};
    argv_builder a = {0};
    push(&a, grade_strdup(kit->compiler));
    for (size_t i = 0; i < kit->n_compile; i++) push(&a, fill(kit->compile[i], table, 3));
    return a.v;
}

char **grade_kit_link_argv(const grade_kit *kit, const char *obj, const char *out) {
    const char *const table[][2] = {{"@KIT@", kit->dir}, {"@OUT@", out}};
    argv_builder a = {0};
    push(&a, grade_strdup(kit->linker));
    for (size_t i = 0; i < kit->n_link; i++) {
        if (strcmp(kit->link[i], "@LIBS@") != 0) {
            push(&a, fill(kit->link[i], table, 2));
            continue;
        }
        /* What Bazel puts here for a cc_binary: the binary's own objects, then each library
         * in link order (alwayslink ones whole), then the libraries' link flags. */
        push(&a, grade_strdup(obj));
        bool any_shared = false;
        for (size_t j = 0; j < kit->n_libs; j++) {
            const grade_kit_lib *l = &kit->libs[j];
            char *path = grade_path_join(kit->dir, l->path);
            if (l->alwayslink && !l->shared) {
                push(&a, grade_strdup("-Wl,-whole-archive"));
                push(&a, path);
                push(&a, grade_strdup("-Wl,-no-whole-archive"));
            } else {
                push(&a, path);
            }
            any_shared |= l->shared;
        }
        for (size_t j = 0; j < kit->n_link_flags; j++) push(&a, fill(kit->link_flags[j], table, 2));
        /* Shared libraries of the kit (CUPTI on a GPU) are found beside the others. */
        if (any_shared) push(&a, grade_strf("-Wl,-rpath,%s/lib", kit->dir));
    }
    return a.v;
}

void grade_argv_free(char **argv) {
    if (!argv) return;
    for (char **p = argv; *p; p++) free(*p);
    free(argv);
}
