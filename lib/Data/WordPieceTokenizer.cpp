//===- WordPieceTokenizer.cpp - BERT's WordPiece tokenizer -----------------===//
// Text is normalized by the Unicode rules of WordPieceUnicode.h, then split
// into words and word pieces as BERT's Python code does.
//===----------------------------------------------------------------------===//
#include "mt/Data/WordPieceTokenizer.h"
#include "WordPieceUnicode.h"

#include "mt/Data/Files.h"
#include "mt/Data/UnicodeClasses.h"
#include "mt/Data/Utf8.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace mt {

using namespace wordpiece;

struct WordPieceTokenizer::Scratch {
  std::u32string word, lowered, stripped;
  std::string bytes, key;      // the word being split, as UTF-8; the piece looked up
  std::vector<size_t> offsets; // where each code point starts in `bytes`, then its size
};

bool WordPieceTokenizer::load(const std::string &vocabFile, bool lowerCase, std::string &error) {
  *this = WordPieceTokenizer();
  std::string text;
  if (!readFile(vocabFile, text, error))
    return false;
  std::vector<std::string> tokens;
  std::unordered_map<std::string, int32_t> ids;
  size_t maxChars = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view token(text.data() + pos, end - pos);
    pos = end + 1;
    if (!token.empty() && token.back() == '\r')
      token.remove_suffix(1);
    std::string where = vocabFile + ":" + std::to_string(tokens.size() + 1) + ": ";
    if (token.empty()) {
      error = where + "empty line (each line holds one token)";
      return false;
    }
    if (utf8::findInvalid(token) != std::string_view::npos) {
      error = where + "the token is not valid UTF-8";
      return false;
    }
    auto [it, inserted] = ids.emplace(std::string(token), static_cast<int32_t>(tokens.size()));
    if (!inserted) {
      error = where + "token \"" + std::string(token) + "\" is already on line " +
              std::to_string(it->second + 1);
      return false;
    }
    size_t chars = 0;
    for (size_t i = 0; i < token.size(); i += utf8::decodeAt(token, i).length)
      ++chars;
    maxChars = std::max(maxChars, chars);
    tokens.emplace_back(token);
  }
  std::pair<const char *, int32_t *> specials[] = {
      {"[PAD]", &pad_}, {"[UNK]", &unk_}, {"[CLS]", &cls_}, {"[SEP]", &sep_}, {"[MASK]", &mask_}};
  for (auto [name, id] : specials) {
    auto it = ids.find(name);
    if (it == ids.end()) {
      error = vocabFile + ": no " + name +
              " token (a BERT vocabulary has [PAD], [UNK], [CLS], [SEP] and [MASK])";
      *this = WordPieceTokenizer();
      return false;
    }
    *id = it->second;
  }
  tokens_ = std::move(tokens);
  ids_ = std::move(ids);
  maxTokenChars_ = maxChars;
  lowerCase_ = lowerCase;
  return true;
}

void WordPieceTokenizer::encodeInto(std::string_view text, std::vector<int32_t> &out) const {
  if (!loaded())
    return;
  Scratch scratch;
  std::u32string &word = scratch.word;
  auto flush = [&] {
    if (!word.empty())
      encodeWord(word, scratch, out);
    word.clear();
  };
  // BERT's _clean_text, _tokenize_chinese_chars and whitespace_tokenize.
  for (size_t pos = 0; pos < text.size();) {
    utf8::Decoded d = utf8::decodeAt(text, pos);
    pos += d.length;
    if (!d.valid || d.codePoint == 0 || d.codePoint == 0xFFFD || isControl(d.codePoint))
      continue; // dropped without splitting the word ("a\x01b" is "ab")
    if (unicode::isSpace(d.codePoint)) {
      flush();
    } else if (isCjk(d.codePoint)) {
      flush();
      word = d.codePoint;
      flush();
    } else {
      word += d.codePoint;
    }
  }
  flush();
}

void WordPieceTokenizer::encodeWord(const std::u32string &word, Scratch &scratch,
                                    std::vector<int32_t> &out) const {
  const std::u32string *chars = &word;
  if (lowerCase_) {
    lowerInto(word, scratch.lowered);
    stripAccentsInto(scratch.lowered, scratch.stripped);
    chars = &scratch.stripped;
  }
  // BERT's _run_split_on_punc: each punctuation character stands alone.
  std::u32string_view view(*chars);
  size_t start = 0;
  for (size_t i = 0; i < view.size(); ++i) {
    if (!isPunctuation(view[i]))
      continue;
    if (i > start)
      wordPiece(view.substr(start, i - start), scratch, out);
    wordPiece(view.substr(i, 1), scratch, out);
    start = i + 1;
  }
  if (start < view.size())
    wordPiece(view.substr(start), scratch, out);
}

void WordPieceTokenizer::wordPiece(std::u32string_view word, Scratch &scratch,
                                   std::vector<int32_t> &out) const {
  if (word.size() > kMaxWordChars) {
    out.push_back(unk_);
    return;
  }
  std::string &bytes = scratch.bytes;
  std::vector<size_t> &offsets = scratch.offsets;
  bytes.clear();
  offsets.assign(1, 0);
  for (char32_t cp : word) {
    utf8::append(bytes, cp);
    offsets.push_back(bytes.size());
  }
  // Greedy longest match first; a position nothing matches makes the whole
  // word [UNK], so the pieces found so far are taken back.
  size_t firstPiece = out.size();
  for (size_t start = 0; start < word.size();) {
    int32_t id = -1;
    size_t end = std::min(word.size(), start + maxTokenChars_);
    for (; end > start; --end) {
      scratch.key.assign(start == 0 ? "" : "##");
      scratch.key.append(bytes, offsets[start], offsets[end] - offsets[start]);
      auto it = ids_.find(scratch.key);
      if (it != ids_.end()) {
        id = it->second;
        break;
      }
    }
    if (id < 0) {
      out.resize(firstPiece);
      out.push_back(unk_);
      return;
    }
    out.push_back(id);
    start = end;
  }
}

bool WordPieceTokenizer::decode(const std::vector<int32_t> &ids, std::string &text,
                                std::string &error) const {
  text.clear();
  for (int32_t id : ids) {
    if (id < 0 || id >= vocabSize()) {
      error = "token id " + std::to_string(id) + " is outside the vocabulary of " +
              std::to_string(vocabSize()) + " tokens";
      return false;
    }
    // ' '.join(tokens).replace(' ##', ''): a first "##x" keeps its "##".
    bool glue = !text.empty() && isContinuation(id);
    if (!text.empty() && !glue)
      text += ' ';
    text.append(tokens_[id], glue ? 2 : 0, std::string::npos);
  }
  return true;
}

bool WordPieceTokenizer::isContinuation(int32_t id) const {
  return id >= 0 && id < vocabSize() && tokens_[id].compare(0, 2, "##") == 0;
}

const std::string &WordPieceTokenizer::tokenString(int32_t id) const {
  static const std::string none;
  return id >= 0 && id < vocabSize() ? tokens_[id] : none;
}

} // namespace mt
