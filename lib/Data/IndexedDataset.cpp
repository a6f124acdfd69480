//===- IndexedDataset.cpp - Megatron's .bin/.idx token files ---------------===//
#include "mt/Data/IndexedDataset.h"

#include <cerrno>
#include <cstring>
#include <limits>

namespace mt {
namespace {

// The format is little-endian whatever the host; these read and write it
// byte by byte (and never through misaligned pointers: the arrays start at
// offset 34).
template <typename T> T readLE(const char *p) {
  using U = std::make_unsigned_t<T>;
  U value = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<U>(static_cast<unsigned char>(p[i])) << (8 * i);
  return static_cast<T>(value);
}

template <typename T> void appendLE(std::vector<unsigned char> &out, T v) {
  using U = std::make_unsigned_t<T>;
  U value = static_cast<U>(v);
  for (size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<unsigned char>(value >> (8 * i)));
}

bool isIntegerDType(TokenDType dtype) {
  return dtype != TokenDType::Float32 && dtype != TokenDType::Float64;
}

/// The range of token values the dtype can hold (int32 tokens in, so at most int32's).
std::pair<int64_t, int64_t> representable(TokenDType dtype) {
  switch (dtype) {
  case TokenDType::UInt8:
    return {0, 255};
  case TokenDType::Int8:
    return {-128, 127};
  case TokenDType::Int16:
    return {-32768, 32767};
  case TokenDType::UInt16:
    return {0, 65535};
  default:
    return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
}

/// A float dataset's element as a token id (truncated); NaN and values
/// outside int64 give -1 rather than undefined behaviour.
int64_t floatToken(double value) {
  if (!(value > -9.2e18 && value < 9.2e18))
    return -1;
  return static_cast<int64_t>(value);
}

std::string describeMagic(const char *p) {
  std::string out;
  for (int i = 0; i < 9; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\x%02X", c);
      out += buffer;
    }
  }
  return out;
}

} // namespace

std::optional<TokenDType> tokenDTypeFromCode(uint8_t code) {
  if (code >= 1 && code <= 8)
    return static_cast<TokenDType>(code);
  return std::nullopt;
}

int64_t tokenDTypeSize(TokenDType dtype) {
  switch (dtype) {
  case TokenDType::UInt8:
  case TokenDType::Int8:
    return 1;
  case TokenDType::Int16:
  case TokenDType::UInt16:
    return 2;
  case TokenDType::Int32:
  case TokenDType::Float32:
    return 4;
  case TokenDType::Int64:
  case TokenDType::Float64:
    return 8;
  }
  return 0;
}

const char *tokenDTypeName(TokenDType dtype) {
  switch (dtype) {
  case TokenDType::UInt8:
    return "uint8";
  case TokenDType::Int8:
    return "int8";
  case TokenDType::Int16:
    return "int16";
  case TokenDType::Int32:
    return "int32";
  case TokenDType::Int64:
    return "int64";
  case TokenDType::Float64:
    return "float64";
  case TokenDType::Float32:
    return "float32";
  case TokenDType::UInt16:
    return "uint16";
  }
  return "?";
}

TokenDType optimalTokenDType(int64_t vocabSize) {
  return vocabSize < 65500 ? TokenDType::UInt16 : TokenDType::Int32;
}

std::string indexPath(const std::string &prefix) { return prefix + ".idx"; }
std::string dataPath(const std::string &prefix) { return prefix + ".bin"; }

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

IndexedDatasetWriter::~IndexedDatasetWriter() {
  if (bin_)
    std::fclose(bin_);
}

bool IndexedDatasetWriter::open(const std::string &prefix, TokenDType dtype, std::string &error) {
  if (!isIntegerDType(dtype)) {
    error =
        std::string("cannot write tokens as ") + tokenDTypeName(dtype) + ": not an integer type";
    return false;
  }
  if (bin_) { // reopened: the previous dataset is abandoned as it is
    std::fclose(bin_);
    bin_ = nullptr;
  }
  prefix_ = prefix;
  dtype_ = dtype;
  lengths_.clear();
  documentIndices_.assign(1, 0);
  numTokens_ = 0;
  bin_ = std::fopen(dataPath(prefix).c_str(), "wb");
  if (!bin_) {
    error = "cannot create '" + dataPath(prefix) + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool IndexedDatasetWriter::addSequence(const int32_t *tokens, size_t count, std::string &error) {
  if (!bin_) {
    error = "the dataset writer is not open";
    return false;
  }
  if (count > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    error =
        "a sequence of " + std::to_string(count) + " tokens does not fit the index's int32 lengths";
    return false;
  }
  auto [low, high] = representable(dtype_);
  buffer_.clear();
  buffer_.reserve(count * tokenDTypeSize(dtype_));
  for (size_t i = 0; i < count; ++i) {
    int32_t t = tokens[i];
    if (t < low || t > high) {
      error = "token " + std::to_string(t) + " does not fit the dataset's dtype " +
              tokenDTypeName(dtype_);
      return false;
    }
    switch (tokenDTypeSize(dtype_)) {
    case 1:
      buffer_.push_back(static_cast<unsigned char>(t));
      break;
    case 2:
      appendLE<int16_t>(buffer_, static_cast<int16_t>(t));
      break;
    case 4:
      appendLE<int32_t>(buffer_, t);
      break;
    default:
      appendLE<int64_t>(buffer_, t);
      break;
    }
  }
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), bin_) != buffer_.size()) {
    error = "cannot write '" + dataPath(prefix_) + "': " + std::strerror(errno);
    return false;
  }
  lengths_.push_back(static_cast<int32_t>(count));
  numTokens_ += static_cast<int64_t>(count);
  return true;
}

