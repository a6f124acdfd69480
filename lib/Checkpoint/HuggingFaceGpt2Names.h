//===- HuggingFaceGpt2Names.h - our GPT-2 parameters, Hugging Face's names -*- C++ -*-===//
//
// Shared by the exporter and the importer. Hugging Face names are given
// without the model prefix ("transformer." in GPT2LMHeadModel files, none
// in GPT2Model's); per-layer ones follow "h.N.".
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CHECKPOINT_HUGGINGFACEGPT2NAMES_H
#define MT_LIB_CHECKPOINT_HUGGINGFACEGPT2NAMES_H

namespace mt {
namespace hf_gpt2 {

/// Our parameter, its Hugging Face name, whether it is stacked over the
/// layers, and whether Hugging Face stores it transposed (Conv1D: [in, out]).
struct Name {
  const char *ours;
  const char *theirs;
  bool perLayer;
  bool transposed;
};

inline constexpr Name kNames[] = {
    {"wte", "wte.weight", false, false},
    {"wpe", "wpe.weight", false, false},
    {"h.ln_1.weight", "ln_1.weight", true, false},
    {"h.ln_1.bias", "ln_1.bias", true, false},
    {"h.attn.qkv.weight", "attn.c_attn.weight", true, true},
    {"h.attn.qkv.bias", "attn.c_attn.bias", true, false},
    {"h.attn.proj.weight", "attn.c_proj.weight", true, true},
    {"h.attn.proj.bias", "attn.c_proj.bias", true, false},
    {"h.ln_2.weight", "ln_2.weight", true, false},
    {"h.ln_2.bias", "ln_2.bias", true, false},
    {"h.mlp.fc.weight", "mlp.c_fc.weight", true, true},
    {"h.mlp.fc.bias", "mlp.c_fc.bias", true, false},
    {"h.mlp.proj.weight", "mlp.c_proj.weight", true, true},
    {"h.mlp.proj.bias", "mlp.c_proj.bias", true, false},
    {"ln_f.weight", "ln_f.weight", false, false},
    {"ln_f.bias", "ln_f.bias", false, false},
};

/// The prefix transformers' GPT2LMHeadModel writes.
inline constexpr const char *kModelPrefix = "transformer.";

} // namespace hf_gpt2
} // namespace mt

#endif // MT_LIB_CHECKPOINT_HUGGINGFACEGPT2NAMES_H
