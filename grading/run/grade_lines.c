/* grading/run/grade_lines.c: the source lines of a sandboxed run's races (see grade_lines.h). */
#include "grading/run/grade_lines.h"

#include <string.h>

#include "cli/addr2line.h"
#include "labs/harness/result_schema.h"

#define MAX_SITES 24

void grade_lines_fill(const char *binary, const char *build_dir, cJSON *result) {
    /* Each race's two sides, then the wait and the record its fix blames (in its
     * blamed_wait object): a site key and the line key it fills. */
    static const char *const keys[4][2] = {{LAB_KEY_RACE_FIRST_SITE, LAB_KEY_RACE_FIRST_LINE},
                                           {LAB_KEY_RACE_SECOND_SITE, LAB_KEY_RACE_SECOND_LINE},
                                           {LAB_KEY_BLAMED_WAIT_SITE, LAB_KEY_BLAMED_WAIT_LINE},
                                           {LAB_KEY_BLAMED_RECORD_SITE, LAB_KEY_BLAMED_RECORD_LINE}};
    cJSON *reports = cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_RACE_REPORTS);
    const char *sites[MAX_SITES];
    cJSON *owner[MAX_SITES];
    const char *line_key[MAX_SITES];
    size_t n = 0;
    cJSON *race;
    cJSON_ArrayForEach(race, reports) {
        cJSON *blamed = cJSON_GetObjectItemCaseSensitive(race, LAB_KEY_RACE_BLAMED_WAIT);
        for (int k = 0; k < 4 && n < MAX_SITES; k++) {
            cJSON *in = k < 2 ? race : blamed;
            if (!cJSON_IsObject(in)) continue;
            const cJSON *site = cJSON_GetObjectItemCaseSensitive(in, keys[k][0]);
            if (!cJSON_IsString(site) || strncmp(site->valuestring, "0x", 2) != 0) continue;
            if (strspn(site->valuestring + 2, "0123456789abcdef") != strlen(site->valuestring + 2)) continue;
            if (cJSON_GetObjectItemCaseSensitive(in, keys[k][1])) continue;
            sites[n] = site->valuestring;
            owner[n] = in;
            line_key[n] = keys[k][1];
            n++;
        }
    }
    if (n == 0) return;
    char tool[4096];
    cli_addr2line_find(tool, sizeof(tool));
    char *argv[MAX_SITES + 4];
    size_t argc = 0;
    argv[argc++] = "addr2line";
    argv[argc++] = "-e";
    argv[argc++] = (char *)binary;
    for (size_t i = 0; i < n; i++) argv[argc++] = (char *)sites[i];
    argv[argc] = NULL;
    char answer[8192];
    if (cli_addr2line_run(tool, argv, answer, sizeof(answer)) == 0) return;
    size_t dir = build_dir ? strlen(build_dir) : 0;
    while (dir > 1 && build_dir[dir - 1] == '/') dir--;
    const char *at = answer;
    for (size_t i = 0; i < n && *at; i++) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        char line[1024];
        if (cli_addr2line_take(at, len, line, sizeof(line))) {
            const char *shown = line;
            if (dir && strncmp(line, build_dir, dir) == 0 && line[dir] == '/') shown = line + dir + 1;
            cJSON_AddStringToObject(owner[i], line_key[i], shown);
        }
        if (!nl) break;
        at = nl + 1;
    }
}