void IndexedDatasetWriter::endDocument() {
  documentIndices_.push_back(static_cast<int64_t>(lengths_.size()));
}

bool IndexedDatasetWriter::addDocument(const int32_t *tokens, size_t count, std::string &error) {
  if (count > 0 && !addSequence(tokens, count, error))
    return false;
  endDocument();
  return true;
}

bool IndexedDatasetWriter::append(const IndexedDataset &source, std::string &error) {
  if (!bin_ || documentIndices_.back() != numSequences()) {
    error = !bin_ ? "the dataset writer is not open" : "a document is still open";
    return false;
  }
  if (source.dtype() != dtype_) {
    error = std::string("its tokens are ") + tokenDTypeName(source.dtype()) + ", the first's " +
            tokenDTypeName(dtype_) + ": datasets of one tokenizer merge";
    return false;
  }
  int64_t base = numSequences(), size = tokenDTypeSize(dtype_);
  std::string_view bytes = source.dataBytes();
  for (int64_t s = 0; s < source.numSequences(); ++s) {
    int64_t length = source.sequenceLength(s);
    size_t n = static_cast<size_t>(length * size);
    if (n && std::fwrite(bytes.data() + source.sequencePointer(s), 1, n, bin_) != n) {
      error = "cannot write '" + dataPath(prefix_) + "': " + std::strerror(errno);
      return false;
    }
    lengths_.push_back(static_cast<int32_t>(length));
    numTokens_ += length;
  }
  for (int64_t d = 1; d <= source.numDocuments(); ++d)
    documentIndices_.push_back(base + source.documentIndex(d));
  return true;
}

bool IndexedDatasetWriter::finish(std::string &error) {
  if (!bin_) {
    error = "the dataset writer is not open";
    return false;
  }
  int closed = std::fclose(bin_);
  bin_ = nullptr;
  if (closed != 0) {
    error = "cannot write '" + dataPath(prefix_) + "': " + std::strerror(errno);
    return false;
  }
  if (documentIndices_.back() != numSequences()) {
    error = std::to_string(numSequences() - documentIndices_.back()) +
            " sequences were added after the last document ended";
    return false;
  }

  std::vector<unsigned char> idx;
  idx.reserve(kIndexHeaderBytes + 12 * lengths_.size() + 8 * documentIndices_.size());
  idx.insert(idx.end(), kIndexMagic, kIndexMagic + sizeof(kIndexMagic));
  appendLE<uint64_t>(idx, 1); // version
  idx.push_back(static_cast<unsigned char>(dtype_));
  appendLE<uint64_t>(idx, lengths_.size());
  appendLE<uint64_t>(idx, documentIndices_.size());
  for (int32_t length : lengths_)
    appendLE<int32_t>(idx, length);
  int64_t pointer = 0;
  for (int32_t length : lengths_) {
    appendLE<int64_t>(idx, pointer);
    pointer += static_cast<int64_t>(length) * tokenDTypeSize(dtype_);
  }
  for (int64_t index : documentIndices_)
    appendLE<int64_t>(idx, index);

  std::string path = indexPath(prefix_);
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = "cannot create '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool written = std::fwrite(idx.data(), 1, idx.size(), file) == idx.size();
  int savedErrno = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    savedErrno = errno;
  }
  if (!written) {
    error = "cannot write '" + path + "': " + std::strerror(savedErrno);
    return false;
  }
  return true;
}

