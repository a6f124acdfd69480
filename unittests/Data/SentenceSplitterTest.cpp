//===- SentenceSplitterTest.cpp - mt-data --split-sentences ----------------===//
#include "mt/Data/SentenceSplitter.h"

#include <gtest/gtest.h>

using namespace mt;
using Sentences = std::vector<std::string_view>;

TEST(SentenceSplitter, EndsAtTerminalsBeforeACapital) {
  EXPECT_EQ(splitSentences("One here. Two there! Three? Four"),
            (Sentences{"One here.", "Two there!", "Three?", "Four"}));
  EXPECT_EQ(splitSentences("  Trimmed.   Also trimmed.  "),
            (Sentences{"Trimmed.", "Also trimmed."}));
}

TEST(SentenceSplitter, KeepsClosingMarksWithTheSentence) {
  EXPECT_EQ(splitSentences("He said \"stop.\" Then (quietly.) She left..."),
            (Sentences{"He said \"stop.\"", "Then (quietly.)", "She left..."}));
}

TEST(SentenceSplitter, DoesNotSplitAbbreviationsInitialsOrLowerCase) {
  EXPECT_EQ(splitSentences("Dr. Smith met J. R. R. Tolkien, e.g. in the U.S. Then he left."),
            (Sentences{"Dr. Smith met J. R. R. Tolkien, e.g. in the U.S. Then he left."}));
  EXPECT_EQ(splitSentences("version 3.0 is out. it is lower case."),
            (Sentences{"version 3.0 is out. it is lower case."}));
}

TEST(SentenceSplitter, BlankLinesEndSentences) {
  EXPECT_EQ(splitSentences("A heading\n\nText follows\non two lines."),
            (Sentences{"A heading", "Text follows\non two lines."}));
}

TEST(SentenceSplitter, EmptyAndSpaceOnly) {
  EXPECT_TRUE(splitSentences("").empty());
  EXPECT_TRUE(splitSentences(" \n\n\t ").empty());
}
