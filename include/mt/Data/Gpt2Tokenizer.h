//===- Gpt2Tokenizer.h - GPT-2's byte-level BPE ----------------*- C++ -*-===//
//
// Text -> token ids and back, exactly as OpenAI's GPT-2 encoder (and so
// Megatron-LM's GPT2BPETokenizer and the gpt-3-encoder npm package):
//   1. split the text with GPT-2's regex (Gpt2PreTokenizer.h);
//   2. map each piece's UTF-8 bytes to byte tokens (GPT-2's byte -> unicode
//      table, which is what encoder.json's single-character keys spell);
//   3. apply the BPE merges, lowest rank first, until none applies.
// `<|endoftext|>` (id 50256) is the end-of-document token; encode() never
// produces it from text, as in GPT-2, where that string splits like any other.
//
// The vocabulary and merges are data (data/gpt2/, installed to
// build/share/mt/gpt2/); load() checks them and says precisely what is wrong.
// A loaded tokenizer is read-only, so threads may share it; each thread
// passes its own BpeCache.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_GPT2TOKENIZER_H
#define MT_DATA_GPT2TOKENIZER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mt {

/// Remembers the tokens of pieces already seen. Not thread-safe: one per thread.
class BpeCache {
public:
  /// Pieces longer than this are not remembered (they are rare and would
  /// make the cache's memory unbounded).
  static constexpr size_t kMaxPieceBytes = 256;
  /// The cache starts over when it holds this many pieces.
  static constexpr size_t kMaxEntries = 1 << 18;

private:
  friend class Gpt2Tokenizer;
  std::unordered_map<std::string, std::vector<int32_t>> entries_;
};

class Gpt2Tokenizer {
public:
  static constexpr int32_t kVocabSize = 50257;
  static constexpr int32_t kNumMerges = 50000;
  static constexpr int32_t kEndOfText = 50256;
  static constexpr const char *kVocabFileName = "encoder.json";
  static constexpr const char *kMergesFileName = "vocab.bpe";

  /// Loads `directory`/encoder.json and `directory`/vocab.bpe.
  bool loadFromDirectory(const std::string &directory, std::string &error);
  /// Loads a vocabulary (encoder.json format; Megatron's --vocab-file) and
  /// merges (vocab.bpe format; Megatron's --merge-file).
  bool load(const std::string &vocabPath, const std::string &mergesPath, std::string &error);

  /// Where the data is installed relative to the running executable:
  /// <directory of the executable>/../share/mt/gpt2.
  static std::string defaultDirectory();
  /// The same for an executable at `executablePath`.
  static std::string defaultDirectoryFor(const std::string &executablePath);

  /// Token ids of `text` (any bytes; see Gpt2PreTokenizer.h for bytes that
  /// are not UTF-8). `cache` may be null.
  std::vector<int32_t> encode(std::string_view text, BpeCache *cache = nullptr) const;
  /// Appends the token ids of `text` to `out`.
  void encodeInto(std::string_view text, std::vector<int32_t> &out,
                  BpeCache *cache = nullptr) const;

  /// The bytes the ids stand for; false (with `error`) for an id outside the
  /// vocabulary. The bytes may end inside a UTF-8 character when the ids do.
  bool decodeBytes(const std::vector<int32_t> &ids, std::string &bytes, std::string &error) const;
  /// As GPT-2 decodes: decodeBytes, then invalid UTF-8 replaced by U+FFFD.
  bool decode(const std::vector<int32_t> &ids, std::string &text, std::string &error) const;

  /// The token's spelling in encoder.json (byte-to-unicode characters), or "".
  const std::string &tokenString(int32_t id) const;
  int32_t vocabSize() const { return static_cast<int32_t>(tokenBytes_.size()); }
  int32_t endOfText() const { return kEndOfText; }
  bool loaded() const { return !tokenBytes_.empty(); }

private:
  void bpe(std::string_view piece, std::vector<int32_t> &out) const;

  struct Merge {
    int32_t rank;
    int32_t result;
  };
  /// (left id << 32 | right id) -> merge.
  /// load()'s halves: vocab.json (ids, each token's string and bytes, the
  /// byte tokens) and merges.txt (each pair's rank and result).
  bool loadVocabulary(const std::string &vocabPath, std::unordered_map<std::string, int32_t> &ids,
                      std::vector<std::string> &strings, std::vector<std::string> &bytes,
                      std::string &error);
  bool loadMerges(const std::string &mergesPath,
                  const std::unordered_map<std::string, int32_t> &ids,
                  std::unordered_map<uint64_t, Merge> &merges, std::string &error);
  std::unordered_map<uint64_t, Merge> merges_;
  /// id -> the bytes it stands for.
  std::vector<std::string> tokenBytes_;
  /// id -> its encoder.json key.
  std::vector<std::string> tokenStrings_;
  /// byte -> the id of its single-byte token.
  int32_t byteToken_[256] = {};
};

} // namespace mt

#endif // MT_DATA_GPT2TOKENIZER_H
