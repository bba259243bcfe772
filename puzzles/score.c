/* puzzles/score.c: the player's record of solved puzzles (score.h). */
#include "puzzles/score.h"

#include <cjson/cJSON.h>

#include "cli/state.h"

bool puzzle_score_path(char *buf, size_t len) { return cli_state_path("puzzles.json", buf, len); }

static int count(const cJSON *entry, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(entry, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? v->valueint : 0;
}

void puzzle_score_get(const char *path, const char *id, int *tried, int *right) {
    cJSON *j = cli_state_load(path);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, id);
    *tried = count(e, "tried");
    *right = count(e, "right");
    cJSON_Delete(j);
}

int puzzle_score_add(const char *path, const char *id, bool right) {
    cJSON *j = cli_state_load(path);
    cJSON *e = cJSON_GetObjectItemCaseSensitive(j, id);
    if (!cJSON_IsObject(e)) {
        cJSON_DeleteItemFromObjectCaseSensitive(j, id);
        e = cJSON_AddObjectToObject(j, id);
    }
    int tried = count(e, "tried") + 1, good = count(e, "right") + (right ? 1 : 0);
    cJSON_DeleteItemFromObjectCaseSensitive(e, "tried");
    cJSON_DeleteItemFromObjectCaseSensitive(e, "right");
    cJSON_AddNumberToObject(e, "tried", tried);
    cJSON_AddNumberToObject(e, "right", good);
    int rc = cli_state_save(path, j);
    cJSON_Delete(j);
    return rc;
}
