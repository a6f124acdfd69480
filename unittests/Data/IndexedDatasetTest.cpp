//===- IndexedDatasetTest.cpp - Megatron's MMIDIDX, byte for byte ----------===//
#include "mt/Data/IndexedDataset.h"

#include "TempDir.h"

#include <gtest/gtest.h>

using namespace mt;

namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values)
    out += static_cast<char>(v);
  return out;
}
std::string u64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>(v >> (8 * i));
  return out;
}
std::string i32(int32_t v) { return u64(static_cast<uint32_t>(v)).substr(0, 4); }

/// Three documents, the middle one empty, as Megatron's preprocessing writes them.
void writeTiny(const std::string &prefix, TokenDType dtype = TokenDType::UInt16) {
  IndexedDatasetWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(prefix, dtype, error)) << error;
  std::vector<int32_t> first{1, 2, 3}, last{65535};
  ASSERT_TRUE(writer.addDocument(first.data(), first.size(), error)) << error;
  ASSERT_TRUE(writer.addDocument(nullptr, 0, error)) << error;
  ASSERT_TRUE(writer.addDocument(last.data(), last.size(), error)) << error;
  EXPECT_EQ(writer.numSequences(), 2);
  EXPECT_EQ(writer.numDocuments(), 3);
  EXPECT_EQ(writer.numTokens(), 4);
  ASSERT_TRUE(writer.finish(error)) << error;
}

std::string tinyIndex() {
  return std::string("MMIDIDX\0\0", 9) + u64(1) /*version*/ + bytes({8}) /*uint16*/ +
         u64(2) /*sequences*/ + u64(4) /*document indices*/ + i32(3) + i32(1) /*lengths*/ + u64(0) +
         u64(6) /*pointers*/ + u64(0) + u64(1) + u64(1) + u64(2) /*documents*/;
}

TEST(IndexedDataset, MegatronDTypeCodes) {
  EXPECT_EQ(static_cast<int>(TokenDType::UInt8), 1);
  EXPECT_EQ(static_cast<int>(TokenDType::Int32), 4);
  EXPECT_EQ(static_cast<int>(TokenDType::UInt16), 8);
  EXPECT_EQ(optimalTokenDType(50257), TokenDType::UInt16);
  EXPECT_EQ(optimalTokenDType(65499), TokenDType::UInt16);
  EXPECT_EQ(optimalTokenDType(65500), TokenDType::Int32);
  EXPECT_FALSE(tokenDTypeFromCode(0));
  EXPECT_FALSE(tokenDTypeFromCode(9));
}

TEST(IndexedDataset, ExactBytes) {
  mt::testing::TempDir dir;
  writeTiny(dir.file("tiny"));
  EXPECT_EQ(dir.read("tiny.idx"), tinyIndex());
  EXPECT_EQ(dir.read("tiny.idx").size(), 90u);
  EXPECT_EQ(dir.read("tiny.bin"), bytes({1, 0, 2, 0, 3, 0, 0xFF, 0xFF}));
}

TEST(IndexedDataset, Int32TokensAndPointersInBytes) {
  mt::testing::TempDir dir;
  writeTiny(dir.file("wide"), TokenDType::Int32);
  std::string idx = dir.read("wide.idx");
  EXPECT_EQ(idx[17], 4);                         // int32
  EXPECT_EQ(idx.substr(34 + 8 + 8, 8), u64(12)); // second pointer: 3 tokens * 4 bytes
  EXPECT_EQ(dir.read("wide.bin").size(), 16u);
}

TEST(IndexedDataset, ReadsBack) {
  mt::testing::TempDir dir;
  writeTiny(dir.file("tiny"));
  IndexedDataset dataset;
  std::string error;
  ASSERT_TRUE(dataset.open(dir.file("tiny"), error)) << error;
  EXPECT_EQ(dataset.dtype(), TokenDType::UInt16);
  EXPECT_EQ(dataset.numSequences(), 2);
  EXPECT_EQ(dataset.numDocuments(), 3);
  EXPECT_EQ(dataset.documentIndex(2), 1);
  EXPECT_EQ(dataset.sequenceLength(0), 3);
  EXPECT_EQ(dataset.sequencePointer(1), 6);
  EXPECT_EQ(dataset.token(1, 0), 65535);
  int32_t out[2];
  dataset.copyTokens(0, 1, 2, out);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 3);
}

TEST(IndexedDataset, WriterRejectsWhatTheFormatCannotHold) {
  mt::testing::TempDir dir;
  IndexedDatasetWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("w"), TokenDType::UInt16, error));
  std::vector<int32_t> big{70000};
  EXPECT_FALSE(writer.addSequence(big.data(), 1, error));
  EXPECT_EQ(error, "token 70000 does not fit the dataset's dtype uint16");
  std::vector<int32_t> ok{1};
  ASSERT_TRUE(writer.addSequence(ok.data(), 1, error));
  EXPECT_FALSE(writer.finish(error));
  EXPECT_EQ(error, "1 sequences were added after the last document ended");

  IndexedDatasetWriter floats;
  EXPECT_FALSE(floats.open(dir.file("f"), TokenDType::Float32, error));
  EXPECT_EQ(error, "cannot write tokens as float32: not an integer type");
  IndexedDatasetWriter nowhere;
  EXPECT_FALSE(nowhere.open(dir.file("missing/x"), TokenDType::UInt16, error));
  EXPECT_EQ(error, "cannot create '" + dir.file("missing/x.bin") + "': No such file or directory");
}

