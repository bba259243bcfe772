// grading/grade_hostile_names_test.cc: names and files a student controls move no write and
// take no grade.
//  - every name gets a report folder that is safe (no '/', '.', '..', leading dot, control
//    character or class file's name, bounded) and distinct in the class, the same on every
//    run (grade_student_dir.h);
//  - writes below --out refuse '..' and symbolic links (grade_beneath.h);
//  - gradebook cells a spreadsheet could run as a formula are neutralised, also after
//    spaces, tabs and line breaks, and read back as they were; the grader's own numbers stay
//    numbers;
//  - Moodle's and Canvas's own prefix says whose a file is, whatever the file's own name
//    claims;
//  - end to end with the real //grading:grade: a Gradescope export whose :name: values are
//    paths, class files, control characters, a long name and a formula, beside two honest
//    students; nothing is written outside --out, the gradebook is written, every student
//    has a folder of their own, and the honest students get the grades they get alone.
//    Then links planted in --out, and --regrade: nothing is written through them, the class
//    is graded, the refused student's row says why. A Moodle download where Bob uploads a
//    file named after Alice: Alice keeps her grade, Bob's file stays Bob's.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "grading/base/grade_text.h"
#include "grading/grade_test_support.h"
#include "grading/out/grade_beneath.h"
#include "grading/out/grade_student_dir.h"
#include "grading/reports/grade_adjust.h"
#include "grading/reports/grade_gradebook.h"
#include "grading/submissions/grade_layout.h"
#include "grading/submissions/grade_roster.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";

std::string Reference() { return Slurp(Runfile("solutions/03_double_buffer.c")); }
std::string Skeleton() { return Slurp(Runfile("labs/03_double_buffer/lab.c")); }
std::string Broken() { return Slurp(Runfile("grading/testdata/does_not_compile/labs/03_double_buffer/lab.c")); }

std::string Take(char *s) {
    std::string r = s ? s : "";
    free(s);
    return r;
}

// A name made for this test binary, so that a path it escaped to is its own.
std::string Unique(const std::string &stem) { return stem + "-" + std::to_string(getpid()); }

bool ValidUtf8(const std::string &s) {
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size()) return false;
        for (size_t k = 1; k < n; k++)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
        i += n;
    }
    return true;
}

// What a student's folder may never be.
void ExpectSafeFolder(const std::string &dir, const std::string &name) {
    SCOPED_TRACE("name: " + name + " -> folder: " + dir);
    EXPECT_FALSE(dir.empty());
    EXPECT_NE(dir, ".");
    EXPECT_NE(dir, "..");
    EXPECT_NE(dir[0], '.');
    EXPECT_NE(dir[0], ' ');
    EXPECT_EQ(dir.find('/'), std::string::npos);
    EXPECT_EQ(dir.find('\\'), std::string::npos);
    for (unsigned char c : dir) EXPECT_TRUE(c >= 0x20 && c != 0x7f) << static_cast<int>(c);
    EXPECT_FALSE(grade_class_file_name(dir.c_str()));
    EXPECT_LE(dir.size(), static_cast<size_t>(GRADE_STUDENT_DIR_MAX + 20));
    EXPECT_TRUE(ValidUtf8(dir));
}

std::vector<std::string> HostileNames() {
    return {"../../../../../tmp/" + Unique("streamlab-hostile"),
            ".",
            "..",
            "x/../.streamlab-grade",
            ".streamlab-grade",
            ".streamlab-grade.lock",
            "./gradebook.csv",
            "gradebook.csv",
            "GRADEBOOK.CSV",
            "gradebook.csv.tmp.1",
            "junit.xml",
            "INCOMPLETE.txt",
            "similarity.txt",
            "slurm",
            "./Honest Student",
            "ctl\x01\x1b[31mred\nsecond line\tand a tab",
            std::string(300, 'L'),
            [] {
                std::string s;
                for (int i = 0; i < 80; i++) s += "Zo\xc3\xab";
                return s;
            }(),
            "/./..//../.",
            "",
            "   ",
            "a\\b",
            " =HYPERLINK(\"http://evil.example\",\"click\")",
            "\t@SUM(1+1)",
            "\n-2+3"};
}

