//===- WordPieceTokenizerTest.cpp - BERT's WordPiece: ids, text, loading ---===//
#include "mt/Data/WordPieceTokenizer.h"

#include "TempDir.h"

#include <gtest/gtest.h>

using namespace mt;
using Ids = std::vector<int32_t>;
using Tokens = std::vector<std::string>;

namespace {

const char *const kSpecials = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";

/// A tokenizer over kSpecials followed by `tokens`, one per line.
WordPieceTokenizer make(const Tokens &tokens, bool lowerCase) {
  mt::testing::TempDir dir;
  std::string vocab = kSpecials;
  for (const std::string &token : tokens)
    vocab += token + "\n";
  WordPieceTokenizer tokenizer;
  std::string error;
  EXPECT_TRUE(tokenizer.load(dir.write("vocab.txt", vocab), lowerCase, error)) << error;
  return tokenizer;
}

Tokens tokens(const WordPieceTokenizer &tokenizer, std::string_view text) {
  Ids ids;
  tokenizer.encodeInto(text, ids);
  Tokens out;
  for (int32_t id : ids)
    out.push_back(tokenizer.tokenString(id));
  return out;
}

std::string loadError(const std::string &vocab) {
  mt::testing::TempDir dir;
  WordPieceTokenizer tokenizer;
  std::string error;
  EXPECT_FALSE(tokenizer.load(dir.write("vocab.txt", vocab), true, error));
  EXPECT_FALSE(tokenizer.loaded());
  return error;
}

// The expectations below are what Google's tokenization.py (and so
// Megatron's BertWordPieceLowerCase / BertWordPieceCase) gives.

// tokenization_test.py's test_wordpiece_tokenizer.
TEST(WordPieceTokenizer, GreedyLongestMatchFirst) {
  WordPieceTokenizer t =
      make({"want", "##want", "##ed", "wa", "un", "runn", "##ing", ","}, /*lowerCase=*/false);
  Ids ids;
  t.encodeInto("unwanted running", ids);
  EXPECT_EQ(ids, (Ids{9, 6, 7, 10, 11}));
  EXPECT_EQ(tokens(t, "unwanted running"), (Tokens{"un", "##want", "##ed", "runn", "##ing"}));
  EXPECT_EQ(tokens(t, "unwantedX running"), (Tokens{"[UNK]", "runn", "##ing"}));
  EXPECT_EQ(tokens(t, "wa want wan"), (Tokens{"wa", "want", "[UNK]"}));
  EXPECT_TRUE(tokens(t, "").empty());
  EXPECT_TRUE(tokens(t, " \t\n ").empty());
  ids = {42};
  t.encodeInto("running", ids); // appends
  EXPECT_EQ(ids, (Ids{42, 10, 11}));
}

TEST(WordPieceTokenizer, SpecialIdsAndContinuations) {
  WordPieceTokenizer t = make({"want", "##want"}, true);
  EXPECT_TRUE(t.loaded());
  EXPECT_TRUE(t.lowerCase());
  EXPECT_EQ(t.vocabSize(), 7);
  EXPECT_EQ(t.pad(), 0);
  EXPECT_EQ(t.unk(), 1);
  EXPECT_EQ(t.cls(), 2);
  EXPECT_EQ(t.sep(), 3);
  EXPECT_EQ(t.mask(), 4);
  EXPECT_FALSE(t.isContinuation(5));
  EXPECT_TRUE(t.isContinuation(6));
  EXPECT_FALSE(t.isContinuation(7));
  EXPECT_FALSE(t.isContinuation(-1));
  // Special tokens are not recognised in text, as in BERT.
  EXPECT_EQ(tokens(t, "[MASK]"), (Tokens{"[UNK]", "[UNK]", "[UNK]"}));
}

// test_basic_tokenizer_lower and test_basic_tokenizer_no_lower.
TEST(WordPieceTokenizer, LowerCasingAndWhiteSpace) {
  Tokens vocab{"hello", "!", "how", "are", "you", "?", "HeLLo", "Are", "yoU"};
  const char *text = " \tHeLLo!how  \n Are yoU?  ";
  EXPECT_EQ(tokens(make(vocab, true), text), (Tokens{"hello", "!", "how", "are", "you", "?"}));
  EXPECT_EQ(tokens(make(vocab, false), text), (Tokens{"HeLLo", "!", "how", "Are", "yoU", "?"}));
}

TEST(WordPieceTokenizer, AccentsAreStrippedOnlyWhenLowerCasing) {
  Tokens vocab{"hello",    "Héllo", "nandu", "straße", "æsir",
               "istanbul", "cafe",  "αλφα",  "οδος",   "σας",
               "иод",      "ежик",  "viet",  "か",     "\u1112\u1161\u11AB"};
  WordPieceTokenizer lower = make(vocab, true), cased = make(vocab, false);
  EXPECT_EQ(tokens(lower, "Héllo"), (Tokens{"hello"}));
  EXPECT_EQ(tokens(cased, "Héllo"), (Tokens{"Héllo"}));
  EXPECT_EQ(tokens(cased, "hello"), (Tokens{"hello"}));
  // ñ ú -> n u; ß and æ have no decomposition; İ lower-cases to i + U+0307.
  EXPECT_EQ(tokens(lower, "ÑANDÚ Straße ÆSIR İSTANBUL"),
            (Tokens{"nandu", "straße", "æsir", "istanbul"}));
  EXPECT_EQ(tokens(lower, "cafe\u0301 CAFÉ"), (Tokens{"cafe", "cafe"})); // combining acute
  // Greek (tonos, final sigma), Cyrillic (й -> и, ё -> е), Vietnamese.
  EXPECT_EQ(tokens(lower, "Άλφα ΟΔΟΣ ΣΑΣ Йод Ёжик Việt"),
            (Tokens{"αλφα", "οδος", "σας", "иод", "ежик", "viet"}));
  EXPECT_EQ(tokens(lower, "ΟΔΟΣ"), tokens(lower, "οδος"));
  EXPECT_NE(tokens(lower, "ΟΔΟΣ"), tokens(lower, "οδοσ"));
  // NFD splits kana voicing marks and Hangul syllables too.
  EXPECT_EQ(tokens(lower, "が 한"), (Tokens{"か", "\u1112\u1161\u11AB"}));
  EXPECT_EQ(tokens(cased, "が 한"), (Tokens{"[UNK]", "[UNK]"}));
}

// test_chinese: each CJK ideograph is a word, lower-cased or not.
TEST(WordPieceTokenizer, CjkIdeographsAreWords) {
  Tokens vocab{"ah", "博", "推", "zz", "##zz", "かな", "한국"};
  for (bool lowerCase : {true, false}) {
    WordPieceTokenizer t = make(vocab, lowerCase);
    EXPECT_EQ(tokens(t, "ah\u535A\u63A8zz"), (Tokens{"ah", "博", "推", "zz"}));
    EXPECT_EQ(tokens(t, "博博"), (Tokens{"博", "博"}));
    // Kana is not split; CJK Extension B is.
    EXPECT_EQ(tokens(t, "かな"), (Tokens{"かな"}));
    EXPECT_EQ(tokens(t, "zz\U00020000zz"), (Tokens{"zz", "[UNK]", "zz"}));
  }
  EXPECT_EQ(tokens(make(vocab, false), "한국"), (Tokens{"한국"})); // nor is Hangul
}

// _run_split_on_punc: ASCII non-alphanumerics and Unicode P* stand alone.
TEST(WordPieceTokenizer, PunctuationIsSplitOff) {
  Tokens vocab{"a", "b", "5", "3",   "8",  ",",  ".",  "!",  "$", "+",   "=", "-", "—",
               "«", "»", "¿", "que", "？", "。", "、", "5€", "#", "##b", "…", "x"};
  WordPieceTokenizer t = make(vocab, true);
  EXPECT_EQ(tokens(t, "a,b.a!"), (Tokens{"a", ",", "b", ".", "a", "!"}));
  // BERT counts every non-alphanumeric printable ASCII character.
  EXPECT_EQ(tokens(t, "$5+3=8"), (Tokens{"$", "5", "+", "3", "=", "8"}));
  EXPECT_EQ(tokens(t, "a-b"), (Tokens{"a", "-", "b"}));
  EXPECT_EQ(tokens(t, "a#b"), (Tokens{"a", "#", "b"}));
  EXPECT_EQ(tokens(t, "a—b…x"), (Tokens{"a", "—", "b", "…", "x"}));
  EXPECT_EQ(tokens(t, "«a» ¿QUÉ？"), (Tokens{"«", "a", "»", "¿", "que", "？"}));
  EXPECT_EQ(tokens(t, "a、b。"), (Tokens{"a", "、", "b", "。"}));
  // Symbols outside ASCII (here €, category Sc) are not punctuation.
  EXPECT_EQ(tokens(t, "5€"), (Tokens{"5€"}));
}

// _clean_text: NUL, U+FFFD and control characters vanish without splitting
// the word; white space separates words.
TEST(WordPieceTokenizer, CleaningDropsControlsAndInvalidBytes) {
  WordPieceTokenizer t = make({"ab", "a", "b"}, false);
  EXPECT_EQ(tokens(t, std::string("a\0b", 3)), (Tokens{"ab"}));
  EXPECT_EQ(tokens(t, "a\x01"
                      "b a\x7F"
                      "b a\xC2\x85"
                      "b"),
            (Tokens{"ab", "ab", "ab"}));
  EXPECT_EQ(tokens(t, "a\u200Bb a\u00ADb a\uFEFFb"), (Tokens{"ab", "ab", "ab"})); // Cf
  EXPECT_EQ(tokens(t, "a\uFFFDb a\xFF"
                      "b a\xE2\x82"
                      "b"),
            (Tokens{"ab", "ab", "ab"}));
  // \v and \f are controls to BERT (category Cc), so dropped, not spaces.
  EXPECT_EQ(tokens(t, "a\vb a\fb"), (Tokens{"ab", "ab"}));
  EXPECT_EQ(tokens(t, "a\tb\na\rb"), (Tokens{"a", "b", "a", "b"}));
  EXPECT_EQ(tokens(t, "a\u00A0b\u3000a\u2003b\u2028a\u202Fb"),
            (Tokens{"a", "b", "a", "b", "a", "b"}));
}

TEST(WordPieceTokenizer, LongWordsAreUnknown) {
  WordPieceTokenizer t = make({"a", "##a"}, true);
  Tokens hundred = tokens(t, std::string(100, 'a'));
  ASSERT_EQ(hundred.size(), 100u);
  EXPECT_EQ(hundred.front(), "a");
  EXPECT_EQ(hundred.back(), "##a");
  EXPECT_EQ(tokens(t, std::string(101, 'a')), (Tokens{"[UNK]"}));
  // The limit counts code points after basic tokenization, not bytes.
  std::string accented;
  for (int i = 0; i < 100; ++i)
    accented += "á";
  EXPECT_EQ(tokens(t, accented).size(), 100u);
  EXPECT_EQ(tokens(t, accented + "á"), (Tokens{"[UNK]"}));
  EXPECT_EQ(tokens(t, std::string(101, 'a') + ",a"), (Tokens{"[UNK]", "[UNK]", "a"}));
}

TEST(WordPieceTokenizer, DecodeGluesContinuations) {
  WordPieceTokenizer t = make({"want", "##want", "##ed", "wa", "un", "runn", "##ing", ","}, false);
  std::string text, error;
  Ids ids;
  t.encodeInto("unwanted, running", ids);
  ASSERT_TRUE(t.decode(ids, text, error)) << error;
  EXPECT_EQ(text, "unwanted , running");
  ASSERT_TRUE(t.decode({7, 5, 2, 6}, text, error)) << error;
  EXPECT_EQ(text, "##ed want [CLS]want"); // a first "##" token keeps its "##"
  ASSERT_TRUE(t.decode({}, text, error));
  EXPECT_EQ(text, "");
  EXPECT_FALSE(t.decode({5, 13}, text, error));
  EXPECT_NE(error.find("13"), std::string::npos) << error;
  EXPECT_FALSE(t.decode({-1}, text, error));
}

TEST(WordPieceTokenizer, LoadAcceptsCrLfAndAMissingLastNewline) {
  mt::testing::TempDir dir;
  WordPieceTokenizer t;
  std::string error;
  ASSERT_TRUE(
      t.load(dir.write("v.txt", "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhi"), false, error))
      << error;
  EXPECT_EQ(t.vocabSize(), 6);
  EXPECT_FALSE(t.lowerCase());
  EXPECT_EQ(t.tokenString(4), "[MASK]");
  EXPECT_EQ(tokens(t, "hi"), (Tokens{"hi"}));
  // The ids are line numbers, whatever the order.
  ASSERT_TRUE(t.load(dir.write("w.txt", "x\n[MASK]\n[SEP]\n[CLS]\n[UNK]\n[PAD]\n"), true, error));
  EXPECT_EQ(t.pad(), 5);
  EXPECT_EQ(t.mask(), 1);
  EXPECT_EQ(tokens(t, "X"), (Tokens{"x"}));
}

TEST(WordPieceTokenizer, LoadErrorsArePrecise) {
  mt::testing::TempDir dir;
  WordPieceTokenizer t;
  std::string error;
  EXPECT_FALSE(t.load(dir.file("absent.txt"), true, error));
  EXPECT_NE(error.find("absent.txt"), std::string::npos) << error;

  error = loadError(std::string(kSpecials) + "a\n\nb\n");
  EXPECT_NE(error.find("vocab.txt:7: empty line"), std::string::npos) << error;
  error = loadError(std::string(kSpecials) + "a\n\n");
  EXPECT_NE(error.find("vocab.txt:7: empty line"), std::string::npos) << error;
  error = loadError(std::string(kSpecials) + "a\nb\na\n");
  EXPECT_NE(error.find("vocab.txt:8: token \"a\" is already on line 6"), std::string::npos)
      << error;
  error = loadError("[PAD]\n[UNK]\n[CLS]\n[SEP]\na\n");
  EXPECT_NE(error.find("vocab.txt: no [MASK] token"), std::string::npos) << error;
  error = loadError("");
  EXPECT_NE(error.find("no [PAD] token"), std::string::npos) << error;
  error = loadError(std::string(kSpecials) + "a\xFF\n");
  EXPECT_NE(error.find("vocab.txt:6: the token is not valid UTF-8"), std::string::npos) << error;

  // A failed load leaves nothing behind, even after a good one.
  ASSERT_TRUE(t.load(dir.write("good.txt", kSpecials), true, error)) << error;
  EXPECT_FALSE(t.load(dir.write("bad.txt", "[PAD]\n"), true, error));
  EXPECT_FALSE(t.loaded());
  EXPECT_EQ(t.vocabSize(), 0);
  Ids ids;
  t.encodeInto("text", ids);
  EXPECT_TRUE(ids.empty());
}

} // namespace
