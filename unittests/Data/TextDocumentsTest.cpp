//===- TextDocumentsTest.cpp - paragraphs and lines -------------------------===//
#include "mt/Data/TextDocuments.h"

#include "mt/Data/Gpt2Tokenizer.h"

#include "TempDir.h"

#include <gtest/gtest.h>

using namespace mt;

namespace {

std::vector<std::pair<int64_t, std::string>> paragraphs(const std::string &content) {
  mt::testing::TempDir dir;
  ParagraphReader reader;
  std::string error;
  EXPECT_TRUE(reader.open(dir.write("in.txt", content), error)) << error;
  std::vector<std::pair<int64_t, std::string>> out;
  std::string text;
  int64_t line;
  while (reader.next(text, line, error))
    out.emplace_back(line, text);
  EXPECT_EQ(error, "");
  return out;
}

using Paragraphs = std::vector<std::pair<int64_t, std::string>>;

TEST(TextDocuments, ParagraphsAreSeparatedByBlankLines) {
  EXPECT_EQ(paragraphs("one\ntwo\n\nthree\n"), (Paragraphs{{1, "one\ntwo"}, {4, "three"}}));
  EXPECT_EQ(paragraphs("\n\n  a\n \t \n\n b\nc"), (Paragraphs{{3, "  a"}, {6, " b\nc"}}));
  EXPECT_EQ(paragraphs("crlf\r\nlines\r\n\r\nnext\r\n"),
            (Paragraphs{{1, "crlf\nlines"}, {4, "next"}}));
  EXPECT_TRUE(paragraphs("").empty());
  EXPECT_TRUE(paragraphs("\n \n\t\n").empty());
}

TEST(TextDocuments, InvalidUtf8HasALineAndColumn) {
  mt::testing::TempDir dir;
  ParagraphReader reader;
  std::string error, text;
  int64_t line;
  ASSERT_TRUE(reader.open(dir.write("bad.txt", "fine\n\nok \xC3\x28 no\n"), error));
  ASSERT_TRUE(reader.next(text, line, error));
  EXPECT_FALSE(reader.next(text, line, error));
  EXPECT_EQ(error, "invalid UTF-8");
  EXPECT_EQ(reader.errorLine(), 3);
  EXPECT_EQ(reader.errorColumn(), 4u);
}

TEST(TextDocuments, LinesKeepNulsAndNeedNoFinalNewline) {
  mt::testing::TempDir dir;
  LineReader reader;
  std::string error, line;
  ASSERT_TRUE(reader.open(dir.write("l.jsonl", std::string("a\0b\nlast", 8)), error));
  ASSERT_TRUE(reader.next(line, error));
  EXPECT_EQ(line, std::string("a\0b", 3));
  ASSERT_TRUE(reader.next(line, error));
  EXPECT_EQ(line, "last");
  EXPECT_EQ(reader.lineNumber(), 2);
  EXPECT_FALSE(reader.next(line, error));
  EXPECT_EQ(error, "");
  LineReader missing;
  EXPECT_FALSE(missing.open(dir.file("none"), error));
  EXPECT_EQ(error, "cannot open '" + dir.file("none") + "': No such file or directory");
}

TEST(TextDocuments, TokenizeTextFileEndsEachDocumentWithEod) {
  Gpt2Tokenizer tokenizer;
  std::string error;
  ASSERT_TRUE(tokenizer.loadFromDirectory(MT_GPT2_DATA_DIR, error)) << error;
  mt::testing::TempDir dir;
  std::vector<std::vector<int32_t>> documents;
  ASSERT_TRUE(tokenizeTextFile(dir.write("t.txt", "Hello world\n\nHello world\n"), tokenizer,
                               documents, error))
      << error;
  EXPECT_EQ(documents,
            (std::vector<std::vector<int32_t>>{{15496, 995, 50256}, {15496, 995, 50256}}));
  EXPECT_FALSE(tokenizeTextFile(dir.write("b.txt", "x\n\xFF\n"), tokenizer, documents, error));
  EXPECT_EQ(error, dir.file("b.txt") + ":2:1: invalid UTF-8");
}

} // namespace
