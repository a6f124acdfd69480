//===- WordPieceTokenizer.h - BERT's WordPiece tokenizer -------*- C++ -*-===//
//
// Text -> ids and back as Google's BERT tokenization.py (BasicTokenizer then
// WordpieceTokenizer), which Megatron-LM's BertWordPieceLowerCase and
// BertWordPieceCase tokenizers run:
//   1. clean: drop U+0000, U+FFFD and control characters (Cc and Cf, except
//      \t \n \r) without splitting the word they are in; white space
//      separates words. (BERT turns \t \n \r and Zs into spaces, then
//      str.split() also splits at U+2028 and U+2029: with the controls gone,
//      that is Unicode White_Space.) Bytes that are not UTF-8 count as U+FFFD,
//      so they are dropped too;
//   2. every CJK ideograph (the blocks BERT lists) is a word of its own;
//   3. lowerCase only: lower-case each word as Python's str.lower() does,
//      then strip accents (NFD, then drop the nonspacing marks, category Mn);
//   4. every punctuation character (ASCII 33-47, 58-64, 91-96, 123-126, and
//      category P*) is a word of its own;
//   5. WordPiece: a word longer than 100 code points is [UNK]; otherwise it is
//      split greedily, longest vocabulary match first, the pieces after the
//      first spelled "##piece"; a word with a position no piece matches is
//      [UNK] as a whole.
// Special tokens are not recognised in text ("[MASK]" is "[", "mask", "]"),
// as in BERT.
//
// There is no Unicode library here, so the Unicode data are tables from
// Python 3.11's unicodedata (Unicode 14.0); White_Space is UnicodeClasses.h's.
// Megatron's results follow its own Python's Unicode version. The limits:
//   - lower-casing is exact (simple mappings, U+0130 -> "i\u0307", and the
//     final sigma rule), except that the final sigma context approximates
//     Unicode's Cased (letters of the scripts that have case) and
//     Case_Ignorable (marks, modifier letters, apostrophes, periods, colons):
//     a capital sigma next to, say, a Roman numeral may come out differently;
//   - accent stripping decomposes only precomposed characters in Latin
//     (U+00C0-U+024F), Greek and Cyrillic (U+0370-U+04FF), Latin Extended
//     Additional and Greek Extended (U+1E00-U+1FFF), Hangul syllables (into
//     conjoining jamo, as NFD does), and the other canonical decompositions
//     to one or two characters (kana with voicing marks, Arabic hamza forms,
//     Indic nukta letters, Hebrew presentation forms, ...). CJK compatibility
//     ideographs (U+F900-U+FAFF, U+2F800-U+2FA1F), which NFD maps to unified
//     ideographs, and musical symbols decomposing into three characters are
//     kept as they are. Every Mn mark is dropped; canonical reordering is not
//     done (it only moves combining marks, and nearly all of those are Mn);
//   - punctuation, Mn and Cf are exact for Unicode 14.0; characters assigned
//     later count as none of them.
//
// The vocabulary file is BERT's vocab.txt: one token per line, the id is the
// line number counted from 0. Unlike BERT, which strips surrounding white
// space from each line and lets a repeated token silently take the later id,
// load() strips only the line ending and rejects empty lines and repeats.
// A loaded tokenizer is read-only, so threads may share it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_WORDPIECETOKENIZER_H
#define MT_DATA_WORDPIECETOKENIZER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mt {

class WordPieceTokenizer {
public:
  /// Words longer than this many code points are [UNK] (BERT's
  /// max_input_chars_per_word).
  static constexpr size_t kMaxWordChars = 100;

  /// Loads a vocabulary file (one token per line, id = line number; a
  /// trailing \r or \n is stripped). `lowerCase` as Megatron's
  /// BertWordPieceLowerCase (lower-case and strip accents), otherwise as
  /// BertWordPieceCase. False with `error` for an unreadable file, an empty
  /// line, a repeated token, a line that is not UTF-8, or a missing [PAD],
  /// [UNK], [CLS], [SEP] or [MASK].
  bool load(const std::string &vocabFile, bool lowerCase, std::string &error);

  /// Appends the ids of `text` (any bytes) to `out`; no [CLS] or [SEP].
  /// Appends nothing when no vocabulary is loaded.
  void encodeInto(std::string_view text, std::vector<int32_t> &out) const;
  /// The tokens joined as BERT's convert_tokens_to_string does without its
  /// clean-up: "##x" glued to the token before it, others separated by one
  /// space. False (with `error`) for an id outside the vocabulary.
  bool decode(const std::vector<int32_t> &ids, std::string &text, std::string &error) const;

  int32_t vocabSize() const { return static_cast<int32_t>(tokens_.size()); }
  int32_t pad() const { return pad_; }
  int32_t unk() const { return unk_; }
  int32_t cls() const { return cls_; }
  int32_t sep() const { return sep_; }
  int32_t mask() const { return mask_; }
  /// Whether the id's token starts with "##", i.e. continues a word (what
  /// whole-word masking needs). False for an id outside the vocabulary.
  bool isContinuation(int32_t id) const;
  /// The token's spelling in the vocabulary file, or "" outside it.
  const std::string &tokenString(int32_t id) const;
  bool lowerCase() const { return lowerCase_; }
  bool loaded() const { return !tokens_.empty(); }

private:
  /// Buffers one encodeInto() call reuses from word to word.
  struct Scratch;
  /// Steps 3-5 for one white-space-separated word.
  void encodeWord(const std::u32string &word, Scratch &scratch, std::vector<int32_t> &out) const;
  /// Step 5 for one word after punctuation splitting.
  void wordPiece(std::u32string_view word, Scratch &scratch, std::vector<int32_t> &out) const;

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  /// The longest token in code points: no longer piece can match.
  size_t maxTokenChars_ = 0;
  bool lowerCase_ = true;
  int32_t pad_ = -1, unk_ = -1, cls_ = -1, sep_ = -1, mask_ = -1;
};

} // namespace mt

#endif // MT_DATA_WORDPIECETOKENIZER_H