TEST(HostileNames, EveryNameGetsASafeFolderOfItsOwnTheSameOnEveryRun) {
    std::vector<std::string> names = HostileNames();
    for (const char *honest : {"Honest Student", "bob", "Zo\xc3\xab \xc5\xa0im\xc5\xaf", "Carol Chen", "alice",
                               "ALICE", "d'Arcy O'Neil", "-rf"})
        names.push_back(honest);
    // A name that is literally another's cleaned folder.
    const std::string literal = Take(grade_student_dirname("./Honest Student"));
    names.push_back(literal);

    std::vector<const char *> ptrs;
    for (const auto &n : names) ptrs.push_back(n.c_str());
    char **dirs = grade_student_dirnames(ptrs.data(), ptrs.size());
    std::map<std::string, std::string> folder;
    std::set<std::string> seen;
    for (size_t i = 0; i < names.size(); i++) {
        std::string d = dirs[i];
        folder[names[i]] = d;
        ExpectSafeFolder(d, names[i]);
        std::string lower = d;
        std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
        EXPECT_TRUE(seen.insert(lower).second) << "two students share " << d;
    }
    grade_student_dirnames_free(dirs, names.size());

    // A name that is safe as it is keeps it: the folder is the name.
    for (const std::string same : {"Honest Student", "bob", "Zo\xc3\xab \xc5\xa0im\xc5\xaf", "Carol Chen", "ALICE",
                                   "d'Arcy O'Neil", "-rf", literal.c_str()})
        EXPECT_EQ(folder[same], same);
    // One that cleans to another's gets a folder of its own, recognisably the same name; where
    // even that is taken (here by a student named so), the later by name gets "-2".
    EXPECT_EQ(literal.rfind("Honest Student-", 0), 0u) << literal;
    EXPECT_EQ(folder["./Honest Student"], literal + "-2");
    EXPECT_EQ(folder["alice"], "alice-2");  // "ALICE" has it, ignoring case
    EXPECT_EQ(folder["../../../../../tmp/" + Unique("streamlab-hostile")].rfind("tmp_", 0), 0u);
    EXPECT_EQ(folder["gradebook.csv"].rfind("student_gradebook.csv-", 0), 0u) << folder["gradebook.csv"];
    EXPECT_EQ(folder["."].rfind("student-", 0), 0u) << folder["."];

    // The same class in another order (another listing of the folder) maps alike.
    std::vector<const char *> reversed(ptrs.rbegin(), ptrs.rend());
    char **again = grade_student_dirnames(reversed.data(), reversed.size());
    for (size_t i = 0; i < reversed.size(); i++) EXPECT_EQ(folder[reversed[i]], again[i]) << reversed[i];
    grade_student_dirnames_free(again, reversed.size());

    // Without the student named like it, a cleaned name's folder is its own, in any class.
    const char *pair[] = {"./Honest Student", "Honest Student"};
    char **two = grade_student_dirnames(pair, 2);
    EXPECT_EQ(two[0], literal);
    EXPECT_STREQ(two[1], "Honest Student");
    grade_student_dirnames_free(two, 2);
}

