//===- Gpt2PreTokenizer.h - GPT-2's split of text into words ---*- C++ -*-===//
//
// Before BPE, GPT-2 cuts text into pieces with the regex
//
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// This is that regex's leftmost-first matching written out by hand over UTF-8
// (no regex engine): contractions; an optional space then a run of letters,
// of numbers, or of other characters; white space up to, but not including,
// the last white space before a non-space; any remaining white space.
//
// Bytes that are not UTF-8 (which GPT-2's encoders never see, as they take
// decoded text) are treated as "other" characters, so every byte string splits
// and nothing is lost.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_GPT2PRETOKENIZER_H
#define MT_DATA_GPT2PRETOKENIZER_H

#include <string_view>
#include <vector>

namespace mt {

/// The pieces of `text`, in order; together they are exactly `text`.
std::vector<std::string_view> gpt2PreTokenize(std::string_view text);

} // namespace mt

#endif // MT_DATA_GPT2PRETOKENIZER_H
