//===- InferenceMemory.cpp - what running an inference plan holds ----------===//
#include "mt/Plan/InferenceMemory.h"

#include "mt/Plan/BufferNames.h"
#include "mt/Support/Format.h"

#include <algorithm>
#include <set>

namespace mt {

bool inferenceMemory(const plan::Plan &plan, InferenceMemory &memory, std::string &error) {
  memory = InferenceMemory();
  std::set<std::string> params, seen;
  for (const plan::Parameter &p : plan.parameters())
    params.insert(p.name());
  bool prefill = false, decode = false;
  for (const plan::Function &f : plan.functions()) {
    if (f.role() == plan::Function::PREFILL) {
      prefill = true;
      memory.prefillArena = f.arena_bytes();
    } else if (f.role() == plan::Function::DECODE) {
      decode = true;
      memory.decodeArena = f.arena_bytes();
    } else if (f.role() == plan::Function::ENCODE) {
      memory.encodeArena = f.arena_bytes();
    } else {
      continue;
    }
    for (const auto *specs : {&f.inputs(), &f.outputs()})
      for (const plan::TensorSpec &t : *specs) {
        if (!seen.insert(t.name()).second)
          continue;
        int64_t bytes = dtypeBytes(t.dtype());
        for (int64_t d : t.shape())
          bytes *= d;
        (params.count(t.name())         ? memory.parameters
         : buffers::isKvCache(t.name()) ? memory.kvCache
                                        : memory.inputsAndLogits) += bytes;
      }
  }
  if (!prefill || !decode) {
    error = "the plan has no prefill and decode functions: compile it with mtc --inference";
    return false;
  }
  return true;
}

std::string formatInferenceMemory(const plan::Plan &plan, const InferenceMemory &m) {
  int64_t caches = 0, crossCaches = 0, capacity = 0;
  for (const plan::Function &f : plan.functions()) {
    if (f.role() != plan::Function::DECODE)
      continue;
    for (const plan::TensorSpec &t : f.inputs()) {
      if (!buffers::isKvCache(t.name()))
        continue;
      if (std::count(f.updated_in_place().begin(), f.updated_in_place().end(), t.name()) == 0) {
        ++crossCaches; // an encoder-decoder's cross-attention keys or values
        continue;
      }
      ++caches;
      capacity = t.shape_size() == 4 ? t.shape(2) : 0;
    }
  }
  auto line = [](const std::string &what, int64_t bytes) {
    std::string label = what + ":", figure = withThousands(bytes);
    label.resize(std::max<size_t>(label.size(), 48), ' ');
    figure.insert(0, figure.size() < 16 ? 16 - figure.size() : 0, ' ');
    return "  " + label + figure + " bytes (" + humanBytes(bytes) + ")\n";
  };
  const plan::Config &c = plan.config();
  std::string prefill = crossCaches ? "encoder " + std::to_string(c.seq_length()) +
                                          " tokens, decoder prefill " +
                                          std::to_string(c.decoder_seq_length())
                                    : "prefill " + std::to_string(c.seq_length());
  int64_t tp = c.parallel().tensor_parallel_size();
  std::string ranks =
      tp > 1 ? "each of " + std::to_string(tp) + " tensor-parallel ranks, " : std::string();
  std::string out = "inference memory of " + c.model() + " (" + ranks + "batch " +
                    std::to_string(c.micro_batch_size()) + ", " + prefill +
                    " tokens a call, KV caches of " + std::to_string(capacity) + " positions):\n";
  out += line("parameters", m.parameters);
  std::string cross = crossCaches ? " + " + std::to_string(crossCaches) + " cross-attention" : "";
  out += line("KV cache (" + std::to_string(caches) + cross + " caches)", m.kvCache);
  out += line("tokens, position and logits", m.inputsAndLogits);
  std::string encode = crossCaches ? ", encode " + withThousands(m.encodeArena) : "";
  out += line("arena (prefill " + withThousands(m.prefillArena) + ", decode " +
                  withThousands(m.decodeArena) + encode + ")",
              m.arena());
  out += line("total", m.total());
  return out;
}

} // namespace mt
