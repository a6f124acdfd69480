//===- Gpt2Tokenizer.cpp - GPT-2's byte-level BPE --------------------------===//
#include "mt/Data/Gpt2Tokenizer.h"

#include "mt/Data/Files.h"
#include "mt/Data/Gpt2PreTokenizer.h"
#include "mt/Data/Json.h"
#include "mt/Data/Utf8.h"

#include <filesystem>
#include <limits>
#include <unistd.h>

namespace mt {
namespace {

/// GPT-2's byte -> unicode table: printable Latin-1 bytes stand for
/// themselves; the other 68 bytes (controls, space, DEL, NBSP, soft hyphen)
/// take U+0100 onwards in byte order, so every token is printable text.
char32_t byteToUnicode(unsigned byte) {
  auto printable = [](unsigned b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  };
  if (printable(byte))
    return byte;
  char32_t next = 0x100;
  for (unsigned b = 0; b < byte; ++b)
    if (!printable(b))
      ++next;
  return next;
}

uint64_t pairKey(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

bool isAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

} // namespace

std::string Gpt2Tokenizer::defaultDirectoryFor(const std::string &executablePath) {
  std::filesystem::path exe(executablePath);
  return (exe.parent_path() / ".." / "share" / "mt" / "gpt2").lexically_normal().string();
}

std::string Gpt2Tokenizer::defaultDirectory() {
  std::string exe(4096, '\0');
  ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size());
  if (n <= 0 || static_cast<size_t>(n) >= exe.size())
    return "share/mt/gpt2"; // no /proc: relative to the working directory
  exe.resize(static_cast<size_t>(n));
  return defaultDirectoryFor(exe);
}

bool Gpt2Tokenizer::loadFromDirectory(const std::string &directory, std::string &error) {
  return load(directory + "/" + kVocabFileName, directory + "/" + kMergesFileName, error);
}

bool Gpt2Tokenizer::load(const std::string &vocabPath, const std::string &mergesPath,
                         std::string &error) {
  merges_.clear();
  tokenBytes_.clear();
  tokenStrings_.clear();
  std::unordered_map<std::string, int32_t> ids;
  std::vector<std::string> strings, bytes;
  std::unordered_map<uint64_t, Merge> merges;
  if (!loadVocabulary(vocabPath, ids, strings, bytes, error) ||
      !loadMerges(mergesPath, ids, merges, error))
    return false;
  merges_ = std::move(merges);
  tokenBytes_ = std::move(bytes);
  tokenStrings_ = std::move(strings);
  return true;
}

bool Gpt2Tokenizer::loadVocabulary(const std::string &vocabPath,
                                   std::unordered_map<std::string, int32_t> &ids,
                                   std::vector<std::string> &strings,
                                   std::vector<std::string> &bytes, std::string &error) {
  // --- the vocabulary: {"token": id, ...} ---
  std::string vocabText;
  if (!readFile(vocabPath, vocabText, error))
    return false;
  strings.assign(kVocabSize, std::string());
  std::vector<bool> seen(kVocabSize, false);
  std::string memberError;
  JsonParser parser(vocabText);
  bool parsed = parser.parseObject([&](const std::string &key) {
    int64_t id;
    if (!parser.parseInteger(id, 0, std::numeric_limits<int32_t>::max()))
      return false;
    if (id >= kVocabSize) {
      memberError = "token " + jsonQuote(key) + " has id " + std::to_string(id) +
                    ", outside GPT-2's vocabulary of " + std::to_string(kVocabSize);
      return false;
    }
    if (!ids.emplace(key, static_cast<int32_t>(id)).second) {
      memberError = "token " + jsonQuote(key) + " is listed twice";
      return false;
    }
    if (seen[id]) {
      memberError = "id " + std::to_string(id) + " is given to both " + jsonQuote(strings[id]) +
                    " and " + jsonQuote(key);
      return false;
    }
    seen[id] = true;
    strings[id] = key;
    return true;
  });
  if (!memberError.empty()) {
    error = vocabPath + ": " + memberError;
    return false;
  }
  if (!parsed || !parser.expectEnd()) {
    error = vocabPath + ": malformed JSON: " + parser.error();
    return false;
  }
  if (ids.size() != static_cast<size_t>(kVocabSize)) {
    error = vocabPath + ": has " + std::to_string(ids.size()) + " tokens; GPT-2's vocabulary has " +
            std::to_string(kVocabSize);
    return false;
  }
  if (strings[kEndOfText] != "<|endoftext|>") {
    error = vocabPath + ": id " + std::to_string(kEndOfText) + " is " +
            jsonQuote(strings[kEndOfText]) + ", not \"<|endoftext|>\"";
    return false;
  }

  // Each token spells bytes in the byte -> unicode alphabet.
  std::unordered_map<char32_t, unsigned char> unicodeToByte;
  for (unsigned b = 0; b < 256; ++b)
    unicodeToByte[byteToUnicode(b)] = static_cast<unsigned char>(b);
  bytes.assign(kVocabSize, std::string());
  for (int32_t id = 0; id < kVocabSize; ++id) {
    const std::string &s = strings[id];
    for (size_t pos = 0; pos < s.size();) {
      utf8::Decoded d = utf8::decodeAt(s, pos); // valid: JsonParser checked it
      auto it = unicodeToByte.find(d.codePoint);
      if (it == unicodeToByte.end()) {
        error = vocabPath + ": token " + jsonQuote(s) + " (id " + std::to_string(id) + ") has " +
                utf8::codePointName(d.codePoint) + ", which is not in GPT-2's byte alphabet";
        return false;
      }
      bytes[id] += static_cast<char>(it->second);
      pos += d.length;
    }
  }
  for (unsigned b = 0; b < 256; ++b) {
    std::string single;
    utf8::append(single, byteToUnicode(b));
    auto it = ids.find(single);
    if (it == ids.end()) {
      error =
          vocabPath + ": no token for byte " + std::to_string(b) + " (" + jsonQuote(single) + ")";
      return false;
    }
    byteToken_[b] = it->second;
  }

  return true;
}

bool Gpt2Tokenizer::loadMerges(const std::string &mergesPath,
                               const std::unordered_map<std::string, int32_t> &ids,
                               std::unordered_map<uint64_t, Merge> &merges, std::string &error) {
  // --- the merges: "#version: ..." then one "left right" per line ---
  std::string mergesText;
  if (!readFile(mergesPath, mergesText, error))
    return false;
  if (mergesText.rfind("#version", 0) != 0) {
    error = mergesPath + ":1: expected a '#version' header line";
    return false;
  }
  if (mergesText.back() != '\n') {
    error = mergesPath + ": does not end with a newline (a cut-off file?)";
    return false;
  }
  size_t lineStart = mergesText.find('\n') + 1;
  int64_t lineNumber = 1;
  int32_t rank = 0;
  while (lineStart < mergesText.size()) {
    ++lineNumber;
    size_t lineEnd = mergesText.find('\n', lineStart);
    std::string_view line(mergesText.data() + lineStart, lineEnd - lineStart);
    lineStart = lineEnd + 1;
    std::vector<std::string> parts;
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && isAsciiSpace(line[i]))
        ++i;
      size_t start = i;
      while (i < line.size() && !isAsciiSpace(line[i]))
        ++i;
      if (i > start)
        parts.emplace_back(line.substr(start, i - start));
    }
    auto where = mergesPath + ":" + std::to_string(lineNumber) + ": ";
    if (parts.size() != 2) {
      error =
          where + "expected two tokens separated by a space, found " + std::to_string(parts.size());
      return false;
    }
    auto left = ids.find(parts[0]), right = ids.find(parts[1]),
         result = ids.find(parts[0] + parts[1]);
    for (auto [it, name] : {std::pair{left, &parts[0]}, std::pair{right, &parts[1]}}) {
      if (it == ids.end()) {
        error = where + "token " + jsonQuote(*name) + " is not in the vocabulary";
        return false;
      }
    }
    if (result == ids.end()) {
      error = where + "the merged token " + jsonQuote(parts[0] + parts[1]) +
              " is not in the vocabulary";
      return false;
    }
    if (!merges.emplace(pairKey(left->second, right->second), Merge{rank, result->second}).second) {
      error = where + "the merge " + jsonQuote(parts[0] + " " + parts[1]) + " is listed twice";
      return false;
    }
    ++rank;
  }
  if (rank != kNumMerges) {
    error = mergesPath + ": has " + std::to_string(rank) + " merges; GPT-2 has " +
            std::to_string(kNumMerges);
    return false;
  }

  return true;
}