// grade_beneath.h: every write below a folder's descriptor stays in it.
TEST(HostileNames, WritesBelowOutRefuseDotDotAndLinks) {
    std::string base = TempDir("hostile_beneath");
    std::string out = base + "/out", outside = base + "/outside";
    fs::create_directories(out);
    fs::create_directories(outside);
    Spit(outside + "/victim.txt", "keep");
    fs::create_directory_symlink(outside, out + "/evil");
    fs::create_symlink(outside + "/victim.txt", out + "/file.txt");
    int fd = open(out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    char err[1024];

    // A folder that is a link: refused, naming it.
    err[0] = '\0';
    EXPECT_EQ(grade_beneath_write(fd, "OUT", "evil/report.txt", "x", 1, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("OUT/evil"), std::string::npos) << err;
    EXPECT_NE(std::string(err).find("symbolic link"), std::string::npos) << err;
    EXPECT_EQ(grade_beneath_dir(fd, "OUT", "evil/deeper", true, 0755, err, sizeof(err)), -1);
    EXPECT_EQ(grade_beneath_unlink(fd, "OUT", "evil/victim.txt", err, sizeof(err)), -1);
    // Paths that leave or are not relative.
    for (const char *bad : {"../escape.txt", "a/../../escape.txt", "/tmp/escape.txt", "a/./b.txt", "a//b.txt", ".",
                            ".."}) {
        err[0] = '\0';
        EXPECT_EQ(grade_beneath_write(fd, "OUT", bad, "x", 1, err, sizeof(err)), -1) << bad;
        EXPECT_NE(std::string(err).find("refused"), std::string::npos) << bad << ": " << err;
    }
    EXPECT_FALSE(fs::exists(base + "/escape.txt"));
    EXPECT_FALSE(fs::exists(out + "/a/b.txt"));
    // A link where a file goes is replaced, never written through.
    ASSERT_EQ(grade_beneath_write(fd, "OUT", "file.txt", "new", 3, err, sizeof(err)), 0) << err;
    EXPECT_FALSE(fs::is_symlink(out + "/file.txt"));
    EXPECT_EQ(Slurp(out + "/file.txt"), "new");
    // A folder in a file's way is said.
    fs::create_directories(out + "/gradebook.csv");
    EXPECT_EQ(grade_beneath_write(fd, "OUT", "gradebook.csv", "x", 1, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("OUT/gradebook.csv"), std::string::npos) << err;
    // Folders made as needed; files removed.
    ASSERT_EQ(grade_beneath_write(fd, "OUT", "a/b/c.txt", "abc", 3, err, sizeof(err)), 0) << err;
    EXPECT_EQ(Slurp(out + "/a/b/c.txt"), "abc");
    EXPECT_EQ(grade_beneath_unlink(fd, "OUT", "a/b/c.txt", err, sizeof(err)), 0) << err;
    EXPECT_FALSE(fs::exists(out + "/a/b/c.txt"));
    EXPECT_EQ(grade_beneath_unlink(fd, "OUT", "a/missing.txt", err, sizeof(err)), 0) << err;
    close(fd);

    // Outside is as it was; no temporary file was left.
    EXPECT_EQ(Slurp(outside + "/victim.txt"), "keep");
    EXPECT_EQ(std::distance(fs::directory_iterator(outside), fs::directory_iterator()), 1);
    for (const auto &e : fs::recursive_directory_iterator(out))
        EXPECT_EQ(e.path().filename().string().find(".grade-tmp"), std::string::npos) << e.path();
}

// The gradebook read back with the grader's own CSV reader (grade_roster.h).
std::vector<std::vector<std::string>> Csv(const std::string &text) {
    std::vector<std::vector<std::string>> rows;
    const char *p = text.data(), *end = text.data() + text.size();
    int line = 1;
    for (;;) {
        char **f = nullptr;
        int n = grade_csv_record(&p, end, &f, &line);
        EXPECT_GE(n, 0) << "a quote is never closed at line " << line;
        if (n <= 0) break;
        rows.emplace_back(f, f + n);
        grade_csv_fields_free(f, n);
    }
    return rows;
}

// Whether a spreadsheet could run a cell as a formula: a tab or CR first, or = + - @ after
// spaces, tabs, line breaks and the Unicode spaces.
bool Runnable(const std::string &cell) {
    if (!cell.empty() && (cell[0] == '\t' || cell[0] == '\r')) return true;
    size_t i = 0;
    for (;;) {
        if (i < cell.size() && strchr(" \t\r\n\v\f", cell[i])) i++;
        else if (cell.compare(i, 2, "\xc2\xa0") == 0) i += 2;
        else if (cell.compare(i, 3, "\xe3\x80\x80") == 0 || cell.compare(i, 3, "\xe2\x80\x8b") == 0 ||
                 cell.compare(i, 3, "\xef\xbb\xbf") == 0)
            i += 3;
        else break;
    }
    return i < cell.size() && strchr("=+-@", cell[i]);
}

TEST(HostileNames, CsvCellsASpreadsheetCouldRunAreNeutralisedAndReadBackAsTheyWere) {
    for (const std::string text :
         {" =1+2", "  =cmd|' /C calc'!A0", "\t=1", "\r=1", "\n=1", " \t\n@SUM(A1)", "\xc2\xa0=1", "\xe3\x80\x80-1",
          "\xef\xbb\xbf=1", "-5 for being late", "+1", "'=x", "''+x", "=A1", "@x"}) {
        SCOPED_TRACE(text);
        std::string field = Take(grade_csv_field(text.c_str()));
        auto rows = Csv(field + "\r\n");
        ASSERT_EQ(rows.size(), 1u);
        ASSERT_EQ(rows[0].size(), 1u);
        const std::string &cell = rows[0][0];
        EXPECT_EQ(cell[0], '\'') << cell;
        // Read back as the grader wrote it (the text as grade_text_clean keeps it).
        EXPECT_EQ(grade_csv_unescape(cell.c_str()), Take(grade_text_clean(text.data(), text.size(), 4096)));
    }
    for (const std::string text : {"Bob", "a=b", "3 - 1", "O'Neil", "'quoted'"}) {
        EXPECT_EQ(Take(grade_csv_field(text.c_str())), text);
        EXPECT_STREQ(grade_csv_unescape(text.c_str()), text.c_str());
    }

    // A gradebook: the name neutralised, the instructor's -5 a number, their note text, and
    // the adjustment read back for the same student by --regrade.
    const std::string name = " =HYPERLINK(\"http://evil.example\",\"click\")";
    grade_student s{};
    s.name = strdup(name.c_str());
    s.n_labs = 1;
    s.labs = static_cast<grade_lab *>(calloc(1, sizeof(grade_lab)));
    double max[GRADE_CHECKS] = {40, 20, 40, 0};
    grade_lab_init(&s.labs[0], "03_double_buffer", kLabFile, max);
    s.labs[0].submitted = true;
    grade_check_set(&s.labs[0].checks[GRADE_CORRECT], 40, "correct");
    grade_check_set(&s.labs[0].checks[GRADE_RACE_FREE], 20, "race-free");
    grade_check_set(&s.labs[0].checks[GRADE_SPEEDUP], 40, "fast");
    s.labs[0].adjusted = true;
    s.labs[0].adjustment = -5;
    s.labs[0].adjustment_note = strdup("-5: handed in by email");
    grade_student_total(&s);
    const grade_student *list[] = {&s};
    std::string csv = Take(grade_gradebook_csv(list, 1));
    auto rows = Csv(csv);
    ASSERT_EQ(rows.size(), 2u) << csv;
    const auto &head = rows[0], &row = rows[1];
    for (size_t c = 0; c < row.size(); c++) {
        if (head[c] == "03_double_buffer adjustment") {
            EXPECT_EQ(row[c], "-5.00") << csv;
        } else if (!row[c].empty() && row[c].find_first_not_of("0123456789.") != std::string::npos) {
            EXPECT_FALSE(Runnable(row[c])) << head[c] << ": " << row[c];
        }
    }
    EXPECT_EQ(row[0], "'" + name);
    grade_adjustments adj{};
    char err[512];
    ASSERT_EQ(grade_adjustments_parse(csv.data(), csv.size(), "gradebook.csv", &adj, err, sizeof(err)), 0) << err;
    ASSERT_EQ(adj.n, 1u);
    EXPECT_EQ(adj.items[0].student, name);
    EXPECT_EQ(adj.items[0].points, -5);
    EXPECT_STREQ(adj.items[0].note, "-5: handed in by email");
    grade_adjustments_free(&adj);
    grade_student_free(&s);
}

struct Read {
    int rc;
    grade_layout used = GRADE_LAYOUT_AUTO;
    std::string err, warnings;
    grade_submission_list subs{};
    ~Read() { grade_submission_list_free(&subs); }
};

void ReadDir(const std::string &dir, Read *r) {
    char err[4096] = "";
    char *how = nullptr;
    r->rc = grade_layout_read(dir.c_str(), GRADE_LAYOUT_AUTO, nullptr, &r->subs, &r->used, &how, err, sizeof(err));
    r->err = err;
    free(how);
    if (r->rc == 0 && r->subs.warnings) r->warnings = r->subs.warnings;
}

const grade_submission *Find(const Read &r, const char *id) {
    for (size_t i = 0; i < r.subs.n; i++)
        if (r.subs.items[i].platform_id && !strcmp(r.subs.items[i].platform_id, id)) return &r.subs.items[i];
    return nullptr;
}

TEST(HostileNames, APlatformsOwnPrefixSaysWhoseAFileIs) {
    const char bob_file[] = "Bob Baker_222_assignsubmission_file_Alice Adams_111_assignsubmission_file_lab.c";
    char *full, *id, *plugin, *rest;
    ASSERT_TRUE(grade_moodle_name(bob_file, &full, &id, &plugin, &rest));
    EXPECT_STREQ(full, "Bob Baker");
    EXPECT_STREQ(id, "222");
    EXPECT_STREQ(plugin, "file");
    EXPECT_STREQ(rest, "Alice Adams_111_assignsubmission_file_lab.c");
    free(full), free(id), free(plugin), free(rest);
    EXPECT_FALSE(grade_moodle_name("_111_assignsubmission_file_lab.c", nullptr, nullptr, nullptr, nullptr));
    EXPECT_FALSE(grade_moodle_name("Bob_x_assignsubmission_file_lab.c", nullptr, nullptr, nullptr, nullptr));

    std::string moodle = TempDir("hostile_moodle_layout");
    Spit(moodle + "/Alice Adams_111_assignsubmission_file_lab.c", "alice");
    Spit(moodle + "/" + bob_file, "bob");
    Read m;
    ReadDir(moodle, &m);
    ASSERT_EQ(m.rc, 0) << m.err;
    EXPECT_EQ(m.used, GRADE_LAYOUT_MOODLE);
    ASSERT_EQ(m.subs.n, 2u);
    const grade_submission *alice = Find(m, "111"), *bob = Find(m, "222");
    ASSERT_TRUE(alice && bob);
    EXPECT_STREQ(alice->name, "Alice Adams");
    ASSERT_EQ(alice->n_parts, 1u);
    EXPECT_EQ(Slurp(alice->parts[0].path), "alice");
    EXPECT_EQ(alice->parts[0].claim, nullptr);
    EXPECT_STREQ(bob->name, "Bob Baker");
    ASSERT_EQ(bob->n_parts, 1u);
    EXPECT_EQ(Slurp(bob->parts[0].path), "bob");
    EXPECT_STREQ(bob->parts[0].name, "Alice Adams_111_assignsubmission_file_lab.c");
    ASSERT_NE(bob->parts[0].claim, nullptr);
    EXPECT_NE(std::string(bob->parts[0].claim).find("claims another participant, Alice Adams (Moodle id 111)"),
              std::string::npos)
        << bob->parts[0].claim;
    EXPECT_NE(m.warnings.find("graded as Bob Baker's"), std::string::npos) << m.warnings;

    // Canvas: the first lastfirst_<user>_<attachment>_ is Canvas's.
    std::string canvas = TempDir("hostile_canvas_layout");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", "alice");
    Spit(canvas + "/bakerbob_1002_5002_adamsalice_1001_5001_lab.c", "bob");
    Read c;
    ReadDir(canvas, &c);
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_EQ(c.used, GRADE_LAYOUT_CANVAS);
    const grade_submission *ca = Find(c, "1001"), *cb = Find(c, "1002");
    ASSERT_TRUE(ca && cb);
    ASSERT_EQ(ca->n_parts, 1u);
    EXPECT_EQ(Slurp(ca->parts[0].path), "alice");
    ASSERT_EQ(cb->n_parts, 1u);
    EXPECT_EQ(Slurp(cb->parts[0].path), "bob");
    ASSERT_NE(cb->parts[0].claim, nullptr);
    EXPECT_NE(std::string(cb->parts[0].claim).find("adamsalice (Canvas user 1001)"), std::string::npos);

    // Gradescope: a submission named twice in the metadata is refused.
    std::string gs = TempDir("hostile_gs_twice");
    Spit(gs + "/submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: A\nsubmission_1:\n  :submitters:\n"
                                          "  - :name: B\n");
    Spit(gs + "/submission_1/lab.c", "x");
    Read g;
    ReadDir(gs, &g);
    EXPECT_EQ(g.rc, -1);
    EXPECT_NE(g.err.find("submission_1 is given twice"), std::string::npos) << g.err;
}

// ---- end to end ------------------------------------------------------------------------------

// s as a YAML double-quoted scalar.
std::string Yaml(const std::string &s) {
    std::string q = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') q += '\\', q += static_cast<char>(c);
        else if (c == '\n') q += "\\n";
        else if (c == '\t') q += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            char hex[8];
            snprintf(hex, sizeof(hex), "\\x%02x", c);
            q += hex;
        } else q += static_cast<char>(c);
    }
    return q + "\"";
}

struct Student {
    std::string name, lab;  // lab: the lab file's text, or "" for an upload without one
};

// A Gradescope export of these students, submission_1..N in order.
void Export(const std::string &dir, const std::vector<Student> &students) {
    std::string meta;
    for (size_t i = 0; i < students.size(); i++) {
        std::string key = "submission_" + std::to_string(i + 1);
        meta += key + ":\n  :submitters:\n  - :name: " + Yaml(students[i].name) + "\n";
        if (students[i].lab.empty()) Spit(dir + "/" + key + "/notes.txt", "my notes\n");
        else Spit(dir + "/" + key + "/lab.c", students[i].lab);
    }
    Spit(dir + "/submission_metadata.yml", meta);
}

// One timed run and no perturbed schedule (given after Grade()'s, they are the ones taken):
// names and files decide where reports go and whose they are, not how the lab runs.
Outcome Class(const std::string &subs, const std::string &out, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--labs", "03", "--seed", "42", "--quiet", "--jobs", "2", "--runs", "1",
                                     "--schedules", "0", "--submissions", subs, "--out", out};
    args.insert(args.end(), more.begin(), more.end());
    return Grade(args);
}

