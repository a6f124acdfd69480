//===- IndexedDataset.h - Megatron's .bin/.idx token files -----*- C++ -*-===//
//
// Megatron-LM's memory-mapped indexed dataset ("MMIDIDX"), byte for byte:
// PREFIX.bin holds the tokens of every sequence back to back; PREFIX.idx is,
// all little-endian,
//
//   offset  size    field
//   0       9       magic "MMIDIDX\0\0"
//   9       8       version, u64 = 1
//   17      1       dtype code, u8 (TokenDType below)
//   18      8       sequence count S, u64
//   26      8       document count D, u64 (documents + 1)
//   34      4*S     sequence lengths, int32, in tokens
//   34+4S   8*S     sequence pointers, int64, byte offsets into .bin
//   34+12S  8*D     document indices, int64: document d is sequences
//                   [idx[d], idx[d+1]); idx[0] = 0 and idx[D-1] = S
//
// Megatron's preprocessing writes one sequence per document (a document with
// no tokens has none). Multimodal datasets (an int8 mode per sequence after
// the document indices) are not supported and are reported as such.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_INDEXEDDATASET_H
#define MT_DATA_INDEXEDDATASET_H

#include "mt/Data/Files.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace mt {

/// Megatron's DType codes.
enum class TokenDType : uint8_t {
  UInt8 = 1,
  Int8 = 2,
  Int16 = 3,
  Int32 = 4,
  Int64 = 5,
  Float64 = 6,
  Float32 = 7,
  UInt16 = 8,
};

/// The dtype with code `code`, or nullopt for an unknown code.
std::optional<TokenDType> tokenDTypeFromCode(uint8_t code);
/// Bytes per element.
int64_t tokenDTypeSize(TokenDType dtype);
/// NumPy's name: "uint16".
const char *tokenDTypeName(TokenDType dtype);
/// Megatron's DType.optimal_dtype: uint16 when the vocabulary has fewer than
/// 65500 tokens, int32 otherwise.
TokenDType optimalTokenDType(int64_t vocabSize);

/// PREFIX.idx and PREFIX.bin.
std::string indexPath(const std::string &prefix);
std::string dataPath(const std::string &prefix);

/// The magic and the fixed header's size.
inline constexpr char kIndexMagic[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', '\0', '\0'};
inline constexpr int64_t kIndexHeaderBytes = 34;

class IndexedDataset;

/// Writes a dataset as it goes: tokens go to .bin at once; only the index
/// arrays stay in memory until finish() writes .idx.
class IndexedDatasetWriter {
public:
  IndexedDatasetWriter() = default;
  IndexedDatasetWriter(const IndexedDatasetWriter &) = delete;
  IndexedDatasetWriter &operator=(const IndexedDatasetWriter &) = delete;
  ~IndexedDatasetWriter();

  /// Creates PREFIX.bin for tokens of `dtype` (an integer type).
  bool open(const std::string &prefix, TokenDType dtype, std::string &error);
  /// Appends one sequence to the current document. Every token must be
  /// representable in the dtype.
  bool addSequence(const int32_t *tokens, size_t count, std::string &error);
  /// Ends the current document (possibly with no sequences).
  void endDocument();
  /// addSequence (unless `count` is 0, as Megatron skips empty documents'
  /// sequences) then endDocument.
  bool addDocument(const int32_t *tokens, size_t count, std::string &error);
  /// Appends every document of `source` (of the same dtype) as it is: the
  /// merge of datasets (Megatron's merge_datasets.py). Only between documents.
  bool append(const IndexedDataset &source, std::string &error);
  /// Closes .bin and writes PREFIX.idx. Sequences added after the last
  /// endDocument() belong to no document: that is an error.
  bool finish(std::string &error);
  /// Deletes whatever was written (after an error).
  void discard();

  int64_t numSequences() const { return static_cast<int64_t>(lengths_.size()); }
  int64_t numDocuments() const { return static_cast<int64_t>(documentIndices_.size()) - 1; }
  int64_t numTokens() const { return numTokens_; }

private:
  std::string prefix_;
  TokenDType dtype_ = TokenDType::UInt16;
  std::FILE *bin_ = nullptr;
  std::vector<int32_t> lengths_;
  std::vector<int64_t> documentIndices_{0};
  int64_t numTokens_ = 0;
  std::vector<unsigned char> buffer_;
};

/// Reads a dataset through mmap, after checking every field of .idx against
/// the format and the size of .bin.
class IndexedDataset {
public:
  /// Opens PREFIX.idx and PREFIX.bin; false with a precise error.
  bool open(const std::string &prefix, std::string &error);

  TokenDType dtype() const { return dtype_; }
  int64_t numSequences() const { return numSequences_; }
  /// Documents (one less than the document index count).
  int64_t numDocuments() const { return numDocumentIndices_ - 1; }
  int64_t sequenceLength(int64_t sequence) const;
  /// Byte offset of the sequence in .bin.
  int64_t sequencePointer(int64_t sequence) const;
  /// Document index entry i, 0 <= i <= numDocuments().
  int64_t documentIndex(int64_t i) const;
  /// Token `k` of the sequence, converted from the dtype.
  int64_t token(int64_t sequence, int64_t k) const;
  /// Copies `count` tokens of the sequence from `offset` on into `out`
  /// (integer dtypes whose values fit int32: all but int64 and floats).
  void copyTokens(int64_t sequence, int64_t offset, int64_t count, int32_t *out) const;
  /// All of PREFIX.bin.
  std::string_view dataBytes() const { return data_.bytes(); }

private:
  MappedFile index_;
  MappedFile data_;
  TokenDType dtype_ = TokenDType::UInt16;
  int64_t numSequences_ = 0;
  int64_t numDocumentIndices_ = 0;
  const char *lengths_ = nullptr;
  const char *pointers_ = nullptr;
  const char *documents_ = nullptr;
};

} // namespace mt

#endif // MT_DATA_INDEXEDDATASET_H
