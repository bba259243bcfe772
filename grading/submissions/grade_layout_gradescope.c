/* grading/submissions/grade_layout_gradescope.c: a Gradescope "Export submissions" folder (see
 * grade_layout.h): a submission_NNN/ folder per submission, holding what the students
 * uploaded (an archive among it is opened), and submission_metadata.yml, read with
 * libyaml, mapping each submission_NNN to its :submitters: (:name:, :sid:, :email:). A
 * group submission gives each submitter a row, graded from the one folder. A folder the
 * metadata does not name, or metadata that is not what Gradescope writes, stops the
 * grader; a submission in the metadata without its folder is a row saying so. */
#define _GNU_SOURCE
#include "grading/submissions/grade_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_time.h"

#define META "submission_metadata.yml"

static const char *scalar(yaml_document_t *doc, yaml_node_t *n) {
    (void)doc;
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in a mapping node (Gradescope writes Ruby symbols: ":name"; a plain
 * "name" is taken too), or NULL. */
static yaml_node_t *get(yaml_document_t *doc, yaml_node_t *map, const char *key) {
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(doc, yaml_document_get_node(doc, p->key));
        if (k && (!strcmp(k, key) || (k[0] == ':' && !strcmp(k + 1, key))))
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

static void join(char **to, const char *sep, const char *v) {
    if (!v || !*v) return;
    char *j = *to ? grade_strf("%s%s%s", *to, sep, v) : grade_strdup(v);
    free(*to);
    *to = j;
}

/* One entry of the export besides the metadata: a folder the metadata names is taken; a
 * submission_NNN it does not name is misnamed; anything else is skipped with a warning. */
static bool visit(const grade_layout_entry *e, void *arg, const char **note) {
    (void)note;
    const grade_layout_reading *r = arg;
    for (size_t i = 0; i < r->out->n; i++)
        if (!strcmp(r->out->items[i].platform_id, e->name)) return false;
    if (!strncmp(e->name, "submission_", 11)) return true;
    grade_buf_printf(r->warn, "%s: skipped: not a submission of the export\n", e->shown);
    return false;
}

int grade_layout_read_gradescope(const char *dir, grade_submission_list *out, grade_buf *warn, char *err,
                                 size_t err_len) {
    char *meta = grade_path_join(dir, META);
    char *text = NULL;
    size_t len = 0;
    bool cut = false;
    char e2[512];
    if (grade_read_file(meta, 64u << 20, &text, &len, &cut, e2, sizeof(e2)) != 0) {
        snprintf(err, err_len, "Gradescope export: %s", e2);
        free(meta);
        return -1;
    }
    free(meta);
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = -1;
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, err_len,
                 "%s/%s: line %zu, column %zu: %s%s%s: it is not the YAML Gradescope writes; download the export "
                 "again (nothing was graded)",
                 dir, META, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                 parser.problem ? parser.problem : "not valid YAML", parser.context ? " " : "",
                 parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        free(text);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        snprintf(err, err_len,
                 "%s/%s: not a mapping of submission_NNN to its submitters, as Gradescope writes it (nothing was "
                 "graded)",
                 dir, META);
        goto out;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(&doc, p->key);
        const char *key = scalar(&doc, kn);
        yaml_node_t *entry = yaml_document_get_node(&doc, p->value);
        yaml_node_t *subs = get(&doc, entry, "submitters");
        if (!key || strchr(key, '/') || !strcmp(key, ".") || !strcmp(key, "..") || !subs ||
            subs->type != YAML_SEQUENCE_NODE || subs->data.sequence.items.start == subs->data.sequence.items.top) {
            snprintf(err, err_len,
                     "%s/%s: line %zu: %s%s has no :submitters: list of students (:name:, :sid:, :email:), as "
                     "Gradescope writes it (nothing was graded)",
                     dir, META, kn ? kn->start_mark.line + 1 : 0, key ? "entry " : "an entry",
                     key ? key : "");
            goto out;
        }
        /* One folder is one submission: a key given twice would grade its files twice, under
         * two names. */
        for (size_t i = 0; i < out->n; i++)
            if (!strcmp(out->items[i].platform_id, key)) {
                char *shown = grade_text_clean(key, strlen(key), 200);
                snprintf(err, err_len,
                         "%s/%s: line %zu: %s is given twice: Gradescope names each submission once (nothing was "
                         "graded); download the export again",
                         dir, META, kn->start_mark.line + 1, shown);
                free(shown);
                goto out;
            }
        /* A group's submission gives each member a row of their own (the gradebook a
         * platform imports has one row per student), graded from the same folder. */
        size_t first = out->n;
        char *names = NULL;
        size_t members = 0;
        for (yaml_node_item_t *it = subs->data.sequence.items.start; it < subs->data.sequence.items.top; it++) {
            yaml_node_t *who = yaml_document_get_node(&doc, *it);
            const char *nm = scalar(&doc, get(&doc, who, "name")), *sid = scalar(&doc, get(&doc, who, "sid")),
                       *email = scalar(&doc, get(&doc, who, "email"));
            join(&names, " & ", nm ? nm : email ? email : sid);
            grade_submission *s = grade_submission_list_add(out);
            members++;
            s->kind = GRADE_SUB_FOLDER;
            s->loose = true;
            s->path = grade_path_join(dir, key);
            s->platform_id = grade_strdup(key);
            if (sid && *sid) s->sid = grade_strdup(sid);
            if (email && *email) s->email = grade_strdup(email);
            const char *shown = nm && *nm ? nm : s->email ? s->email : s->sid ? s->sid : key;
            s->name = grade_text_clean(shown, strlen(shown), 200);
        }
        /* When it was handed in, for a late policy: Gradescope's :created_at:. */
        const char *created = scalar(&doc, get(&doc, entry, "created_at"));
        for (size_t i = first; i < out->n; i++) {
            grade_submission *s = &out->items[i];
            if (created && grade_time_parse(created, true, &s->submitted_at) == 0) {
                s->has_time = true;
                s->time_from = grade_strdup("Gradescope's :created_at:");
            }
            if (members > 1) {
                char *clean = grade_text_clean(names, strlen(names), 400);
                s->group = grade_strf("a group submission of %s", clean);
                free(clean);
            }
            if (!grade_is_dir(s->path))
                s->problem = grade_strf("the export has no folder %s for this submission (%s names it): its files are "
                                        "missing from the export; download it again",
                                        key, META);
        }
        free(names);
    }
    /* Every folder must be a submission the metadata names. */
    grade_layout_reading r = {out, warn};
    grade_layout_misnamed bad;
    if (grade_layout_walk(dir, META, ", ", visit, &r, &bad, err, err_len) != 0) {
        grade_layout_misnamed_free(&bad);
        goto out;
    }
    if (bad.n) {
        snprintf(err, err_len,
                 "%s/%s names no submitters for %s%s: nobody could be given %s (nothing was graded); is the "
                 "metadata from the same export?",
                 dir, META, bad.list.data, bad.n > GRADE_LAYOUT_LISTED ? ", ..." : "", bad.n == 1 ? "it" : "them");
        grade_layout_misnamed_free(&bad);
        goto out;
    }
    grade_layout_misnamed_free(&bad);
    grade_submission_list_finish(out, warn);
    rc = 0;
out:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    free(text);
    return rc;
}
