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

#include <map>
#include <string>
#include <vector>

namespace mt {

/// Writes `reader`'s parameters into directory `dir` (created) as
/// model.safetensors and config.json.
llvm::Error exportHuggingFaceGpt2(CheckpointReader &reader, const std::string &dir);

/// config.json for `config`'s model, as transformers writes it (keys
/// sorted, two-space indent).
llvm::Expected<std::string> huggingFaceGpt2Config(const plan::Config &config);

/// The parameters of `plan`'s model read from a Hugging Face GPT-2
/// directory (model.safetensors and config.json), in the plan's global
/// shapes (padding rows zero): name -> values. Keys with and without the
/// `transformer.` prefix are read; the attention-mask buffers older files
/// carry are skipped; a `lm_head.weight` must equal `wte`; an embedding padded
/// by another converter keeps its first vocab_size rows. `notes` receives
/// what was dropped or skipped.
llvm::Expected<std::map<std::string, std::vector<float>>>
importHuggingFaceGpt2(const std::string &dir, const plan::Plan &plan, std::string &notes);

/// Writes `values` (importHuggingFaceGpt2's) as iteration 0 of a checkpoint
/// in `plan`'s layout under `saveDir`, AdamW's moments zero.
llvm::Error writeImportedCheckpoint(const plan::Plan &plan,
                                    const std::map<std::string, std::vector<float>> &values,
                                    const std::string &saveDir);

} // namespace mt

#endif // MT_CHECKPOINT_HUGGINGFACEGPT2_H
