//===- Gpt2TokenizerTest.cpp - GPT-2 BPE: ids, round trips, loading --------===//
#include "mt/Data/Gpt2Tokenizer.h"

#include "TempDir.h"

#include <gtest/gtest.h>

using namespace mt;
using Ids = std::vector<int32_t>;

namespace {

const Gpt2Tokenizer &tokenizer() {
  static Gpt2Tokenizer *loaded = [] {
    auto *t = new Gpt2Tokenizer();
    std::string error;
    if (!t->loadFromDirectory(MT_GPT2_DATA_DIR, error))
      ADD_FAILURE() << error;
    return t;
  }();
  return *loaded;
}

std::string roundTrip(const std::string &text) {
  std::string bytes, error;
  EXPECT_TRUE(tokenizer().decodeBytes(tokenizer().encode(text), bytes, error)) << error;
  return bytes;
}

// Expected ids come from OpenAI's algorithm (Python, `regex` module) and,
// where noted, agree with the gpt-3-encoder npm package.
TEST(Gpt2Tokenizer, KnownIds) {
  EXPECT_EQ(tokenizer().encode("Hello world"), (Ids{15496, 995}));
  EXPECT_EQ(tokenizer().encode("I'm here, they'll've"), (Ids{40, 1101, 994, 11, 484, 1183, 1053}));
  EXPECT_EQ(tokenizer().encode("  hi"), (Ids{220, 23105}));
  EXPECT_EQ(tokenizer().encode("x  \n y"), (Ids{87, 220, 220, 198, 331}));
  EXPECT_EQ(tokenizer().encode("1234 56.7"), (Ids{1065, 2682, 7265, 13, 22}));
  EXPECT_EQ(tokenizer().encode("日本語のテキスト"),
            (Ids{33768, 98, 17312, 105, 45739, 252, 5641, 24336, 25084, 43302}));
  EXPECT_EQ(tokenizer().encode("emoji😀!"), (Ids{368, 31370, 47249, 222, 0}));
  EXPECT_TRUE(tokenizer().encode("").empty());
}

TEST(Gpt2Tokenizer, EndOfTextIsNotProducedFromText) {
  EXPECT_EQ(tokenizer().endOfText(), 50256);
  EXPECT_EQ(tokenizer().tokenString(50256), "<|endoftext|>");
  EXPECT_EQ(tokenizer().encode("<|endoftext|>"), (Ids{27, 91, 437, 1659, 5239, 91, 29}));
}

// U+0085 and U+FEFF are where GPT-2 (Python's \s is White_Space) and the
// gpt-3-encoder package (JavaScript's \s) disagree; mtc follows GPT-2,
// which is what Megatron runs. The package gives [126, 227, 6, 67],
// [1587, 227, 66, 13] and [220, 171, 119, 123, 0].
TEST(Gpt2Tokenizer, FollowsPythonWhiteSpaceWhereJavaScriptDiffers) {
  EXPECT_EQ(tokenizer().encode("\u0085'd"), (Ids{126, 227, 1549}));
  EXPECT_EQ(tokenizer().encode(" \u0085c."), (Ids{220, 126, 227, 66, 13}));
  EXPECT_EQ(tokenizer().encode(" \ufeff!"), (Ids{27332, 119, 123, 0}));
}

TEST(Gpt2Tokenizer, RoundTripsAnyBytes) {
  for (std::string text :
       {std::string("The quick brown fox jumps over the lazy dog."), std::string("  \n\n\t x"),
        std::string("Ελληνικά, русский, 中文, 한국어 and emoji 👍🏽"),
        std::string("invalid \xFF\xFE and cut \xE2\x82"), std::string("\0nul\0", 5)})
    EXPECT_EQ(roundTrip(text), text);
  std::string all;
  for (int b = 0; b < 256; ++b)
    all += static_cast<char>(b);
  EXPECT_EQ(roundTrip(all), all);
}

TEST(Gpt2Tokenizer, DecodeReplacesInvalidUtf8LikeGpt2) {
  // 447 and 247 are the two halves of "’" (E2 80 99); one alone is cut short.
  std::string text, error;
  ASSERT_TRUE(tokenizer().decode({464, 447, 247}, text, error)) << error;
  EXPECT_EQ(text, "The\xE2\x80\x99");
  ASSERT_TRUE(tokenizer().decode({464, 447}, text, error)) << error;
  EXPECT_EQ(text, "The\xEF\xBF\xBD");
}

TEST(Gpt2Tokenizer, DecodeRejectsIdsOutsideTheVocabulary) {
  std::string text, error;
  EXPECT_FALSE(tokenizer().decode({15496, 50257}, text, error));
  EXPECT_EQ(error, "token id 50257 (at position 1) is outside the vocabulary of 50257");
  EXPECT_FALSE(tokenizer().decode({-1}, text, error));
}

TEST(Gpt2Tokenizer, CacheGivesTheSameIds) {
  BpeCache cache;
  std::string text = "the cat and the hat and the bat; the the the";
  Ids first = tokenizer().encode(text, &cache);
  EXPECT_EQ(tokenizer().encode(text, &cache), first);
  EXPECT_EQ(tokenizer().encode(text), first);
}

TEST(Gpt2Tokenizer, DefaultDirectoryIsBesideTheExecutable) {
  EXPECT_EQ(Gpt2Tokenizer::defaultDirectoryFor("/opt/mt/build/bin/mt-data"),
            "/opt/mt/build/share/mt/gpt2");
}

//===----------------------------------------------------------------------===//
// Loading checks the files.
//===----------------------------------------------------------------------===//

class Gpt2TokenizerLoading : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(readFile(std::string(MT_GPT2_DATA_DIR) + "/encoder.json", vocab_, error));
    ASSERT_TRUE(readFile(std::string(MT_GPT2_DATA_DIR) + "/vocab.bpe", merges_, error));
  }
  /// Loads the given texts; returns the error ("" when it loads).
  std::string load(const std::string &vocab, const std::string &merges) {
    std::string vocabPath = dir_.write("encoder.json", vocab);
    std::string mergesPath = dir_.write("vocab.bpe", merges);
    Gpt2Tokenizer t;
    std::string error;
    if (t.load(vocabPath, mergesPath, error))
      return "";
    // Paths vary; the message after them does not.
    size_t at = error.find(dir_.file(""));
    if (at != std::string::npos)
      error.erase(at, dir_.file("").size());
    return error;
  }
  static bool readFile(const std::string &path, std::string &out, std::string &error) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return false;
    out.assign(std::istreambuf_iterator<char>(in), {});
    return true;
  }
  static std::string replaceOnce(std::string s, const std::string &from, const std::string &to) {
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  }

  mt::testing::TempDir dir_;
  std::string vocab_, merges_;
};

