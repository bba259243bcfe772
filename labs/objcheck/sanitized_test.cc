// labs/objcheck/sanitized_test.cc: objcheck's sanitizer mode (--sanitized, which
// labs/lab.bzl and the grader's kits use for --config=asan builds) accepts what ASan and
// UBSan add to a lab file and nothing more: the reference compiled with
// -fsanitize=address,undefined is refused without the mode (ASan's module constructor, its
// runtime's calls) and accepted with it; a constructor named and placed as ASan's module
// constructor that reads the environment is refused with it.
#include <gtest/gtest.h>

#include "labs/objcheck/objcheck_test_support.h"

namespace {

using objcheck_test::Check;
using objcheck_test::Objects;

std::string OneObject(const std::string &dir) {
    std::vector<std::string> objects = Objects(dir);
    return objects.size() == 1 ? objects[0] : "";
}

bool Says(const objcheck_test::Checked &c, const std::string &text) {
    for (const std::string &line : c.lines)
        if (line.find(text) != std::string::npos) return true;
    return false;
}

TEST(Sanitized, TheSanitizedReferenceIsAcceptedOnlyInSanitizerMode) {
    std::string object = OneObject("labs/objcheck/_objs/sanitized_reference");
    ASSERT_FALSE(object.empty());
    objcheck_test::Checked plain = Check(object, "solutions/03_double_buffer.c", false);
    EXPECT_EQ(plain.rc, 1);
    EXPECT_TRUE(Says(plain, "not accepted: calls __asan_init")) << ::testing::PrintToString(plain.lines);
    EXPECT_TRUE(Says(plain, "is a constructor (.init_array.00099)")) << ::testing::PrintToString(plain.lines);
    objcheck_test::Checked sanitized = Check(object, "solutions/03_double_buffer.c", true);
    EXPECT_EQ(sanitized.rc, 0) << ::testing::PrintToString(sanitized.lines);
    EXPECT_TRUE(sanitized.lines.empty());
}

TEST(Sanitized, AConstructorDressedAsTheSanitizersIsStillRefused) {
    std::string object = OneObject("labs/objcheck/_objs/sanitized_fake_module_ctor");
    ASSERT_FALSE(object.empty());
    objcheck_test::Checked c = Check(object, "labs/objcheck/testdata/fake_module_ctor.c", true);
    EXPECT_EQ(c.rc, 1);
    EXPECT_TRUE(Says(c, "fake_module_ctor.c:10: not accepted: _sub_I_00099_7 is a constructor (.init_array.00099)"))
        << ::testing::PrintToString(c.lines);
    EXPECT_TRUE(Says(c, "fake_module_ctor.c:10: not accepted: calls getenv")) << ::testing::PrintToString(c.lines);
}

}  // namespace
