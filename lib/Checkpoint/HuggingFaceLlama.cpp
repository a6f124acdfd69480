//===- HuggingFaceLlama.cpp - Llama as transformers' LlamaForCausalLM ------===//
//
// model.safetensors (or shards with model.safetensors.index.json) with
// `model.` keys, lm_head.weight outside them unless tie_word_embeddings;
// linears [out, in] as ours. transformers turns each head's feature pairs
// (i, i + d/2) (rotate_half); our mt.rotary turns (2i, 2i + 1) as Meta's
// original code does. Their q_proj and k_proj rows are ours permuted within
// each head: ours[h*d + 2i + c] = theirs[h*d + c*d/2 + i], the permutation
// transformers' own convert_llama_weights_to_hf applies. Mistral's config
// describes the same graph when its sliding window covers the sequence.
//
//===----------------------------------------------------------------------===//
#include "HuggingFaceFamily.h"

#include "mt/Plan/PlanEnums.h"
#include "mt/Support/Errors.h"

#include "llvm/Support/FormatVariadic.h"

namespace mt {
namespace hf {
namespace {

using llvm::Error;
using llvm::formatv;
using Arch = plan::ModelArchitecture;

/// Each head's features: q_proj's rows over the heads (heads x head_dim need
/// not be hidden, as in Mistral-Nemo).
int64_t headDim(const Arch &a, const Shapes &shapes) {
  auto q = shapes.find("layers.self_attn.q_proj.weight");
  if (q != shapes.end() && q->second.size() == 3 && a.heads())
    return q->second[1] / a.heads();
  return a.heads() ? a.hidden() / a.heads() : 0;
}

/// What Hugging Face Llama cannot express in `a`, or "".
std::string unsupportedFeature(const Arch &a, const Shapes &shapes) {
  if (a.positions() != Arch::ROTARY)
    return std::string(nameOf(a.positions())) + " positions (Llama turns queries and keys: rotary)";
  if (a.rotary_base() <= 0)
    return "a rotary base the plan does not record (compiled by an older mtc): recompile the model";
  if (a.rotary_dim() != 0 && a.rotary_dim() != headDim(a, shapes))
    return formatv("rotary positions on {0} of each head's {1} features (Llama turns them all)",
                   a.rotary_dim(), headDim(a, shapes))
        .str();
  if (a.biases())
    return "linears with biases (the plan's Llama-style model has none)";
  if (a.hidden_dropout() != 0)
    return "hidden dropout (Llama has attention dropout only)";
  return "";
}

bool isLlama(const Arch &a) {
  return a.norm() == Arch::RMS_NORM && a.activation() == Arch::SILU && a.dataset() == Arch::GPT;
}

Family llamaTensors(const plan::Config &c, const Shapes &) {
  const Arch &a = c.architecture();
  Family f;
  f.title = "Llama";
  f.prefix = "model.";
  // Llama-2-era files carry each layer's rotary frequencies as a buffer.
  f.buffers = {".self_attn.rotary_emb.inv_freq"};
  auto add = [&](const char *name, bool perLayer, int64_t rotaryHeads = 0) {
    TensorName t;
    t.ours = perLayer ? std::string("layers.") + name : name;
    t.theirs = name;
    t.stack = perLayer ? "layers." : "";
    t.rotaryHeads = rotaryHeads;
    f.tensors.push_back(t);
  };
  add("embed_tokens.weight", false);
  f.tensors.back().vocabRows = true;
  add("input_layernorm.weight", true);
  add("self_attn.q_proj.weight", true, a.heads());
  add("self_attn.k_proj.weight", true, a.kv_heads());
  add("self_attn.v_proj.weight", true);
  add("self_attn.o_proj.weight", true);
  add("post_attention_layernorm.weight", true);
  add("mlp.gate_proj.weight", true);
  add("mlp.up_proj.weight", true);
  add("mlp.down_proj.weight", true);
  add("norm.weight", false);
  if (a.tied_embeddings()) {
    f.tiedCopies = {{"lm_head.weight", "embed_tokens.weight"}};
  } else {
    add("lm_head.weight", false);
    f.tensors.back().outsideModel = true;
    f.tensors.back().vocabRows = true;
  }
  return f;
}

llvm::Expected<std::string> llamaConfig(const plan::Config &c, const Shapes &shapes,
                                        const std::string &torchDtype) {
  const Arch &a = c.architecture();
  if (std::string why = unsupportedFeature(a, shapes); !why.empty())
    return errorf("Hugging Face Llama has no equivalent of {0}", why);
  auto integer = [](int64_t v) { return std::to_string(v); };
  return configText({
      {"architectures", "[\n    \"LlamaForCausalLM\"\n  ]"},
      {"attention_bias", "false"},
      {"attention_dropout", pythonFloat(a.attention_dropout())},
      {"bos_token_id", "1"}, // LlamaConfig's defaults, as save_pretrained writes them
      {"eos_token_id", "2"},
      {"head_dim", integer(headDim(a, shapes))},
      {"hidden_act", quoted("silu")},
      {"hidden_size", integer(a.hidden())},
      {"initializer_range", pythonFloat(0.02)},
      {"intermediate_size", integer(a.ffn_hidden())},
      {"max_position_embeddings", integer(c.seq_length())},
      {"mlp_bias", "false"},
      {"model_type", quoted("llama")},
      {"num_attention_heads", integer(a.heads())},
      {"num_hidden_layers", integer(a.layers())},
      {"num_key_value_heads", integer(a.kv_heads())},
      {"pretraining_tp", "1"},
      {"rms_norm_eps", pythonFloat(a.norm_epsilon())},
      {"rope_scaling", "null"},
      {"rope_theta", pythonFloat(a.rotary_base())},
      {"tie_word_embeddings", a.tied_embeddings() ? "true" : "false"},
      {"torch_dtype", quoted(torchDtype)},
      {"use_cache", "true"},
      {"vocab_size", integer(c.vocab_size())},
  });
}

Error checkLlamaConfig(const ConfigChecker &check, const plan::Config &c, const Shapes &shapes) {
  const Arch &a = c.architecture();
  const llvm::json::Object &o = check.json();
  if (!isLlama(a))
    return errorf("'{0}' describes a Llama-family model, but the plan's model is not one (it "
                  "has {1}, {2}): compile a Llama-style model (examples/gen_llama.py)",
                  check.path(), nameOf(a.norm()), nameOf(a.activation()));
  if (std::string why = unsupportedFeature(a, shapes); !why.empty())
    return errorf("'{0}' describes Llama, but the plan's model has {1}", check.path(), why);
  for (auto [key, expected] : {std::pair<const char *, int64_t>{"num_hidden_layers", a.layers()},
                               {"hidden_size", a.hidden()},
                               {"num_attention_heads", a.heads()},
                               {"intermediate_size", a.ffn_hidden()}})
    if (Error e = check.integer(key, expected))
      return e;
  // Absent keys take LlamaConfig's defaults.
  if (Error e = check.integer("num_key_value_heads", a.kv_heads(), /*optional=*/true))
    return e;
  if (o.getInteger("head_dim"))
    if (Error e = check.integer("head_dim", headDim(a, shapes)))
      return e;
  if (Error e = check.number("rms_norm_eps", a.norm_epsilon()))
    return e;
  if (!o.get("rope_theta") && a.rotary_base() != 10000.0)
    return check.mismatch("rope_theta", "10000.0 (absent: the default)",
                          pythonFloat(a.rotary_base()));
  if (Error e = check.number("rope_theta", a.rotary_base()))
    return e;
  if (Error e = check.boolean("tie_word_embeddings", a.tied_embeddings(), /*absent=*/false))
    return e;
  if (Error e = check.boolean("attention_bias", false, false))
    return e;
  if (Error e = check.boolean("mlp_bias", false, false))
    return e;
  std::string act = o.getString("hidden_act").value_or("silu").str();
  if (act != "silu")
    return check.mismatch("hidden_act", act, "silu (SwiGLU)");
  if (const llvm::json::Value *scaling = o.get("rope_scaling"); scaling && !scaling->getAsNull())
    return errorf("'{0}' scales its rotary positions (rope_scaling); mt.rotary has no scaling",
                  check.path());
  if (std::optional<double> factor = o.getNumber("partial_rotary_factor"); factor && *factor != 1)
    return check.mismatch("partial_rotary_factor", pythonFloat(*factor), "1.0 (every feature)");
  if (std::optional<int64_t> window = o.getInteger("sliding_window");
      window && *window < c.seq_length())
    return errorf("'{0}' has sliding_window = {1}, shorter than the plan's sequence of {2}; the "
                  "plan's model attends to every earlier position",
                  check.path(), *window, c.seq_length());
  return Error::success();
}

} // namespace

const FamilyDefinition kLlama = {"Llama", llamaTensors, llamaConfig, checkLlamaConfig};

} // namespace hf
} // namespace mt