TEST_F(Gpt2TokenizerLoading, TheShippedFilesLoad) { EXPECT_EQ(load(vocab_, merges_), ""); }

TEST_F(Gpt2TokenizerLoading, MissingFile) {
  Gpt2Tokenizer t;
  std::string error;
  EXPECT_FALSE(t.loadFromDirectory(dir_.file("nowhere"), error));
  EXPECT_EQ(error,
            "cannot open '" + dir_.file("nowhere") + "/encoder.json': No such file or directory");
}

TEST_F(Gpt2TokenizerLoading, MalformedJson) {
  EXPECT_EQ(load(vocab_.substr(0, 100), merges_),
            "encoder.json: malformed JSON: column 101: expected a string key, found end of input");
  EXPECT_EQ(load(replaceOnce(vocab_, "\"!\": 0", "\"!\": zero"), merges_),
            "encoder.json: malformed JSON: column 7: expected an integer, found 'z'");
  EXPECT_EQ(load("[1, 2]", merges_),
            "encoder.json: malformed JSON: column 1: expected '{' (a JSON object), found '['");
}

TEST_F(Gpt2TokenizerLoading, WrongVocabulary) {
  EXPECT_EQ(load(replaceOnce(vocab_, "\"!\": 0, ", ""), merges_),
            "encoder.json: has 50256 tokens; GPT-2's vocabulary has 50257");
  EXPECT_EQ(load(replaceOnce(vocab_, "\"!\": 0", "\"!\": 1"), merges_),
            "encoder.json: id 1 is given to both \"!\" and \"\\\"\"");
  EXPECT_EQ(
      load(replaceOnce(vocab_, "\"<|endoftext|>\": 50256", "\"<|endoftext|>\": 50257"), merges_),
      "encoder.json: token \"<|endoftext|>\" has id 50257, outside GPT-2's vocabulary of 50257");
}

TEST_F(Gpt2TokenizerLoading, WrongMergeCount) {
  std::string fewer = merges_.substr(0, merges_.rfind('\n', merges_.size() - 2) + 1);
  EXPECT_EQ(load(vocab_, fewer), "vocab.bpe: has 49999 merges; GPT-2 has 50000");
  EXPECT_EQ(load(vocab_, merges_ + merges_.substr(merges_.find('\n') + 1)),
            "vocab.bpe:50002: the merge \"Ġ t\" is listed twice");
}

TEST_F(Gpt2TokenizerLoading, MalformedMerges) {
  EXPECT_EQ(load(vocab_, merges_.substr(merges_.find('\n') + 1)),
            "vocab.bpe:1: expected a '#version' header line");
  EXPECT_EQ(load(vocab_, merges_.substr(0, merges_.size() - 1)),
            "vocab.bpe: does not end with a newline (a cut-off file?)");
  EXPECT_EQ(load(vocab_, replaceOnce(merges_, "\nĠ t\n", "\nĠt\n")),
            "vocab.bpe:2: expected two tokens separated by a space, found 1");
  EXPECT_EQ(load(vocab_, replaceOnce(merges_, "\nĠ t\n", "\nĠ qqqqzz\n")),
            "vocab.bpe:2: token \"qqqqzz\" is not in the vocabulary");
}

} // namespace
