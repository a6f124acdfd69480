//===- HuggingFace.h - checkpoints as Hugging Face model files --*- C++ -*-===//
//
// A checkpoint's model written as transformers' save_pretrained writes it,
// and such files made into a checkpoint of any plan's layout. The family
// comes from the checkpoint's recorded architecture (export) or config.json's
// model_type (import): GPT2LMHeadModel, LlamaForCausalLM (and Mistral's
// config of the same graph). Per-layer tensors of our stacked parameters are
// split out, vocabulary padding removed or added, and each family's storage
// conventions applied (HuggingFaceGpt2.cpp, HuggingFaceLlama.cpp). A model
// the family cannot express is refused, naming the feature; config.json is
// checked against the plan field by field. Both stream: one parameter (export)
// or one layer's tensor (import) in memory at a time.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_HUGGINGFACE_H
#define MT_CHECKPOINT_HUGGINGFACE_H

#include "mt/Checkpoint/CheckpointReader.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mt {

struct HuggingFaceExport {
  std::string dtype = "F32"; // or "BF16", "F16": the files' tensors
  // save_pretrained's default max_shard_size ("5GB").
  uint64_t maxShardBytes = 5'000'000'000;
};

/// What an export wrote: the family and the files.
struct HuggingFaceExported {
  std::string family; // "GPT-2", "Llama"
  std::vector<std::string> files;
};

/// Writes `reader`'s model into directory `dir` (created): config.json and
/// model.safetensors, or shards with model.safetensors.index.json.
llvm::Expected<HuggingFaceExported> exportHuggingFace(CheckpointReader &reader,
                                                      const std::string &dir,
                                                      const HuggingFaceExport &options);

/// Writes iteration 0 of a checkpoint of `plan`'s model under `saveDir`,
/// its parameters read from Hugging Face directory `hfDir`: weights only
/// (AdamW's moments load as zeros). `notes` receives what was skipped, dropped or worth knowing
/// (the tokenizer), each ending in "; ".
llvm::Error importHuggingFace(const std::string &hfDir, const plan::Plan &plan,
                              const std::string &saveDir, std::string &notes);

} // namespace mt

#endif // MT_CHECKPOINT_HUGGINGFACE_H
