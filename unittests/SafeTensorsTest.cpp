//===- SafeTensorsTest.cpp - Hugging Face's safetensors files --------------===//
#include "mt/Checkpoint/SafeTensors.h"

#include "Data/TempDir.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include <gtest/gtest.h>

using namespace mt;
namespace st = mt::safetensors;

namespace {

/// A file made of a header (padded to 8 bytes, as writers do) and data.
std::string fileBytes(const std::string &json, const std::string &data) {
  std::string header = json;
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  return out + header + data;
}

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string openError(const std::string &path) {
  llvm::Expected<st::Reader> r = st::Reader::open(path);
  if (r)
    return "";
  return llvm::toString(r.takeError());
}

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// Writes `tensors` through a Writer, putting them in the order given.
llvm::Error write(const std::string &path, const std::vector<Tensor> &tensors,
                  const std::map<std::string, std::string> &metadata,
                  llvm::StringRef dtype = "F32") {
  std::vector<st::TensorSpec> specs;
  for (const Tensor &t : tensors)
    specs.push_back({t.name, t.shape});
  llvm::Expected<st::Writer> w = st::Writer::create(path, specs, dtype, metadata);
  if (!w)
    return w.takeError();
  for (const Tensor &t : tensors)
    if (llvm::Error e = w->put(t.name, t.values))
      return e;
  return w->finish();
}

TEST(SafeTensors, WritesWhatTheReferenceWriterWrites) {
  mt::testing::TempDir dir;
  std::string path = dir.file("model.safetensors");
  ASSERT_FALSE(
      write(path, {{"b", {2}, {3.0f, 4.0f}}, {"a", {1, 1}, {1.5f}}}, {{"format", "pt"}}));
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"},"
                       "\"a\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[0,4]},"
                       "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}";
  float values[] = {1.5f, 3.0f, 4.0f};
  EXPECT_EQ(readAll(path), fileBytes(header, std::string(reinterpret_cast<char *>(values), 12)));
}

TEST(SafeTensors, ReadsBackWhatItWrote) {
  mt::testing::TempDir dir;
  std::string path = dir.file("m.safetensors");
  ASSERT_FALSE(write(path, {{"w", {2, 3}, {1, 2, 3, 4, 5, 6}}, {"s", {}, {7}}}, {}));
  llvm::Expected<st::Reader> r = st::Reader::open(path);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->header().tensors.size(), 2u);
  const st::TensorInfo *w = r->find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->shape, (std::vector<int64_t>{2, 3}));
  llvm::Expected<std::vector<float>> values = r->readF32(*w);
  ASSERT_TRUE(bool(values));
  EXPECT_EQ(*values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  llvm::Expected<std::vector<float>> scalar = r->readF32(*r->find("s"));
  ASSERT_TRUE(bool(scalar));
  EXPECT_EQ(*scalar, (std::vector<float>{7}));
}

TEST(SafeTensors, NarrowsToNearestEven) {
  mt::testing::TempDir dir;
  // bf16 keeps 8 significant bits: 1 + 2^-8 is a tie (down to even 1.0),
  // 1 + 3 * 2^-8 a tie up to 1 + 2^-6; f16 keeps 11: 1 + 2^-11 ties to 1.0.
  std::vector<float> in = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -2.5f, 1e30f};
  for (llvm::StringRef dtype : {"BF16", "F16"}) {
    std::string path = dir.file(dtype.str() + ".safetensors");
    std::vector<float> values = in;
    if (dtype == "F16")
      values = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -2.5f, 1e30f};
    ASSERT_FALSE(write(path, {{"x", {4}, values}}, {}, dtype));
    llvm::Expected<st::Reader> r = st::Reader::open(path);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(r->find("x")->dtype, dtype.str());
    llvm::Expected<std::vector<float>> back = r->readF32(*r->find("x"));
    ASSERT_TRUE(bool(back));
    float step = dtype == "BF16" ? 0x1p-6f : 0x1p-9f;
    EXPECT_EQ((*back)[0], 1.0f);
    EXPECT_EQ((*back)[1], 1.0f + step);
    EXPECT_EQ((*back)[2], -2.5f);
    EXPECT_EQ((*back)[3], dtype == "BF16" ? 1.0002555517425873e30f : INFINITY) << dtype.str();
  }
}

