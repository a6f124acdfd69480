//===- HuggingFaceGpt2.h - checkpoints as Hugging Face GPT-2 ---*- C++ -*-===//
//
// A checkpoint of a GPT-2-shaped model written as transformers'
// GPT2LMHeadModel writes itself (save_pretrained): model.safetensors with
// `transformer.` keys, Conv1D weights stored [in, out] (our linears' [out,
// in] transposed), the per-layer tensors of our stacked parameters split
// out (h.N.*), vocabulary padding removed, lm_head left out (tied to wte);
// and config.json. The architecture comes from the checkpoint's plan
// record (ModelArchitecture); a model Hugging Face GPT-2 cannot express
// is refused, naming the feature.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_HUGGINGFACEGPT2_H
#define MT_CHECKPOINT_HUGGINGFACEGPT2_H

#include "mt/Checkpoint/CheckpointReader.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mt {

/// Writes `reader`'s parameters into directory `dir` (created) as
/// model.safetensors and config.json.
llvm::Error exportHuggingFaceGpt2(CheckpointReader &reader, const std::string &dir);

/// config.json for `config`'s model, as transformers writes it (keys
/// sorted, two-space indent).
llvm::Expected<std::string> huggingFaceGpt2Config(const plan::Config &config);

} // namespace mt

#endif // MT_CHECKPOINT_HUGGINGFACEGPT2_H