void Gpt2Tokenizer::bpe(std::string_view piece, std::vector<int32_t> &out) const {
  std::vector<int32_t> word;
  word.reserve(piece.size());
  for (char c : piece)
    word.push_back(byteToken_[static_cast<unsigned char>(c)]);

  // GPT-2's loop: find the adjacent pair of lowest rank, merge every
  // occurrence of it left to right, repeat. Quadratic in the piece's length,
  // as in the reference; pieces are words, so short.
  std::vector<int32_t> next;
  while (word.size() > 1) {
    const Merge *best = nullptr;
    int32_t first = 0, second = 0;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      auto it = merges_.find(pairKey(word[i], word[i + 1]));
      if (it != merges_.end() && (!best || it->second.rank < best->rank)) {
        best = &it->second;
        first = word[i];
        second = word[i + 1];
      }
    }
    if (!best)
      break;
    next.clear();
    for (size_t i = 0; i < word.size();) {
      if (word[i] == first && i + 1 < word.size() && word[i + 1] == second) {
        next.push_back(best->result);
        i += 2;
      } else {
        next.push_back(word[i]);
        ++i;
      }
    }
    word.swap(next);
  }
  out.insert(out.end(), word.begin(), word.end());
}

void Gpt2Tokenizer::encodeInto(std::string_view text, std::vector<int32_t> &out,
                               BpeCache *cache) const {
  for (std::string_view piece : gpt2PreTokenize(text)) {
    if (!cache || piece.size() > BpeCache::kMaxPieceBytes) {
      bpe(piece, out);
      continue;
    }
    auto it = cache->entries_.find(std::string(piece));
    if (it == cache->entries_.end()) {
      if (cache->entries_.size() >= BpeCache::kMaxEntries)
        cache->entries_.clear();
      std::vector<int32_t> tokens;
      bpe(piece, tokens);
      it = cache->entries_.emplace(std::string(piece), std::move(tokens)).first;
    }
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
}

std::vector<int32_t> Gpt2Tokenizer::encode(std::string_view text, BpeCache *cache) const {
  std::vector<int32_t> out;
  encodeInto(text, out, cache);
  return out;
}

bool Gpt2Tokenizer::decodeBytes(const std::vector<int32_t> &ids, std::string &bytes,
                                std::string &error) const {
  bytes.clear();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocabSize()) {
      error = "token id " + std::to_string(ids[i]) + " (at position " + std::to_string(i) +
              ") is outside the vocabulary of " + std::to_string(vocabSize());
      return false;
    }
    bytes += tokenBytes_[ids[i]];
  }
  return true;
}

bool Gpt2Tokenizer::decode(const std::vector<int32_t> &ids, std::string &text,
                           std::string &error) const {
  std::string bytes;
  if (!decodeBytes(ids, bytes, error))
    return false;
  text = utf8::replaceInvalid(bytes);
  return true;
}

const std::string &Gpt2Tokenizer::tokenString(int32_t id) const {
  static const std::string empty;
  return id >= 0 && id < vocabSize() ? tokenStrings_[id] : empty;
}

} // namespace mt