// Everything below dir but the folder skip: path -> its bytes ("<dir>", or "-> target").
std::map<std::string, std::string> Snapshot(const std::string &dir, const std::string &skip) {
    std::map<std::string, std::string> m;
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
        const fs::path &p = it->path();
        if (p == fs::path(skip)) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_symlink()) m[p.string()] = "-> " + fs::read_symlink(p).string();
        else if (it->is_directory()) m[p.string()] = "<dir>";
        else m[p.string()] = Slurp(p.string());
    }
    return m;
}

// The gradebook's rows by student (the name as the student gave it), with its header.
struct Book {
    std::vector<std::string> head;
    std::map<std::string, std::vector<std::string>> rows;
    size_t n = 0;
};

Book ReadBook(const std::string &path) {
    Book b;
    auto rows = Csv(Slurp(path));
    if (rows.empty()) return b;
    b.head = rows[0];
    for (size_t i = 1; i < rows.size(); i++) {
        b.rows[grade_csv_unescape(rows[i].at(0).c_str())] = rows[i];
        b.n++;
    }
    return b;
}

// A row's cells from the score on: the grades, not who.
std::vector<std::string> Grades(const Book &b, const std::string &who) {
    auto col = std::find(b.head.begin(), b.head.end(), "score");
    auto it = b.rows.find(who);
    if (col == b.head.end() || it == b.rows.end()) return {"(no row for " + who + ")"};
    return std::vector<std::string>(it->second.begin() + (col - b.head.begin()), it->second.end());
}

