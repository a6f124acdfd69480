//===- SentenceSplitter.h - a document's text into sentences ----*- C++ -*-===//
//
// mt-data --split-sentences (BERT's and T5's datasets keep each sentence as
// its own sequence). Megatron splits with NLTK's Punkt, a model trained on
// English; this is a rule-based splitter without a model: a sentence ends at
// '.', '!' or '?' (with any closing quotes or brackets after it) followed by
// white space and then a character that can start a sentence (an upper-case
// ASCII letter, a digit, an opening quote or bracket, or any non-ASCII
// character), or at a line break followed by a blank line. A period does not
// end a sentence after a single letter (initials: "J. R. R. Tolkien") or
// after a common abbreviation (Mr., Dr., e.g., etc., U.S., ...). Sentences
// are trimmed of surrounding white space; empty ones are dropped.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_SENTENCESPLITTER_H
#define MT_DATA_SENTENCESPLITTER_H

#include <string>
#include <string_view>
#include <vector>

namespace mt {

/// The sentences of `text`, in order, as views into it.
std::vector<std::string_view> splitSentences(std::string_view text);

} // namespace mt

#endif // MT_DATA_SENTENCESPLITTER_H
