/* puzzles/main.c: the puzzle runner (bazel run //puzzles). With no puzzle named it lists
 * them; with one it plays it: shows the code of each variant (and its PyTorch or
 * TensorFlow twin), asks the question, takes the answer, runs the variants, shows their
 * timelines one above the other on one time scale, and says what the runs showed and why.
 * --quiz N plays N puzzles picked at random and keeps the score, as an interview drill. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "labs/harness/backend.h"
#include "puzzles/play.h"
#include "puzzles/puzzle.h"
#include "puzzles/score.h"
#include "puzzles/source.h"

enum { EXIT_OK = 0, EXIT_FAILED = 2, EXIT_USAGE = 64 };

typedef struct options {
    const char *backend; /* auto, sim, gpu */
    const char *profile;
    const char *answer;  /* --answer: the letter, without asking */
    int quiz;            /* --quiz N: N puzzles at random */
    uint64_t seed;
    bool seed_given;
    bool plain;          /* ASCII, no colour, nothing waits for a key */
    bool reveal;         /* no question: run and explain */
    int width;
} options;

static const char *usage_name(void) {
    const char *n = getenv("STREAMLAB_USAGE_NAME");
    return n && *n ? n : "puzzles";
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: %s [options] [PUZZLE]\n"
            "  Predict what CUDA streams will do, then see it. With no PUZZLE, lists them.\n"
            "  PUZZLE          a puzzle's id or its number (004_blocking_copies, 004 or 4)\n"
            "  --quiz N        N puzzles at random in a row, with a score (an interview drill)\n"
            "  --answer X      answer with the letter X instead of being asked\n"
            "  --reveal        no question: run the variants and explain\n"
            "  --plain         plain ASCII text (what a pipe gets anyway)\n"
            "  --width N       columns of the timelines (default: the terminal's, or 100)\n"
            "  --seed N        the quiz's choice of puzzles\n"
            "  --backend B     auto (default), sim or gpu\n"
            "  --profile P     the simulated GPU: h200 (default), h100, a100, l4 or a profile file\n"
            "  --help\n",
            usage_name());
}

static int terminal_width(void) {
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long long v;
    if (c && cli_int(c, 40, 1000, &v)) return (int)v;
    return 100;
}

/* Prints text wrapped at width: the first line starts with first, the others with indent
 * (both as wide as indent). */
static void wrap_first(const char *text, int width, const char *first, const char *indent) {
    int col = 0, ind = (int)strlen(indent);
    bool started = false;
    const char *s = text;
    while (*s) {
        if (*s == '\n') {
            putchar('\n');
            col = 0;
            s++;
            continue;
        }
        if (*s == ' ') {
            s++;
            continue;
        }
        size_t w = strcspn(s, " \n");
        if (col > 0 && col + 1 + (int)w > width) {
            putchar('\n');
            col = 0;
        }
        if (col == 0) {
            fputs(started ? indent : first, stdout);
            started = true;
            col = ind;
        } else {
            putchar(' ');
            col++;
        }
        fwrite(s, 1, w, stdout);
        col += (int)w;
        s += w;
    }
    if (col > 0) putchar('\n');
}

/* Prints text wrapped at width, each line starting with indent. */
static void wrap(const char *text, int width, const char *indent) { wrap_first(text, width, indent, indent); }

/* Prints lines of code as they are, each after indent. */
static void verbatim(const char *text, const char *indent) {
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        printf("%s%.*s\n", indent, (int)n, s);
        s += n;
        if (*s) s++;
    }
}

static void rule(int width, bool utf8) {
    for (int i = 0; i < width; i++) fputs(utf8 ? "─" : "-", stdout);
    putchar('\n');
}

static void list(void) {
    printf("Puzzles: predict what the streams will do, then see it.\n\n");
    char path[4096];
    bool have = puzzle_score_path(path, sizeof(path));
    int total = 0, solved = 0;
    for (const puzzle *const *p = puzzle_all(); *p; p++) {
        int tried = 0, right = 0;
        if (have) puzzle_score_get(path, (*p)->id, &tried, &right);
        total++;
        if (right) solved++;
        const char *mark = right ? "solved" : tried ? "tried" : "";
        if (*mark)
            printf("  %-26s %-50s %s\n", (*p)->id, (*p)->title, mark);
        else
            printf("  %-26s %s\n", (*p)->id, (*p)->title);
    }
    if (have && solved) printf("\nYou have solved %d of %d.\n", solved, total);
    printf("\nPlay one:  bazel run //puzzles -- 004\n"
           "A drill:   bazel run //puzzles -- --quiz 5\n");
}

/* Keeps the answer in the player's record; a record that cannot be written costs only it. */
static void remember(const puzzle *p, bool right) {
    char path[4096];
    if (!puzzle_score_path(path, sizeof(path))) return;
    if (puzzle_score_add(path, p->id, right) != 0)
        fprintf(stderr, "note: could not keep this answer in %s\n", path);
}

static int choice_count(const puzzle *p) {
    int n = 0;
    while (n < PUZZLE_MAX_CHOICES && p->choices[n]) n++;
    return n;
}

