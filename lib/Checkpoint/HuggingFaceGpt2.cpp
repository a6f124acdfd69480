//===- HuggingFaceGpt2.cpp - GPT-2 as transformers' GPT2LMHeadModel --------===//
//
// model.safetensors with `transformer.` keys (GPT2Model's files have none),
// Conv1D weights stored [in, out] (our linears' [out, in] transposed),
// lm_head left out (tied to wte). Older files carry the causal mask as
// buffers (h.N.attn.bias, masked_bias).
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

/// What Hugging Face GPT-2 cannot express in `a`, or "".
std::string unsupportedFeature(const plan::ModelArchitecture &a) {
  if (a.layers() == 0)
    return "the checkpoint records no architecture (saved from a plan compiled before mtc "
           "recorded one): recompile the model, load the checkpoint and save it again";
  using Arch = plan::ModelArchitecture;
  if (a.positions() != Arch::LEARNED)
    return std::string(nameOf(a.positions())) + " positions (GPT-2 learns a position table)";
  if (a.norm() != Arch::LAYER_NORM)
    return std::string(nameOf(a.norm())) + " (GPT-2 uses layer norm)";
  if (a.activation() != Arch::GELU_TANH && a.activation() != Arch::GELU)
    return "the " + std::string(nameOf(a.activation())) +
           " activation (GPT-2's MLP is fc, GeLU, proj)";
  if (!a.tied_embeddings())
    return "an output layer of its own (GPT2LMHeadModel ties lm_head to wte)";
  if (!a.biases())
    return "linears without biases (GPT-2's Conv1D layers have them)";
  if (a.kv_heads() != a.heads())
    return formatv("grouped-query attention ({0} key/value heads for {1} query heads)",
                   a.kv_heads(), a.heads())
        .str();
  return "";
}

Family gpt2Tensors(const plan::Config &, const Shapes &) {
  Family f;
  f.title = "GPT-2";
  f.prefix = "transformer.";
  f.tiedCopies = {{"lm_head.weight", "wte"}};
  f.buffers = {".attn.bias", ".attn.masked_bias"};
  auto global = [&](const char *ours, const char *theirs, bool vocab = false) {
    TensorName t;
    t.ours = ours;
    t.theirs = theirs;
    t.vocabRows = vocab;
    f.tensors.push_back(t);
  };
  auto layer = [&](const char *ours, const char *theirs, bool transposed = false) {
    TensorName t;
    t.ours = ours;
    t.theirs = theirs;
    t.stack = "h.";
    t.transposed = transposed;
    f.tensors.push_back(t);
  };
  global("wte", "wte.weight", /*vocab=*/true);
  global("wpe", "wpe.weight");
  layer("h.ln_1.weight", "ln_1.weight");
  layer("h.ln_1.bias", "ln_1.bias");
  layer("h.attn.qkv.weight", "attn.c_attn.weight", /*transposed=*/true);
  layer("h.attn.qkv.bias", "attn.c_attn.bias");
  layer("h.attn.proj.weight", "attn.c_proj.weight", true);
  layer("h.attn.proj.bias", "attn.c_proj.bias");
  layer("h.ln_2.weight", "ln_2.weight");
  layer("h.ln_2.bias", "ln_2.bias");
  layer("h.mlp.fc.weight", "mlp.c_fc.weight", true);
  layer("h.mlp.fc.bias", "mlp.c_fc.bias");
  layer("h.mlp.proj.weight", "mlp.c_proj.weight", true);
  layer("h.mlp.proj.bias", "mlp.c_proj.bias");
  global("ln_f.weight", "ln_f.weight");
  global("ln_f.bias", "ln_f.bias");
  return f;
}

llvm::Expected<std::string> gpt2Config(const plan::Config &c, const Shapes &,
                                       const std::string &torchDtype) {
  const plan::ModelArchitecture &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("Hugging Face GPT-2 has no equivalent of {0}", why);
  auto integer = [](int64_t v) { return std::to_string(v); };
  std::vector<std::pair<std::string, std::string>> config = {
      {"activation_function",
       quoted(a.activation() == plan::ModelArchitecture::GELU_TANH ? "gelu_new" : "gelu")},
      {"architectures", "[\n    \"GPT2LMHeadModel\"\n  ]"},
      {"attn_pdrop", pythonFloat(a.attention_dropout())},
      {"embd_pdrop", pythonFloat(a.hidden_dropout())},
      {"initializer_range", pythonFloat(0.02)},
      {"layer_norm_epsilon", pythonFloat(a.norm_epsilon())},
      {"model_type", quoted("gpt2")},
      {"n_embd", integer(a.hidden())},
      {"n_head", integer(a.heads())},
      {"n_inner", a.ffn_hidden() == 4 * a.hidden() ? "null" : integer(a.ffn_hidden())},
      {"n_layer", integer(a.layers())},
      {"n_positions", integer(a.max_positions())},
      {"resid_pdrop", pythonFloat(a.hidden_dropout())},
      {"scale_attn_weights", "true"},
      {"torch_dtype", quoted(torchDtype)},
      {"use_cache", "true"},
      {"vocab_size", integer(c.vocab_size())},
  };
  // GPT-2's tokenizer ends (and starts) documents with <|endoftext|>, 50256.
  if (c.vocab_size() == 50257) {
    config.push_back({"bos_token_id", "50256"});
    config.push_back({"eos_token_id", "50256"});
  }
  return configText(config);
}

Error checkGpt2Config(const ConfigChecker &check, const plan::Config &c, const Shapes &) {
  const plan::ModelArchitecture &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("'{0}' describes GPT-2, but the plan's model has {1}", check.path(), why);
  for (auto [key, expected] : {std::pair<const char *, int64_t>{"n_layer", a.layers()},
                               {"n_embd", a.hidden()},
                               {"n_head", a.heads()},
                               {"n_positions", a.max_positions()}})
    if (Error e = check.integer(key, expected))
      return e;
  if (Error e = check.number("layer_norm_epsilon", a.norm_epsilon()))
    return e;
  std::string act = check.json().getString("activation_function").value_or("gelu_new").str();
  std::string ours = act == "gelu_new" ? "gelu_tanh" : act;
  if (ours != nameOf(a.activation()))
    return check.mismatch("activation_function", act, std::string(nameOf(a.activation())));
  if (check.json().getInteger("n_inner"))
    return check.integer("n_inner", a.ffn_hidden());
  return Error::success();
}

} // namespace

const FamilyDefinition kGpt2 = {"GPT-2", gpt2Tensors, gpt2Config, checkGpt2Config};

} // namespace hf
} // namespace mt