std::string Cell(const Book &b, const std::string &who, const std::string &column) {
    auto col = std::find(b.head.begin(), b.head.end(), column);
    auto it = b.rows.find(who);
    if (col == b.head.end() || it == b.rows.end()) return "(none)";
    return it->second.at(static_cast<size_t>(col - b.head.begin()));
}

// OUT's student folders: folder -> the first line of its report.txt.
std::map<std::string, std::string> Folders(const std::string &out) {
    std::map<std::string, std::string> f;
    for (const auto &e : fs::directory_iterator(out)) {
        std::string name = e.path().filename().string();
        if (name[0] == '.' || !e.is_directory() || e.is_symlink()) continue;
        std::string report = Slurp(e.path().string() + "/report.txt");
        f[name] = report.substr(0, report.find('\n'));
        EXPECT_TRUE(fs::is_regular_file(e.path().string() + "/results.json")) << name;
        EXPECT_TRUE(fs::is_regular_file(e.path().string() + "/junit.xml")) << name;
    }
    return f;
}

TEST(HostileNames, AGradescopeClassOfHostileNamesWritesOnlyInsideOutAndGradesTheHonestAsAlone) {
    std::string base = TempDir("hostile_gs");
    std::string subs = base + "/subs", out = base + "/out", sentinel = base + "/sentinel";
    Spit(sentinel + "/victim.csv", "not the gradebook\n");
    fs::create_directories(sentinel + "/victim_dir");
    const std::string escape = Unique("streamlab-hostile");
    std::vector<Student> honest = {{"Honest Student", Reference()}, {"Bob Baker", Skeleton()}};
    std::vector<Student> cls = honest;
    for (const std::string &n : HostileNames()) {
        if (n.empty() || n == "   ") continue;  // Gradescope gives every submitter a name
        cls.push_back({n, n == "./Honest Student" ? Broken() : ""});
    }
    Export(subs, cls);
    auto before = Snapshot(base, out);
    // Where the first name would have led from OUT, and from the folder the grader runs in.
    fs::path escaped = (fs::path(out) / ("../../../../../tmp/" + escape)).lexically_normal();
    ASSERT_FALSE(fs::exists(escaped));
    ASSERT_FALSE(fs::exists("/tmp/" + escape));

    Outcome r = Class(subs, out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("cannot write"), std::string::npos) << r.err;

    // Nothing outside OUT.
    EXPECT_EQ(Snapshot(base, out), before);
    EXPECT_FALSE(fs::exists(escaped)) << escaped;
    EXPECT_FALSE(fs::exists("/tmp/" + escape));

    // The class's files are files, and the gradebook has every student.
    for (const char *f : {"gradebook.csv", "junit.xml"}) {
        EXPECT_TRUE(fs::is_regular_file(out + "/" + f)) << f;
        EXPECT_FALSE(fs::is_symlink(out + "/" + f)) << f;
    }
    EXPECT_FALSE(fs::exists(out + "/INCOMPLETE.txt"));
    Book book = ReadBook(out + "/gradebook.csv");
    EXPECT_EQ(book.n, cls.size());
    // No report in the grader's state folder.
    for (const auto &e : fs::recursive_directory_iterator(out + "/.streamlab-grade"))
        EXPECT_NE(e.path().filename(), "report.txt") << e.path();

    // A folder per student, none shared, none a class file's or hidden.
    auto folders = Folders(out);
    EXPECT_EQ(folders.size(), cls.size());
    std::set<std::string> reported;
    for (const auto &[dir, first] : folders) {
        ExpectSafeFolder(dir, first);
        EXPECT_TRUE(reported.insert(first).second) << "two folders report " << first;
    }
    EXPECT_EQ(folders["Honest Student"], "streamlab grade report: Honest Student");
    EXPECT_EQ(folders["Bob Baker"], "streamlab grade report: Bob Baker");
    EXPECT_TRUE(reported.count("streamlab grade report: ./Honest Student")) << "no folder for ./Honest Student";
    EXPECT_NE(Slurp(out + "/Honest Student/report.txt").find("score 100.00 / 100.00"), std::string::npos);

    // Every cell a spreadsheet could run is neutralised; the formula name reads back whole.
    for (const auto &[who, row] : book.rows)
        for (size_t c = 0; c < row.size(); c++) EXPECT_FALSE(Runnable(row[c])) << who << ": " << row[c];
    EXPECT_EQ(Cell(book, " =HYPERLINK(\"http://evil.example\",\"click\")", "score"), "0.00");
    EXPECT_EQ(Cell(book, "./Honest Student", "score"), "0.00");
    EXPECT_NE(Cell(book, "./Honest Student", "note").find("does not compile"), std::string::npos);

    // The honest students, graded alone, get the same grades.
    std::string alone_subs = base + "/alone_subs", alone_out = base + "/alone_out";
    Export(alone_subs, honest);
    Outcome a = Class(alone_subs, alone_out);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    Book alone = ReadBook(alone_out + "/gradebook.csv");
    for (const Student &h : honest) {
        EXPECT_EQ(Grades(book, h.name), Grades(alone, h.name)) << h.name;
        EXPECT_EQ(Slurp(out + "/" + h.name + "/results.json").size() > 0, true);
    }
    EXPECT_EQ(Cell(book, "Honest Student", "score"), "100.00");
    EXPECT_EQ(Cell(book, "Bob Baker", "score"), "60.00");

    // A link planted in place of the gradebook: --regrade, which reads the gradebook for
    // the instructor's adjustments, refuses before grading, reading nothing through it.
    std::string gradebook = Slurp(out + "/gradebook.csv");
    fs::remove(out + "/gradebook.csv");
    fs::create_symlink(sentinel + "/victim.csv", out + "/gradebook.csv");
    before = Snapshot(base, out);
    Outcome refused = Class(subs, out, {"--regrade"});
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("gradebook.csv is a symbolic link"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("nothing was graded"), std::string::npos) << refused.err;
    EXPECT_EQ(Snapshot(base, out), before);
    fs::remove(out + "/gradebook.csv");
    Spit(out + "/gradebook.csv", gradebook);

    // Links planted in OUT, then --regrade: junit.xml's link is replaced, never written
    // through; Bob's folder, a link, is refused with the path named, his row keeps his
    // grade and says why; the rest of the class is graded; nothing outside OUT changes.
    fs::remove_all(out + "/Bob Baker");
    fs::create_directory_symlink(sentinel + "/victim_dir", out + "/Bob Baker");
    fs::remove(out + "/junit.xml");
    fs::create_symlink(sentinel + "/victim.csv", out + "/junit.xml");
    std::string honest_folder = out + "/Honest Student";
    fs::remove(honest_folder + "/report.txt");
    before = Snapshot(base, out);
    Outcome g = Class(subs, out, {"--regrade"});
    EXPECT_EQ(g.exit_code, 1) << g.err;
    EXPECT_NE(g.err.find(out + "/Bob Baker"), std::string::npos) << g.err;
    EXPECT_NE(g.err.find("symbolic link"), std::string::npos) << g.err;
    EXPECT_EQ(Snapshot(base, out), before);
    EXPECT_TRUE(fs::is_symlink(out + "/Bob Baker"));
    EXPECT_TRUE(fs::is_empty(sentinel + "/victim_dir"));
    EXPECT_EQ(Slurp(sentinel + "/victim.csv"), "not the gradebook\n");
    EXPECT_FALSE(fs::is_symlink(out + "/junit.xml"));
    EXPECT_NE(Slurp(out + "/junit.xml").find("Honest Student"), std::string::npos);
    Book regraded = ReadBook(out + "/gradebook.csv");
    EXPECT_EQ(regraded.n, cls.size());
    EXPECT_EQ(Grades(regraded, "Honest Student"), Grades(alone, "Honest Student"));
    EXPECT_EQ(Cell(regraded, "Bob Baker", "score"), "60.00");
    std::string note = Cell(regraded, "Bob Baker", "note");
    EXPECT_NE(note.find("reports could not be written"), std::string::npos) << note;
    EXPECT_NE(note.find("symbolic link"), std::string::npos) << note;
    EXPECT_TRUE(fs::is_regular_file(honest_folder + "/report.txt"));  // the others' reports written
    EXPECT_EQ(Folders(out), [&] {
        auto f = folders;
        f.erase("Bob Baker");
        return f;
    }());
}

