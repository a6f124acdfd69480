//===- InferenceMemory.h - what running an inference plan holds -*- C++ -*-===//
//
// An inference plan (mtc --inference) holds one buffer per name its prefill
// and decode functions (and an encoder-decoder's encode function) use
// (parameters, KV caches, tokens, position, logits) and one arena they
// share, sized for the largest. mt-generate
// allocates exactly that, so this figure is known before anything runs.
//
//===----------------------------------------------------------------------===//
#ifndef MT_PLAN_INFERENCEMEMORY_H
#define MT_PLAN_INFERENCEMEMORY_H

#include "mt/Plan/PlanFile.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace mt {

struct InferenceMemory {
  int64_t parameters = 0;
  int64_t kvCache = 0;
  int64_t inputsAndLogits = 0; // tokens, position, both functions' logits
  int64_t prefillArena = 0, decodeArena = 0, encodeArena = 0;
  int64_t arena() const { return std::max({prefillArena, decodeArena, encodeArena}); }
  int64_t total() const { return parameters + kvCache + inputsAndLogits + arena(); }
};

/// False with `error` when `plan` has no prefill or decode function.
bool inferenceMemory(const plan::Plan &plan, InferenceMemory &memory, std::string &error);

/// The table mtc --inference --report-memory prints.
std::string formatInferenceMemory(const plan::Plan &plan, const InferenceMemory &memory);

} // namespace mt

#endif // MT_PLAN_INFERENCEMEMORY_H