/* Reads the player's answer: a letter in range, 'q' (-2), or nothing at end of input (-1). */
static int ask(const puzzle *p, const options *o) {
    int n = choice_count(p);
    if (o->answer) {
        int c = o->answer[0] | 0x20;
        return c - 'a';
    }
    for (;;) {
        printf("Your answer (a-%c, q to stop): ", 'a' + n - 1);
        fflush(stdout);
        char line[64];
        if (!fgets(line, sizeof(line), stdin)) {
            printf("\n(no answer: showing the runs)\n");
            return -1;
        }
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        int c = *s | 0x20;
        if (c == 'q') return -2;
        if (c >= 'a' && c < 'a' + n && (s[1] == '\n' || s[1] == '\0' || s[1] == ' ' || s[1] == ')')) return c - 'a';
        printf("Please answer with one letter, a to %c.\n", 'a' + n - 1);
    }
}

/* Plays p. Returns 1 when answered right, 0 when wrong or unanswered, -2 when the player
 * stopped, -1 when a variant failed. */
static int play(const puzzle *p, const options *o, const puzzle_backend *b, int number, int total) {
    bool utf8 = !o->plain && isatty(STDOUT_FILENO) && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    int width = o->width ? o->width : terminal_width();
    if (width > 160) width = 160;
    int text_width = width < 100 ? width : 100;

    rule(text_width, utf8);
    if (total > 1) printf("Puzzle %d of %d: ", number, total);
    printf("%s  %s\n", p->id, p->title);
    rule(text_width, utf8);
    wrap(p->setup, text_width, "");
    char *code = puzzle_shown_code(p->source);
    if (code) {
        printf("\n");
        fputs(code, stdout);
        free(code);
    }
    if (p->framework) {
        printf("\nThe same in a framework:\n");
        verbatim(p->framework, "    ");
    }
    printf("\n");
    wrap(p->question, text_width, "");
    int n = choice_count(p);
    for (int i = 0; i < n; i++) {
        char label[8];
        snprintf(label, sizeof(label), "  %c) ", 'a' + i);
        wrap_first(p->choices[i], text_width, label, "     ");
    }
    printf("\n");
    int said = o->reveal ? -1 : ask(p, o);
    if (said == -2) return -2;

    printf("Running the %d variants on the %s...\n\n", p->n_variants, b->device);
    fflush(stdout);
    puzzle_run runs[PUZZLE_MAX_VARIANTS];
    memset(runs, 0, sizeof(runs));
    int rc = puzzle_play(p, width, utf8, runs);
    for (int i = 0; i < p->n_variants; i++) {
        const puzzle_run *r = &runs[i];
        if (r->error != cudaSuccess) {
            printf("%s: failed with %s\n\n", p->variants[i].label, cudaGetErrorString(r->error));
            continue;
        }
        printf("%s: device %.2f ms, host %.2f ms\n", p->variants[i].label, r->span_ms, r->host_ms);
        if (r->timeline) fputs(r->timeline, stdout);
        printf("\n");
    }
    char why[512];
    int shown = rc == 0 ? puzzle_judge(p, runs, why, sizeof(why)) : -1;
    puzzle_runs_free(runs, p->n_variants);
    if (rc != 0) {
        printf("A variant failed, so this puzzle cannot be judged here.\n");
        return -1;
    }
    if (shown < 0) {
        printf("The runs show none of the answers: %s\n", why);
    } else {
        char label[32];
        snprintf(label, sizeof(label), "The runs show %c) ", 'a' + shown);
        wrap_first(p->choices[shown], text_width, label, "                 ");
        if (why[0]) wrap(why, text_width, "  ");
    }
    int right = said >= 0 && shown >= 0 && said == shown;
    if (said >= 0 && shown >= 0) remember(p, right);
    if (said >= 0 && said < n) printf("You said %c): %s\n", 'a' + said, right ? "right." : "not this time.");
    if (shown >= 0 && shown != p->answer)
        printf("Note: the explanation below is written for %c), which the simulated H200 shows; this "
               "device differs.\n",
               'a' + p->answer);
    printf("\nWhy:\n");
    wrap(p->explanation, text_width, "  ");
    if (p->interview) {
        printf("\nInterview question: ");
        wrap(p->interview, text_width - 20, "");
    }
    printf("\n");
    return right;
}

static const puzzle *find(const char *name) {
    const puzzle *p = puzzle_find(name);
    if (p) return p;
    /* "4" finds "004_...", a topic finds its puzzle */
    long long num;
    if (cli_int(name, 0, 999, &num)) {
        char id[8];
        snprintf(id, sizeof(id), "%03lld_", num);
        return puzzle_find(id);
    }
    for (const puzzle *const *q = puzzle_all(); *q; q++)
        if (strlen((*q)->id) > 4 && strcmp((*q)->id + 4, name) == 0) return *q;
    return NULL;
}