//===----------------------------------------------------------------------===//
// The reader checks every field.
//===----------------------------------------------------------------------===//

class IndexedDatasetValidation : public ::testing::Test {
protected:
  void SetUp() override { writeTiny(dir_.file("d")); }
  /// Opens with .idx replaced by `idx` (and .bin by `bin` if given); returns
  /// the error with the directory removed, or "" when it opens.
  std::string openWith(const std::string &idx, const std::string *bin = nullptr) {
    dir_.write("d.idx", idx);
    if (bin)
      dir_.write("d.bin", *bin);
    IndexedDataset dataset;
    std::string error;
    if (dataset.open(dir_.file("d"), error))
      return "";
    for (size_t at; (at = error.find(dir_.file(""))) != std::string::npos;)
      error.erase(at, dir_.file("").size());
    return error;
  }
  static std::string patch(std::string s, size_t offset, const std::string &with) {
    return s.replace(offset, with.size(), with);
  }
  mt::testing::TempDir dir_;
  std::string idx_ = tinyIndex();
};

TEST_F(IndexedDatasetValidation, TheTinyDatasetOpens) { EXPECT_EQ(openWith(idx_), ""); }

TEST_F(IndexedDatasetValidation, MissingFiles) {
  IndexedDataset dataset;
  std::string error;
  EXPECT_FALSE(dataset.open(dir_.file("nothing"), error));
  EXPECT_EQ(error, "cannot open '" + dir_.file("nothing.idx") + "': No such file or directory");
  std::remove(dir_.file("d.bin").c_str());
  EXPECT_EQ(openWith(idx_), "cannot open 'd.bin': No such file or directory");
}

TEST_F(IndexedDatasetValidation, Header) {
  EXPECT_EQ(openWith(idx_.substr(0, 20)), "d.idx: has 20 bytes, fewer than the 34-byte header");
  EXPECT_EQ(openWith(patch(idx_, 0, std::string("TNTIDX\0\0\0", 9))),
            "d.idx: not a Megatron indexed dataset: starts with \"TNTIDX\\x00\\x00\\x00\", "
            "expected \"MMIDIDX\\x00\\x00\"");
  EXPECT_EQ(openWith(patch(idx_, 9, u64(2))), "d.idx: version 2; only version 1 exists");
  EXPECT_EQ(openWith(patch(idx_, 17, bytes({9}))),
            "d.idx: unknown dtype code 9 (Megatron's codes are 1 to 8)");
}

TEST_F(IndexedDatasetValidation, SizesAgainstFileLength) {
  EXPECT_EQ(openWith(patch(idx_, 18, u64(3))),
            "d.idx: has 90 bytes, but its header's 3 sequences and 4 document indices need 102");
  EXPECT_EQ(openWith(patch(idx_, 18, u64(~0ull))),
            "d.idx: has 90 bytes, but its header's 18446744073709551615 sequences and 4 "
            "document indices need more than 2^64");
  EXPECT_EQ(openWith(idx_ + bytes({0, 0})),
            "d.idx: has one int8 mode per sequence after the document indices: multimodal "
            "datasets are not supported");
  EXPECT_EQ(openWith(idx_ + "x"),
            "d.idx: has 91 bytes, but its header's 2 sequences and 4 document indices need 90");
  std::string noDocuments = idx_.substr(0, 58);
  EXPECT_EQ(openWith(patch(noDocuments, 26, u64(0))),
            "d.idx: has no document indices; there is always at least the leading 0");
}

TEST_F(IndexedDatasetValidation, SequencesAgainstTheBin) {
  EXPECT_EQ(openWith(patch(idx_, 34, i32(-1))), "d.idx: sequence 0 has negative length -1");
  EXPECT_EQ(openWith(patch(idx_, 42, u64(8))),
            "d.idx: sequence 0 starts at byte 8 of the .bin, expected 0 (the start)");
  EXPECT_EQ(openWith(patch(idx_, 50, u64(4))),
            "d.idx: sequence 1 starts at byte 4 of the .bin, expected 6 (right after sequence 0)");
  std::string shortBin = bytes({1, 0, 2, 0, 3, 0});
  EXPECT_EQ(openWith(idx_, &shortBin),
            "d.idx: sequence 1 ends at byte 8, past the end of 'd.bin' (6 bytes)");
  std::string longBin = bytes({1, 0, 2, 0, 3, 0, 0xFF, 0xFF, 0});
  EXPECT_EQ(openWith(idx_, &longBin), "d.idx: its sequences cover 8 bytes, but 'd.bin' has 9");
}

TEST_F(IndexedDatasetValidation, DocumentIndices) {
  const size_t documents = 34 + 12 * 2;
  EXPECT_EQ(openWith(patch(idx_, documents, u64(1))), "d.idx: document index 0 is 1, expected 0");
  EXPECT_EQ(openWith(patch(idx_, documents + 16, u64(0))),
            "d.idx: document index 2 is 0, less than the one before (1)");
  EXPECT_EQ(openWith(patch(idx_, documents + 24, u64(3))),
            "d.idx: document index 3 is 3, past the 2 sequences");
  EXPECT_EQ(openWith(patch(idx_, documents + 24, u64(1))),
            "d.idx: the last document index is 1, expected 2 (the sequence count)");
}

} // namespace
