//===- PlanFile.cpp - reading and writing plan files -----------------------===//
#include "mt/Plan/PlanFile.h"
#include "mt/Plan/VerifyPlan.h"
#include "mt/Support/DurableFiles.h"
#include "mt/Support/FramedFile.h"

#include <google/protobuf/text_format.h>

#include <cstdio>
#include <cstring>
#include <sstream>

namespace mt {

namespace {

constexpr char kMagic[8] = {'M', 'T', 'P', 'L', 'A', 'N', 0, 0};

} // namespace

int64_t dtypeBytes(plan::DType type) {
  switch (type) {
  case plan::F64:
  case plan::I64:
    return 8;
  case plan::BF16:
  case plan::F16:
    return 2;
  case plan::I1:
    return 1;
  default:
    return 4;
  }
}

MeshShape planMesh(const plan::Config &config) {
  const plan::Parallelism &p = config.parallel();
  auto atLeastOne = [](int64_t v) { return v > 0 ? v : 1; };
  return MeshShape({"pp", "dp", "tp"},
                   {atLeastOne(p.pipeline_parallel_size()), atLeastOne(p.data_parallel_size()),
                    atLeastOne(p.tensor_parallel_size())});
}

uint64_t fnv1a64(const std::string &data) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool writePlanFile(const plan::Plan &plan, const std::string &path, std::string &error) {
  std::string payload;
  if (!plan.SerializeToString(&payload)) {
    error = "cannot serialize the plan";
    return false;
  }
  std::string file = frame(kMagic, kPlanFormatVersion, payload, fnv1a64(payload));
  // Durably, as checkpoints: a crash leaves the old plan or the new one.
  return replaceDurably(path, file.data(), file.size(), error);
}

bool readPlanFile(const std::string &path, plan::Plan &plan, std::string &error) {
  FrameHeader header;
  std::string payload;
  if (!readFrame(path, kMagic, "plan", "an mtc plan (bad magic; compile one with mtc ... -o PLAN)",
                 header, payload, error))
    return false;
  if (header.version != kPlanFormatVersion) {
    error = "'" + path + "' has plan format version " + std::to_string(header.version) +
            " but this mt-run reads version " + std::to_string(kPlanFormatVersion) +
            "; recompile the model with this release's mtc";
    return false;
  }
  if (fnv1a64(payload) != header.checksum) {
    error = "'" + path + "' is corrupted: its checksum does not match its contents";
    return false;
  }
  if (!plan.ParseFromString(payload)) {
    error = "'" + path + "' has a valid header but an unreadable payload";
    return false;
  }
  if (llvm::Error e = verifyPlan(plan)) {
    error = "'" + path + "': " + llvm::toString(std::move(e));
    return false;
  }
  return true;
}

std::string dumpPlan(const plan::Plan &original) {
  plan::Plan copy = original;
  std::ostringstream summary;
  for (plan::CodeObject &code : *copy.mutable_code()) {
    summary << "# code object '" << code.name() << "' (" << plan::CodeObject::Kind_Name(code.kind())
            << " for " << code.cpu();
    if (code.kernels())
      summary << ", " << code.kernels() << " kernels";
    summary << "): " << code.data().size() << " bytes, fnv1a64 " << std::hex << fnv1a64(code.data())
            << std::dec << "\n";
    code.clear_data();
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(copy, &text);
  return summary.str() + text;
}

} // namespace mt
