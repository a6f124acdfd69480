//===- MappedFileTest.cpp - mapped files changed under a run --------------===//
#include "TempDir.h"

#include "mt/Data/Files.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace mt {
namespace {

TEST(MappedFile, TruncatedUnderTheMappingEndsWithAnErrorNamingTheFile) {
  testing::TempDir dir;
  std::string path = dir.write("data.bin", std::string(3 * 4096, 'x'));
  EXPECT_EXIT(
      {
        MappedFile file;
        std::string error;
        if (!file.open(path, error))
          _exit(2);
        if (truncate(path.c_str(), 0) != 0)
          _exit(3);
        volatile char c = file.bytes()[8192 + 5]; // a page the truncation took
        (void)c;
        _exit(0);
      },
      ::testing::ExitedWithCode(1),
      "data.bin' was truncated while it was being read \\(byte 8197 of the 12288 it had is "
      "gone\\)");
}

TEST(MappedFile, RewrittenInPlaceIsReportedRemovedIsNot) {
  testing::TempDir dir;
  std::string kept = dir.write("kept.bin", "abcdefgh");
  std::string gone = dir.write("gone.bin", "abcdefgh");
  MappedFile a, b;
  std::string error;
  ASSERT_TRUE(a.open(kept, error)) << error;
  ASSERT_TRUE(b.open(gone, error)) << error;
  EXPECT_TRUE(mappedFilesUnchanged(error)) << error;
  ASSERT_EQ(unlink(gone.c_str()), 0);
  EXPECT_TRUE(mappedFilesUnchanged(error)) << error; // the mapping keeps it
  EXPECT_EQ(b.bytes(), "abcdefgh");
  dir.write("kept.bin", "abcdefghij"); // rewritten in place (same inode)
  EXPECT_FALSE(mappedFilesUnchanged(error));
  EXPECT_NE(
      error.find("kept.bin' was modified while the run read it (8 bytes when opened, 10 now)"),
      std::string::npos)
      << error;
}

} // namespace
} // namespace mt