void IndexedDatasetWriter::discard() {
  if (bin_) {
    std::fclose(bin_);
    bin_ = nullptr;
  }
  if (!prefix_.empty()) {
    std::remove(dataPath(prefix_).c_str());
    std::remove(indexPath(prefix_).c_str());
  }
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

bool IndexedDataset::open(const std::string &prefix, std::string &error) {
  std::string idxPath = indexPath(prefix), binPath = dataPath(prefix);
  if (!index_.open(idxPath, error))
    return false;
  auto fail = [&](const std::string &message) {
    error = idxPath + ": " + message;
    return false;
  };

  const char *p = index_.bytes().data();
  const uint64_t size = index_.size();
  if (size < static_cast<uint64_t>(kIndexHeaderBytes))
    return fail("has " + std::to_string(size) + " bytes, fewer than the " +
                std::to_string(kIndexHeaderBytes) + "-byte header");
  if (std::memcmp(p, kIndexMagic, sizeof(kIndexMagic)) != 0)
    return fail("not a Megatron indexed dataset: starts with \"" + describeMagic(p) +
                "\", expected \"MMIDIDX\\x00\\x00\"");
  uint64_t version = readLE<uint64_t>(p + 9);
  if (version != 1)
    return fail("version " + std::to_string(version) + "; only version 1 exists");
  uint8_t code = static_cast<uint8_t>(p[17]);
  std::optional<TokenDType> dtype = tokenDTypeFromCode(code);
  if (!dtype)
    return fail("unknown dtype code " + std::to_string(code) + " (Megatron's codes are 1 to 8)");
  dtype_ = *dtype;
  const int64_t itemSize = tokenDTypeSize(dtype_);
  uint64_t sequences = readLE<uint64_t>(p + 18);
  uint64_t documentIndices = readLE<uint64_t>(p + 26);

  // 128-bit arithmetic: a corrupt count must not wrap around to a plausible size.
  unsigned __int128 expected = static_cast<unsigned __int128>(kIndexHeaderBytes) +
                               static_cast<unsigned __int128>(sequences) * 12 +
                               static_cast<unsigned __int128>(documentIndices) * 8;
  if (expected != size) {
    if (expected + sequences == size)
      return fail("has one int8 mode per sequence after the document indices: multimodal "
                  "datasets are not supported");
    return fail("has " + std::to_string(size) + " bytes, but its header's " +
                std::to_string(sequences) + " sequences and " + std::to_string(documentIndices) +
                " document indices need " +
                (expected > std::numeric_limits<uint64_t>::max()
                     ? std::string("more than 2^64")
                     : std::to_string(static_cast<uint64_t>(expected))));
  }
  if (documentIndices == 0)
    return fail("has no document indices; there is always at least the leading 0");
  numSequences_ = static_cast<int64_t>(sequences);
  numDocumentIndices_ = static_cast<int64_t>(documentIndices);
  lengths_ = p + kIndexHeaderBytes;
  pointers_ = lengths_ + 4 * numSequences_;
  documents_ = pointers_ + 8 * numSequences_;

  if (!data_.open(binPath, error))
    return false;

  // Sequences lie back to back from byte 0, in order, as Megatron writes them.
  int64_t expectedPointer = 0;
  const int64_t binSize = static_cast<int64_t>(data_.size());
  for (int64_t s = 0; s < numSequences_; ++s) {
    int32_t length = readLE<int32_t>(lengths_ + 4 * s);
    int64_t pointer = readLE<int64_t>(pointers_ + 8 * s);
    if (length < 0)
      return fail("sequence " + std::to_string(s) + " has negative length " +
                  std::to_string(length));
    if (pointer != expectedPointer)
      return fail("sequence " + std::to_string(s) + " starts at byte " + std::to_string(pointer) +
                  " of the .bin, expected " + std::to_string(expectedPointer) +
                  (s == 0 ? std::string(" (the start)")
                          : " (right after sequence " + std::to_string(s - 1) + ")"));
    expectedPointer = pointer + static_cast<int64_t>(length) * itemSize;
    if (expectedPointer > binSize)
      return fail("sequence " + std::to_string(s) + " ends at byte " +
                  std::to_string(expectedPointer) + ", past the end of '" + binPath + "' (" +
                  std::to_string(binSize) + " bytes)");
  }
  if (expectedPointer != binSize)
    return fail("its sequences cover " + std::to_string(expectedPointer) + " bytes, but '" +
                binPath + "' has " + std::to_string(binSize));

  int64_t previous = 0;
  for (int64_t d = 0; d < numDocumentIndices_; ++d) {
    int64_t index = readLE<int64_t>(documents_ + 8 * d);
    if (d == 0 && index != 0)
      return fail("document index 0 is " + std::to_string(index) + ", expected 0");
    if (index < previous)
      return fail("document index " + std::to_string(d) + " is " + std::to_string(index) +
                  ", less than the one before (" + std::to_string(previous) + ")");
    if (index > numSequences_)
      return fail("document index " + std::to_string(d) + " is " + std::to_string(index) +
                  ", past the " + std::to_string(numSequences_) + " sequences");
    previous = index;
  }
  if (previous != numSequences_)
    return fail("the last document index is " + std::to_string(previous) + ", expected " +
                std::to_string(numSequences_) + " (the sequence count)");
  return true;
}

int64_t IndexedDataset::sequenceLength(int64_t sequence) const {
  return readLE<int32_t>(lengths_ + 4 * sequence);
}

int64_t IndexedDataset::sequencePointer(int64_t sequence) const {
  return readLE<int64_t>(pointers_ + 8 * sequence);
}

int64_t IndexedDataset::documentIndex(int64_t i) const {
  return readLE<int64_t>(documents_ + 8 * i);
}

int64_t IndexedDataset::token(int64_t sequence, int64_t k) const {
  const char *p = data_.bytes().data() + sequencePointer(sequence) + k * tokenDTypeSize(dtype_);
  switch (dtype_) {
  case TokenDType::UInt8:
    return static_cast<unsigned char>(*p);
  case TokenDType::Int8:
    return static_cast<signed char>(*p);
  case TokenDType::Int16:
    return readLE<int16_t>(p);
  case TokenDType::UInt16:
    return readLE<uint16_t>(p);
  case TokenDType::Int32:
    return readLE<int32_t>(p);
  case TokenDType::Int64:
    return readLE<int64_t>(p);
  case TokenDType::Float32: {
    float f;
    uint32_t bits = readLE<uint32_t>(p);
    std::memcpy(&f, &bits, 4);
    return floatToken(f);
  }
  case TokenDType::Float64: {
    double f;
    uint64_t bits = readLE<uint64_t>(p);
    std::memcpy(&f, &bits, 8);
    return floatToken(f);
  }
  }
  return 0;
}

void IndexedDataset::copyTokens(int64_t sequence, int64_t offset, int64_t count,
                                int32_t *out) const {
  const char *p =
      data_.bytes().data() + sequencePointer(sequence) + offset * tokenDTypeSize(dtype_);
  switch (dtype_) {
  case TokenDType::UInt16:
    for (int64_t i = 0; i < count; ++i)
      out[i] = readLE<uint16_t>(p + 2 * i);
    return;
  case TokenDType::Int32:
    for (int64_t i = 0; i < count; ++i)
      out[i] = readLE<int32_t>(p + 4 * i);
    return;
  default:
    for (int64_t i = 0; i < count; ++i)
      out[i] = static_cast<int32_t>(token(sequence, offset + i));
    return;
  }
}

} // namespace mt
