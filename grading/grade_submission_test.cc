// grading/grade_submission_test.cc: finding students and their lab files in folders and
// archives: exact paths, one enclosing folder, Gradescope's loose uploads, and everything
// that is not a lab file (wrong paths, links, oversized files, paths that climb out,
// broken archives), each with a reason that says what is there instead.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <archive.h>
#include <archive_entry.h>

extern "C" {
#include "grading/submissions/grade_archive.h"
#include "grading/submissions/grade_submission.h"
}

namespace fs = std::filesystem;

namespace {

const char kLab[] = "labs/03_double_buffer/lab.c";

std::string TempDir(const std::string &name) {
    const char *t = std::getenv("TEST_TMPDIR");
    fs::path p = fs::path(t ? t : "/tmp") / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
}

void Spit(const std::string &path, const std::string &text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

struct Fetched {
    int rc;
    std::string err, data, missing, note;
    bool found;
};

Fetched Fetch(const std::string &path, grade_sub_kind kind, bool loose = false) {
    grade_submission sub = {};
    sub.name = const_cast<char *>("student");
    sub.path = const_cast<char *>(path.c_str());
    sub.kind = kind;
    grade_wanted w = {};
    w.path = kLab;
    char err[512] = "";
    Fetched f;
    f.rc = grade_submission_fetch(&sub, &w, 1, loose, err, sizeof(err));
    f.err = err;
    f.found = w.data != nullptr;
    f.data = w.data ? std::string(w.data, w.len) : "";
    f.missing = w.missing ? w.missing : "";
    f.note = w.note ? w.note : "";
    grade_wanted_clear(&w);
    return f;
}

void WriteArchive(const std::string &path, bool zip, const std::map<std::string, std::string> &files,
                  const std::map<std::string, std::string> &links = {}) {
    struct archive *a = archive_write_new();
    if (zip) {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        archive_write_add_filter_gzip(a);
    }
    ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
    for (const auto &[name, data] : files) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_write_header(a, e);
        archive_write_data(a, data.data(), data.size());
        archive_entry_free(e);
    }
    for (const auto &[name, target] : links) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_symlink(e, target.c_str());
        archive_entry_set_perm(e, 0777);
        archive_write_header(a, e);
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

TEST(Submissions, ListsFoldersAndArchivesByName) {
    std::string d = TempDir("list");
    fs::create_directories(d + "/carol");
    fs::create_directories(d + "/alice");
    fs::create_directories(d + "/.git");
    Spit(d + "/bob.zip", "x");
    Spit(d + "/dave.tar.gz", "x");
    Spit(d + "/erin.tgz", "x");
    Spit(d + "/alice.zip", "x");
    Spit(d + "/notes.txt", "x");
    grade_submission_list l;
    char err[512];
    ASSERT_EQ(grade_submissions_list(d.c_str(), &l, err, sizeof(err)), 0) << err;
    std::vector<std::string> names;
    for (size_t i = 0; i < l.n; i++) names.push_back(l.items[i].name);
    EXPECT_EQ(names, (std::vector<std::string>{"alice", "alice.zip", "bob", "carol", "dave", "erin"}));
    EXPECT_EQ(l.items[0].kind, GRADE_SUB_FOLDER);
    EXPECT_EQ(l.items[1].kind, GRADE_SUB_ARCHIVE);
    std::string warnings = l.warnings;
    EXPECT_NE(warnings.find("notes.txt: skipped: not a folder, a .c file or a .zip, .tar.gz, .tgz or .tar archive"),
              std::string::npos)
        << warnings;
    EXPECT_NE(warnings.find("alice.zip: another submission has the same name"), std::string::npos) << warnings;
    grade_submission_list_free(&l);
    EXPECT_EQ(grade_submissions_list((d + "/nope").c_str(), &l, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("nope"), std::string::npos);
}

TEST(Submissions, FolderAtTheExactPath) {
    std::string d = TempDir("exact");
    Spit(d + "/" + kLab, "int x;\n");
    Spit(d + "/labs/03_double_buffer/spec.c", "not taken");
    Fetched f = Fetch(d, GRADE_SUB_FOLDER);
    EXPECT_EQ(f.rc, 0);
    EXPECT_TRUE(f.found);
    EXPECT_EQ(f.data, "int x;\n");
    EXPECT_EQ(f.note, "");
}

TEST(Submissions, FolderBelowOneEnclosingFolder) {
    std::string d = TempDir("below");
    Spit(d + "/alice/" + kLab, "int y;\n");
    Fetched f = Fetch(d, GRADE_SUB_FOLDER);
    EXPECT_EQ(f.data, "int y;\n");
    EXPECT_EQ(f.note, "taken from alice/labs/03_double_buffer/lab.c");
}

TEST(Submissions, WrongPathsEmptyFoldersAndLinksSayWhatIsThere) {
    std::string d = TempDir("wrong");
    Spit(d + "/03_double_buffer/lab.c", "x");
    Fetched f = Fetch(d, GRADE_SUB_FOLDER);
    EXPECT_EQ(f.rc, 0);
    EXPECT_FALSE(f.found);
    EXPECT_EQ(f.missing,
              "no labs/03_double_buffer/lab.c in the submission; it has 03_double_buffer/lab.c: files must keep the "
              "repository's paths (labs/03_double_buffer/lab.c)");

    std::string e = TempDir("empty");
    EXPECT_EQ(Fetch(e, GRADE_SUB_FOLDER).missing, "no labs/03_double_buffer/lab.c: the submission is empty");

    std::string o = TempDir("other");
    Spit(o + "/README.md", "x");
    EXPECT_EQ(Fetch(o, GRADE_SUB_FOLDER).missing,
              "no labs/03_double_buffer/lab.c in the submission; it holds README.md (1 other file, none of them named "
              "lab.c)");

    // A link to a file elsewhere (the grader's secrets, say) is never followed.
    std::string l = TempDir("link");
    Spit(l + "/secret", "the instructor's solution");
    fs::create_directories(l + "/sub/labs/03_double_buffer");
    fs::create_symlink(l + "/secret", l + "/sub/" + kLab);
    f = Fetch(l + "/sub", GRADE_SUB_FOLDER);
    EXPECT_FALSE(f.found);
    EXPECT_NE(f.missing.find("the submission is empty (it holds only links or special files"), std::string::npos)
        << f.missing;
}

// One rule for the lab file's name (grade_lab_file_name), whichever way the file came.
TEST(Submissions, TheLabFilesNameButForCaseOrACopysMark) {
    for (const char *name : {"Lab.C", "LAB.c", "lab (1).c", "lab(2).c", "lab-1.c", "lab_2.c", "lab copy.c",
                             "lab - Copy.c", "lab copy 2.c", "Lab (12).C"})
        EXPECT_EQ(grade_lab_file_name(name, "lab.c"), 1) << name;
    EXPECT_EQ(grade_lab_file_name("lab.c", "lab.c"), 2);
    for (const char *name : {"lab.h", "lab.c.orig", "lab.cc", "slab.c", "lab2.c", "lab (x).c", "lab ().c", "my lab.c",
                             "lab.txt", "-1.c", "copy.c"})
        EXPECT_EQ(grade_lab_file_name(name, "lab.c"), 0) << name;

    // In its folder, a copy's name is taken, and the note says so.
    for (const char *name : {"Lab.C", "lab (1).c"}) {
        std::string d = TempDir(std::string("copyname") + (name[0] == 'L' ? "1" : "2"));
        Spit(d + "/labs/03_double_buffer/" + name, "int c;\n");
        Spit(d + "/labs/03_double_buffer/notes.txt", "x");
        Fetched f = Fetch(d, GRADE_SUB_FOLDER);
        EXPECT_TRUE(f.found) << name << ": " << f.missing;
        EXPECT_EQ(f.data, "int c;\n");
        EXPECT_EQ(f.note, std::string("taken from labs/03_double_buffer/") + name + " (name it lab.c next time)");
        // Gradescope mode (loose) takes it too, at the top of the upload.
        std::string g = TempDir(std::string("copyname_gs") + (name[0] == 'L' ? "1" : "2"));
        Spit(g + "/" + name, "int g;\n");
        Spit(g + "/README.md", "x");
        Fetched fg = Fetch(g, GRADE_SUB_FOLDER, true);
        EXPECT_EQ(fg.data, "int g;\n") << name << ": " << fg.missing;
    }
    // lab.c beside its copies is the one taken.
    std::string both = TempDir("copyname_both");
    Spit(both + "/" + kLab, "int real;\n");
    Spit(both + "/labs/03_double_buffer/lab (1).c", "int old;\n");
    EXPECT_EQ(Fetch(both, GRADE_SUB_FOLDER).data, "int real;\n");
    EXPECT_EQ(Fetch(both, GRADE_SUB_FOLDER, true).data, "int real;\n");
    // Two copies and no lab.c: neither is guessed, and both are named.
    std::string two = TempDir("copyname_two");
    Spit(two + "/labs/03_double_buffer/Lab.C", "int a;\n");
    Spit(two + "/labs/03_double_buffer/lab (1).c", "int b;\n");
    for (bool loose : {false, true}) {
        Fetched f = Fetch(two, GRADE_SUB_FOLDER, loose);
        EXPECT_FALSE(f.found);
        EXPECT_EQ(f.missing, "no labs/03_double_buffer/lab.c in the submission; it has labs/03_double_buffer/Lab.C and "
                             "labs/03_double_buffer/lab (1).c, 2 copies of it: keep one, named lab.c");
    }
    // Other files are named, not only counted.
    std::string other = TempDir("copyname_other");
    Spit(other + "/labs/03_double_buffer/solution.cpp", "x");
    Spit(other + "/labs/03_double_buffer/notes.md", "x");
    EXPECT_EQ(Fetch(other, GRADE_SUB_FOLDER).missing,
              "no labs/03_double_buffer/lab.c in the submission; it holds labs/03_double_buffer/notes.md and "
              "labs/03_double_buffer/solution.cpp (2 other files, none of them named lab.c)");
}

TEST(Submissions, AnOversizedFileIsNotALabFile) {
    std::string d = TempDir("big");
    Spit(d + "/" + kLab, std::string(GRADE_MAX_SOURCE_BYTES + 1, 'x'));
    Fetched f = Fetch(d, GRADE_SUB_FOLDER);
    EXPECT_FALSE(f.found);
    EXPECT_EQ(f.missing, "labs/03_double_buffer/lab.c is larger than 1024 KiB: not a lab file");
}

TEST(Submissions, GradescopeUploadsAreTakenByNameWhenAlone) {
    std::string d = TempDir("loose");
    Spit(d + "/lab.c", "int z;\n");
    EXPECT_FALSE(Fetch(d, GRADE_SUB_FOLDER, false).found);
    Fetched f = Fetch(d, GRADE_SUB_FOLDER, true);
    EXPECT_EQ(f.data, "int z;\n");
    EXPECT_EQ(f.note, "taken from lab.c");
    // Two candidates: neither is guessed.
    Spit(d + "/old/lab.c", "int w;\n");
    EXPECT_FALSE(Fetch(d, GRADE_SUB_FOLDER, true).found);
}

TEST(Archives, ZipAndTarGzWithOrWithoutAnEnclosingFolder) {
    std::string d = TempDir("archives");
    WriteArchive(d + "/a.zip", true, {{kLab, "int a;\n"}, {"notes.txt", "hi"}});
    WriteArchive(d + "/b.tar.gz", false, {{std::string("bob/") + kLab, "int b;\n"}});
    WriteArchive(d + "/c.zip", true, {{std::string("./") + kLab, "int c;\n"}});
    EXPECT_EQ(Fetch(d + "/a.zip", GRADE_SUB_ARCHIVE).data, "int a;\n");
    Fetched b = Fetch(d + "/b.tar.gz", GRADE_SUB_ARCHIVE);
    EXPECT_EQ(b.data, "int b;\n");
    EXPECT_EQ(b.note, "taken from bob/labs/03_double_buffer/lab.c");
    EXPECT_EQ(Fetch(d + "/c.zip", GRADE_SUB_ARCHIVE).data, "int c;\n");
}

TEST(Archives, PathsThatClimbOutAndLinksAreIgnored) {
    std::string d = TempDir("evil");
    WriteArchive(d + "/evil.tar.gz", false, {{std::string("../") + kLab, "climbs"}, {std::string("/") + kLab, "absolute"}},
                 {{kLab, "/etc/passwd"}});
    Fetched f = Fetch(d + "/evil.tar.gz", GRADE_SUB_ARCHIVE);
    EXPECT_EQ(f.rc, 0);
    EXPECT_FALSE(f.found) << f.data;
}

TEST(Archives, ABrokenArchiveIsReportedWithItsName) {
    std::string d = TempDir("broken");
    Spit(d + "/junk.zip", "PK\x03\x04 but nothing else");
    Fetched f = Fetch(d + "/junk.zip", GRADE_SUB_ARCHIVE);
    EXPECT_EQ(f.rc, -1);
    EXPECT_EQ(f.err.rfind("junk.zip: not a readable archive", 0), 0u) << f.err;
    Spit(d + "/empty.tar.gz", "");
    f = Fetch(d + "/empty.tar.gz", GRADE_SUB_ARCHIVE);
    EXPECT_NE(f.rc == -1 ? f.err : f.missing, "") << "an empty file is either unreadable or empty";
}

TEST(Archives, NamesAreRecognisedByExtension) {
    size_t stem = 0;
    EXPECT_TRUE(grade_archive_name("alice.tar.gz", &stem));
    EXPECT_EQ(stem, 5u);
    EXPECT_TRUE(grade_archive_name("bob.zip", &stem));
    EXPECT_EQ(stem, 3u);
    EXPECT_TRUE(grade_archive_name("c.tgz", nullptr));
    EXPECT_FALSE(grade_archive_name("notes.txt", nullptr));
    EXPECT_FALSE(grade_archive_name(".zip", nullptr));
}

}  // namespace