TEST(SafeTensors, UnfinishedWritesLeaveNothing) {
  mt::testing::TempDir dir;
  std::string path = dir.file("m.safetensors");
  {
    llvm::Expected<st::Writer> w = st::Writer::create(path, {{"a", {2}}, {"b", {1}}}, "F32", {});
    ASSERT_TRUE(bool(w));
    ASSERT_FALSE(w->put("b", {1.0f}));
    llvm::Error missing = w->finish();
    EXPECT_EQ(llvm::toString(std::move(missing)), "'" + path + "': tensor 'a' was never written");
    llvm::Expected<st::Writer> again = st::Writer::create(path, {{"a", {2}}}, "F32", {});
    ASSERT_TRUE(bool(again));
    EXPECT_EQ(llvm::toString(again->put("a", {1.0f})), "tensor 'a' has 1 values for a shape of 2 elements");
  }
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(std::ifstream(path + ".partial").good());
}

TEST(SafeTensors, WidensHalfAndBFloat16Exactly) {
  mt::testing::TempDir dir;
  // f16: 1.0, -2.0, the smallest subnormal 2^-24, +inf; bf16: 1.0, -0.5.
  unsigned char half[] = {0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c};
  unsigned char bf16[] = {0x80, 0x3f, 0x00, 0xbf};
  std::string json = "{\"h\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]},"
                     "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]}}";
  std::string path = dir.write("h.safetensors",
                               fileBytes(json, std::string(reinterpret_cast<char *>(half), 8) +
                                                   std::string(reinterpret_cast<char *>(bf16), 4)));
  llvm::Expected<st::Reader> r = st::Reader::open(path);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  llvm::Expected<std::vector<float>> h = r->readF32(*r->find("h"));
  ASSERT_TRUE(bool(h));
  EXPECT_EQ((*h)[0], 1.0f);
  EXPECT_EQ((*h)[1], -2.0f);
  EXPECT_EQ((*h)[2], std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf((*h)[3]));
  llvm::Expected<std::vector<float>> b = r->readF32(*r->find("b"));
  ASSERT_TRUE(bool(b));
  EXPECT_EQ(*b, (std::vector<float>{1.0f, -0.5f}));
}

/// Each damaged file, and words its error must contain.
struct Damage {
  const char *what;
  std::string bytes;
  const char *expected;
};

TEST(SafeTensors, RefusesDamagedFilesSayingWhatIsWrong) {
  mt::testing::TempDir dir;
  const std::string four(4, '\0');
  std::string tooLong = fileBytes("{}", "");
  tooLong[0] = static_cast<char>(0xff);
  const Damage damages[] = {
      {"shorter than the length field", std::string(5, '\0'), "holds 5 bytes"},
      {"length beyond the file", tooLong, "the header length at offset 0 says 255"},
      {"not JSON", fileBytes("{\"a\":", ""), "the header is not JSON"},
      {"not an object", fileBytes("[1]", ""), "does not start with '{'"},
      {"unknown dtype",
       fileBytes("{\"a\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", four),
       "tensor 'a' has no dtype"},
      {"unknown field",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", four),
       "unknown field 'x'"},
      {"negative dimension",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", four),
       "each dimension must be a non-negative integer"},
      {"size disagrees with shape",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", four),
       "hold 4 bytes, but 2 elements of F32 need 8"},
      {"a hole",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", four + four),
       "starts at byte 4 of the data, but the tensors before it end at 0 (a hole)"},
      {"an overlap",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                 "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                 four),
       "(an overlap)"},
      {"trailing bytes",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", four + "xx"),
       "cover 4 bytes of data, but the file holds 6"},
      {"metadata not strings", fileBytes("{\"__metadata__\":{\"k\":1}}", ""),
       "__metadata__ 'k' is not a string"},
      {"elements overflow",
       fileBytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1099511627776,1099511627776],"
                 "\"data_offsets\":[0,4]}}",
                 four),
       "more than 2^48 elements"},
  };
  for (const Damage &d : damages) {
    std::string path = dir.write("bad.safetensors", d.bytes);
    std::string error = openError(path);
    EXPECT_NE(error.find(d.expected), std::string::npos) << d.what << ": got '" << error << "'";
  }
  EXPECT_NE(openError(dir.file("missing.safetensors")).find("cannot open"), std::string::npos);
}

TEST(SafeTensors, RefusesIntegerTensorsAsParameters) {
  mt::testing::TempDir dir;
  std::string path = dir.write(
      "i.safetensors", fileBytes("{\"i\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
                                 std::string(8, '\0')));
  llvm::Expected<st::Reader> r = st::Reader::open(path);
  ASSERT_TRUE(bool(r));
  llvm::Expected<std::vector<float>> v = r->readF32(*r->find("i"));
  ASSERT_FALSE(bool(v));
  EXPECT_NE(llvm::toString(v.takeError()).find("tensor 'i' is I64"), std::string::npos);
}

} // namespace