int main(int argc, char **argv) {
    setlocale(LC_ALL, "");
    options o;
    memset(&o, 0, sizeof(o));
    o.backend = "auto";
    static const struct option longopts[] = {
        {"quiz", required_argument, NULL, 'q'},    {"answer", required_argument, NULL, 'a'},
        {"reveal", no_argument, NULL, 'r'},        {"plain", no_argument, NULL, 'p'},
        {"width", required_argument, NULL, 'w'},   {"seed", required_argument, NULL, 's'},
        {"backend", required_argument, NULL, 'b'}, {"profile", required_argument, NULL, 'P'},
        {"probe-device", no_argument, NULL, 'D'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c;
    long long v;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'q':
            if (!cli_int(optarg, 1, 1000, &v)) {
                fprintf(stderr, "%s: --quiz=%s: give how many puzzles, 1 or more\n", usage_name(), optarg);
                return EXIT_USAGE;
            }
            o.quiz = (int)v;
            break;
        case 'a':
            if (strlen(optarg) != 1 || ((optarg[0] | 0x20) < 'a' || (optarg[0] | 0x20) > 'z')) {
                fprintf(stderr, "%s: --answer=%s: give one letter, as the question lists them\n", usage_name(),
                        optarg);
                return EXIT_USAGE;
            }
            o.answer = optarg;
            break;
        case 'r': o.reveal = true; break;
        case 'p': o.plain = true; break;
        case 'w':
            if (!cli_int(optarg, 60, 1000, &v)) {
                fprintf(stderr, "%s: --width=%s: give a number of columns, 60 to 1000\n", usage_name(), optarg);
                return EXIT_USAGE;
            }
            o.width = (int)v;
            break;
        case 's':
            if (!cli_u64(optarg, &o.seed)) {
                fprintf(stderr, "%s: --seed=%s: give a whole number\n", usage_name(), optarg);
                return EXIT_USAGE;
            }
            o.seed_given = true;
            break;
        case 'b':
            if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "sim") != 0 && strcmp(optarg, "gpu") != 0) {
                fprintf(stderr, "%s: --backend=%s: give auto, sim or gpu\n", usage_name(), optarg);
                return EXIT_USAGE;
            }
            o.backend = optarg;
            break;
        case 'P': o.profile = optarg; break;
        case 'D': {
            char out[256];
            int rc = lab_backend_probe(out, sizeof(out));
            puts(out);
            return rc;
        }
        case 'h': usage(stdout); return EXIT_OK;
        default: {
            char err[256];
            cli_refused(argc, argv, longopts, err, sizeof(err));
            fprintf(stderr, "%s: %s\n", usage_name(), err);
            usage(stderr);
            return EXIT_USAGE;
        }
        }
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "%s: one puzzle at a time (got %s and %s)\n", usage_name(), argv[optind], argv[optind + 1]);
        return EXIT_USAGE;
    }
    const puzzle *one = NULL;
    if (optind < argc) {
        one = find(argv[optind]);
        if (!one) {
            fprintf(stderr, "%s: no puzzle %s. These are the puzzles:\n", usage_name(), argv[optind]);
            for (const puzzle *const *p = puzzle_all(); *p; p++) fprintf(stderr, "  %s\n", (*p)->id);
            return EXIT_USAGE;
        }
        if (o.quiz) {
            fprintf(stderr, "%s: --quiz picks its own puzzles; name none, or drop --quiz\n", usage_name());
            return EXIT_USAGE;
        }
        if (o.answer && (o.answer[0] | 0x20) - 'a' >= choice_count(one)) {
            fprintf(stderr, "%s: --answer=%s: %s has answers a to %c\n", usage_name(), o.answer, one->id,
                    'a' + choice_count(one) - 1);
            return EXIT_USAGE;
        }
    } else if (o.answer) {
        fprintf(stderr, "%s: --answer answers one puzzle: name it\n", usage_name());
        return EXIT_USAGE;
    }
    if (!one && !o.quiz) {
        list();
        return EXIT_OK;
    }

    puzzle_backend b;
    char err[512];
    int rc = puzzle_backend_start(o.backend, o.profile, &b, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", usage_name(), err);
        return rc == LAB_EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
    }
    int status = EXIT_OK;
    if (one) {
        int r = play(one, &o, &b, 1, 1);
        if (r == -1) status = EXIT_FAILED;
    } else {
        int count = 0;
        for (const puzzle *const *p = puzzle_all(); *p; p++) count++;
        const puzzle **order = calloc((size_t)count, sizeof(*order));
        if (!order) return EXIT_FAILED;
        for (int i = 0; i < count; i++) order[i] = puzzle_all()[i];
        srand((unsigned)(o.seed_given ? o.seed : (unsigned long long)time(NULL)));
        for (int i = count - 1; i > 0; i--) { /* a shuffle; a quiz longer than the list repeats it */
            int j = rand() % (i + 1);
            const puzzle *t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int right = 0, asked = 0;
        for (int i = 0; i < o.quiz; i++) {
            int r = play(order[i % count], &o, &b, i + 1, o.quiz);
            if (r == -2) break;
            asked++;
            if (r == 1) right++;
            if (r == -1) status = EXIT_FAILED;
            printf("Score: %d of %d\n\n", right, asked);
        }
        printf("Final score: %d of %d\n", right, asked);
        free(order);
    }
    puzzle_backend_stop();
    return status;
}
