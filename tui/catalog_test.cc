// tui/catalog_test.cc: labs/catalog.json as the picker reads it: good and broken catalogs,
// finding a lab by id, number or prefix, and the real catalog's launchers all being among
// the timeline's runfiles (BUILD lists them by hand; this says when one is missing).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

extern "C" {
#include "tui/catalog.h"
#include "tui/runfiles.h"
}

namespace {

const char *kTwo = R"({"labs":[
  {"id":"03_double_buffer","number":3,"title":"Double buffering","lab":"//labs:03_double_buffer",
   "reference":"//solutions:03_double_buffer","student_file":"labs/03_double_buffer/lab.c"},
  {"id":"04_priorities","number":4,"title":"Priorities","lab":"//labs:04_priorities",
   "reference":"//solutions:04_priorities"}]})";

TEST(Catalog, ReadsEveryEntry) {
    tui_catalog c;
    char err[256];
    ASSERT_EQ(tui_catalog_parse(kTwo, &c, err, sizeof(err)), 0) << err;
    ASSERT_EQ(c.n, 2u);
    EXPECT_STREQ(c.labs[0].id, "03_double_buffer");
    EXPECT_EQ(c.labs[0].number, 3);
    EXPECT_STREQ(c.labs[0].program[0], "labs/03_double_buffer_run");
    EXPECT_STREQ(c.labs[0].program[1], "solutions/03_double_buffer_run");
    EXPECT_STREQ(c.labs[0].student_file, "labs/03_double_buffer/lab.c");
    EXPECT_STREQ(c.labs[1].student_file, "");  // optional
    EXPECT_EQ(tui_catalog_find(&c, "03_double_buffer"), 0);
    EXPECT_EQ(tui_catalog_find(&c, "4"), 1);
    EXPECT_EQ(tui_catalog_find(&c, "04"), 1);
    EXPECT_EQ(tui_catalog_find(&c, "03_d"), 0);
    EXPECT_EQ(tui_catalog_find(&c, "0"), -1);  // a number: lab 0 does not exist
    EXPECT_EQ(tui_catalog_find(&c, "0_"), -1);
    EXPECT_EQ(tui_catalog_find(&c, "nope"), -1);
    tui_catalog_free(&c);
}

TEST(Catalog, AnAmbiguousPrefixIsSaidToBe) {
    tui_catalog c;
    char err[256];
    ASSERT_EQ(tui_catalog_parse(R"({"labs":[
      {"id":"05_a","number":5,"title":"a","lab":"//labs:05_a","reference":"//solutions:05_a"},
      {"id":"05_b","number":6,"title":"b","lab":"//labs:05_b","reference":"//solutions:05_b"}]})",
                                &c, err, sizeof(err)),
              0)
        << err;
    EXPECT_EQ(tui_catalog_find(&c, "05_"), -2);
    tui_catalog_free(&c);
}

TEST(Catalog, BrokenCatalogsAreRefusedWithAReason) {
    struct Case {
        const char *json, *reason;
    } cases[] = {
        {"not json", "not valid JSON"},
        {"{}", "no \"labs\" array"},
        {R"({"labs":[42]})", "is not an object"},
        {R"({"labs":[{"number":1,"title":"t","lab":"//a:b","reference":"//a:c"}]})", "has no \"id\""},
        {R"({"labs":[{"id":"x","title":"t","lab":"//a:b","reference":"//a:c"}]})", "has no \"number\""},
        {R"({"labs":[{"id":"x","number":1,"lab":"//a:b","reference":"//a:c"}]})", "has no \"title\""},
        {R"({"labs":[{"id":"x","number":1,"title":"t","reference":"//a:c"}]})", "has no \"lab\" label"},
        {R"({"labs":[{"id":"x","number":1,"title":"t","lab":"labs/x","reference":"//a:c"}]})",
         "\"lab\" that is not a //package:name label"},
        {R"({"labs":[{"id":"x","number":1,"title":"t","lab":"//../x:y","reference":"//a:c"}]})",
         "\"lab\" that is not"},
        {R"({"labs":[{"id":"x","number":1,"title":"t","lab":"//a:b","reference":"//a:c"},
                     {"id":"x","number":2,"title":"t","lab":"//a:b","reference":"//a:c"}]})",
         "repeats an id"},
        {R"({"labs":[{"id":"x","number":1,"title":"t","lab":"//a:b","reference":"//a:c",
                      "student_file":"../x/lab.c"}]})",
         "\"student_file\" that is not a path in the workspace"},
        {R"({"labs":[{"id":"x","number":1,"title":"t","lab":"//a:b","reference":"//a:c","student_file":3}]})",
         "\"student_file\" that is not"},
    };
    for (const Case &k : cases) {
        tui_catalog c;
        char err[256] = "";
        EXPECT_EQ(tui_catalog_parse(k.json, &c, err, sizeof(err)), -1) << k.json;
        EXPECT_NE(std::string(err).find(k.reason), std::string::npos) << err << " for " << k.json;
        EXPECT_EQ(c.n, 0u);
        EXPECT_EQ(c.labs, nullptr);
    }
}

TEST(Catalog, AMissingFileSaysWhich) {
    tui_catalog c;
    char err[512];
    EXPECT_EQ(tui_catalog_load("/nonexistent/catalog.json", &c, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("/nonexistent/catalog.json"), std::string::npos) << err;
}

TEST(Catalog, LabelsBecomeRunfilesPaths) {
    char out[64];
    EXPECT_EQ(tui_label_to_path("//labs:03_double_buffer", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "labs/03_double_buffer");
    EXPECT_EQ(tui_label_to_path("//a/b:c", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "a/b/c");
    EXPECT_EQ(tui_label_to_path(":c", out, sizeof(out)), -1);
    EXPECT_EQ(tui_label_to_path("//a:", out, sizeof(out)), -1);
    EXPECT_EQ(tui_label_to_path("//a:b:c", out, sizeof(out)), -1);
    EXPECT_EQ(tui_label_to_path("//a b:c", out, sizeof(out)), -1);
    EXPECT_EQ(tui_label_to_path("//labs:this_name_is_far_too_long_for_the_buffer_given_here_yes", out, 16), -1);
}

// Every lab in labs/catalog.json has both launchers among the timeline's runfiles.
TEST(Catalog, EveryCatalogEntryIsAmongTheRunfiles) {
    char root[4096];
    ASSERT_EQ(tui_runfiles_root(nullptr, "labs/catalog.json", root, sizeof(root)), 0) << root;
    char path[4300];
    ASSERT_EQ(tui_runfiles_path(root, "labs/catalog.json", path, sizeof(path)), 0);
    tui_catalog c;
    char err[512];
    ASSERT_EQ(tui_catalog_load(path, &c, err, sizeof(err)), 0) << err;
    ASSERT_GE(c.n, 1u);
    for (size_t i = 0; i < c.n; i++) {
        // The TUI tells when this file is newer than the build it runs.
        EXPECT_NE(c.labs[i].student_file[0], '\0') << c.labs[i].id << " names no student_file";
        for (int v = 0; v < 2; v++) {
            ASSERT_EQ(tui_runfiles_path(root, c.labs[i].program[v], path, sizeof(path)), 0);
            EXPECT_EQ(access(path, X_OK), 0) << c.labs[i].id << ": " << path
                                             << " is not among //tui's runfiles: add it to TUI_LABS in tui/BUILD";
        }
    }
    tui_catalog_free(&c);
}

}  // namespace
