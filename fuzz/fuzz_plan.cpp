//===- fuzz_plan.cpp - the plan loader and verifier -----------------------===//
// An input starting with 'R' is a whole plan file (header checks); any other
// is a plan's protobuf payload, framed and checksummed as mtc writes it, so
// the fuzzer reaches the payload's parsing and verifyPlan, which mt-run
// relies on before it touches any buffer a plan names.
#include "FuzzFiles.h"

#include "mt/Plan/PlanFile.h"
#include "mt/Plan/VerifyPlan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string path = mt::fuzz::scratchDir() + "/plan";
  std::string error;
  mt::plan::Plan plan;
  if (!bytes.empty() && bytes[0] == 'R') {
    mt::fuzz::writeFile(path, bytes.substr(1));
    if (!mt::readPlanFile(path, plan, error))
      return 0;
  } else {
    if (!plan.ParseFromArray(data, static_cast<int>(size)))
      return 0;
    if (!mt::writePlanFile(plan, path, error) || !mt::readPlanFile(path, plan, error))
      return 0;
  }
  if (llvm::Error e = mt::verifyPlan(plan)) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  mt::dumpPlan(plan);
  mt::planMesh(plan.config());
  return 0;
}