TEST(HostileNames, AMoodleFileNamedAfterAnotherStudentStaysWithItsUploader) {
    std::string base = TempDir("hostile_moodle");
    std::string subs = base + "/subs", out = base + "/out";
    const std::string alice_file = "Alice Adams_111_assignsubmission_file_lab.c";
    Spit(subs + "/" + alice_file, Reference());
    Spit(subs + "/Bob Baker_222_assignsubmission_file_" + alice_file, Broken());
    Outcome r = Class(subs, out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("claims another participant, Alice Adams (Moodle id 111)"), std::string::npos) << r.err;

    Book book = ReadBook(out + "/gradebook.csv");
    EXPECT_EQ(book.n, 2u);
    EXPECT_EQ(Cell(book, "Alice Adams", "platform_id"), "111");
    EXPECT_EQ(Cell(book, "Alice Adams", "score"), "100.00");
    EXPECT_EQ(Cell(book, "Bob Baker", "platform_id"), "222");
    EXPECT_EQ(Cell(book, "Bob Baker", "score"), "0.00");
    EXPECT_NE(Cell(book, "Bob Baker", "note").find("does not compile"), std::string::npos);
    std::string bob = Slurp(out + "/Bob Baker/report.txt");
    EXPECT_NE(bob.find("its own name claims another participant, Alice Adams (Moodle id 111)"), std::string::npos)
        << bob;
    EXPECT_EQ(Slurp(out + "/Alice Adams/report.txt").find("claims another"), std::string::npos);

    // Alice graded alone gets the same grades.
    std::string alone_subs = base + "/alone_subs", alone_out = base + "/alone_out";
    Spit(alone_subs + "/" + alice_file, Reference());
    Outcome a = Class(alone_subs, alone_out);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(Grades(book, "Alice Adams"), Grades(ReadBook(alone_out + "/gradebook.csv"), "Alice Adams"));
}

}  // namespace
