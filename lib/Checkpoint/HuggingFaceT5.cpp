//===- HuggingFaceT5.cpp - T5 as transformers' T5ForConditionalGeneration --===//
//
// Our T5's parameters carry transformers' names, stacked over encoder.block
// and decoder.block (each stack its own count of layers); each stack's
// relative position bias lives in its block 0 as in transformers' files.
// v1.0 (ReLU, lm_head tied to shared.weight) and v1.1 (gated GeLU, its own
// lm_head) are told apart by the parameters. The embeddings transformers
// ties to shared (encoder/decoder.embed_tokens, v1.0's lm_head) are copies
// save_pretrained leaves out; older files carry them.
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
using Arch = plan::ModelArchitecture;

constexpr const char *kEncoderRelative = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight";

/// What the shapes say of the model.
struct T5Shape {
  bool gated = false, tied = false;
  int64_t encoderLayers = 0, decoderLayers = 0, dKv = 0, dFf = 0, buckets = 0;
};

T5Shape t5Shape(const Arch &a, const Shapes &shapes) {
  T5Shape s;
  auto dim = [&](const std::string &name, size_t d) -> int64_t {
    auto it = shapes.find(name);
    return it == shapes.end() || it->second.size() <= d ? 0 : it->second[d];
  };
  s.gated = shapes.count("encoder.block.layer.1.DenseReluDense.wi_0.weight");
  s.tied = !shapes.count("lm_head.weight");
  s.encoderLayers = dim("encoder.block.layer.0.SelfAttention.q.weight", 0);
  s.decoderLayers = dim("decoder.block.layer.0.SelfAttention.q.weight", 0);
  s.dKv = a.heads() ? dim("encoder.block.layer.0.SelfAttention.q.weight", 1) / a.heads() : 0;
  s.dFf = dim(s.gated ? "encoder.block.layer.1.DenseReluDense.wi_0.weight"
                      : "encoder.block.layer.1.DenseReluDense.wi.weight",
              1);
  s.buckets = dim(kEncoderRelative, 0);
  return s;
}

/// What T5 cannot express in `a`, or "".
std::string unsupportedFeature(const Arch &a) {
  if (a.dataset() != Arch::T5)
    return "one sequence (the plan's model is not an encoder-decoder T5)";
  if (a.positions() != Arch::RELATIVE)
    return std::string(nameOf(a.positions())) + " positions (T5 learns relative position buckets)";
  if (a.relative_max_distance() <= 0)
    return "relative buckets the plan does not record (compiled by an older mtc): recompile the "
           "model";
  if (a.norm() != Arch::RMS_NORM)
    return std::string(nameOf(a.norm())) + " (T5's layer norm has no mean and no bias)";
  if (a.biases())
    return "linears with biases";
  return "";
}

/// transformers' name of the activation (dense_act_fn).
std::string activationName(const Arch &a) {
  return a.activation() == Arch::RELU ? "relu" : a.activation() == Arch::GELU_TANH ? "gelu_new"
         : a.activation() == Arch::SILU ? "silu" : "gelu";
}

/// feed_forward_proj as T5Config reads it: "gated-" and the activation,
/// where the legacy "gated-gelu" means GeLU's tanh form (gelu_new), so the
/// exact form is written "gated-gelu_python".
std::string feedForwardProj(const T5Shape &s, const Arch &a) {
  std::string act = activationName(a);
  if (!s.gated)
    return act;
  return act == "gelu_new" ? "gated-gelu" : act == "gelu" ? "gated-gelu_python" : "gated-" + act;
}

/// What config.json's feed_forward_proj means: gated, and which of our
/// activations (transformers' ACT2FN names), or "" for one we do not have.
std::pair<bool, std::string> parseFeedForwardProj(const std::string &proj) {
  llvm::StringRef text(proj);
  bool gated = text.consume_front("gated-");
  std::string act = text.str();
  if (proj == "gated-gelu")
    act = "gelu_new"; // T5Config's legacy meaning
  if (act == "gelu_python")
    act = "gelu";
  if (act == "gelu_pytorch_tanh")
    act = "gelu_new";
  return {gated, act == "relu" || act == "gelu" || act == "gelu_new" || act == "silu" ? act : ""};
}

Family t5Tensors(const plan::Config &c, const Shapes &shapes) {
  T5Shape s = t5Shape(c.architecture(), shapes);
  Family f;
  f.title = "T5";
  f.tiedCopies = {{"encoder.embed_tokens.weight", "shared.weight"},
                  {"decoder.embed_tokens.weight", "shared.weight"}};
  // The original t5-small/base/large files carry a cross-attention position
  // table no layer reads; transformers ignores it on load.
  f.buffers = {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"};
  if (s.tied)
    f.tiedCopies.push_back({"lm_head.weight", "shared.weight"});
  auto global = [&](const std::string &name, bool vocab = false) {
    TensorName t;
    t.ours = t.theirs = name;
    t.vocabRows = vocab;
    f.tensors.push_back(t);
  };
  auto layer = [&](const std::string &stack, const std::string &name) {
    TensorName t;
    t.stack = stack;
    t.theirs = name + ".weight";
    t.ours = stack + t.theirs;
    f.tensors.push_back(t);
  };
  auto attention = [&](const std::string &stack, const std::string &at) {
    for (const char *w : {"q", "k", "v", "o"})
      layer(stack, at + "." + w);
  };
  auto mlp = [&](const std::string &stack, const std::string &at) {
    std::vector<std::string> weights = s.gated ? std::vector<std::string>{"wi_0", "wi_1", "wo"}
                                               : std::vector<std::string>{"wi", "wo"};
    for (const std::string &w : weights)
      layer(stack, at + ".DenseReluDense." + w);
    layer(stack, at + ".layer_norm");
  };
  global("shared.weight", /*vocab=*/true);
  global(kEncoderRelative);
  attention("encoder.block.", "layer.0.SelfAttention");
  layer("encoder.block.", "layer.0.layer_norm");
  mlp("encoder.block.", "layer.1");
  global("encoder.final_layer_norm.weight");
  global("decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  attention("decoder.block.", "layer.0.SelfAttention");
  layer("decoder.block.", "layer.0.layer_norm");
  attention("decoder.block.", "layer.1.EncDecAttention");
  layer("decoder.block.", "layer.1.layer_norm");
  mlp("decoder.block.", "layer.2");
  global("decoder.final_layer_norm.weight");
  if (!s.tied)
    global("lm_head.weight", /*vocab=*/true);
  return f;
}

llvm::Expected<std::string> t5Config(const plan::Config &c, const Shapes &shapes,
                                     const std::string &torchDtype) {
  const Arch &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("Hugging Face T5 has no equivalent of {0}", why);
  T5Shape s = t5Shape(a, shapes);
  auto integer = [](int64_t v) { return std::to_string(v); };
  return configText({
      {"architectures", "[\n    \"T5ForConditionalGeneration\"\n  ]"},
      {"d_ff", integer(s.dFf)},
      {"d_kv", integer(s.dKv)},
      {"d_model", integer(a.hidden())},
      {"decoder_start_token_id", "0"},
      {"dense_act_fn", quoted(activationName(a))},
      {"dropout_rate", pythonFloat(a.hidden_dropout())},
      {"eos_token_id", "1"},
      {"feed_forward_proj", quoted(feedForwardProj(s, a))},
      {"initializer_factor", pythonFloat(1.0)},
      {"is_encoder_decoder", "true"},
      {"is_gated_act", s.gated ? "true" : "false"},
      {"layer_norm_epsilon", pythonFloat(a.norm_epsilon())},
      {"model_type", quoted("t5")},
      {"num_decoder_layers", integer(s.decoderLayers)},
      {"num_heads", integer(a.heads())},
      {"num_layers", integer(s.encoderLayers)},
      {"pad_token_id", "0"},
      {"relative_attention_max_distance", integer(a.relative_max_distance())},
      {"relative_attention_num_buckets", integer(s.buckets)},
      {"tie_word_embeddings", s.tied ? "true" : "false"},
      {"torch_dtype", quoted(torchDtype)},
      {"use_cache", "true"},
      {"vocab_size", integer(c.vocab_size())},
  });
}

Error checkT5Config(const ConfigChecker &check, const plan::Config &c, const Shapes &shapes) {
  const Arch &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("'{0}' describes T5, but the plan's model has {1}", check.path(), why);
  T5Shape s = t5Shape(a, shapes);
  const llvm::json::Object &o = check.json();
  for (auto [key, expected] : {std::pair<const char *, int64_t>{"num_layers", s.encoderLayers},
                               {"d_model", a.hidden()},
                               {"num_heads", a.heads()},
                               {"d_kv", s.dKv},
                               {"d_ff", s.dFf}})
    if (Error e = check.integer(key, expected))
      return e;
  // Absent keys take T5Config's defaults.
  int64_t decoderLayers = o.getInteger("num_decoder_layers").value_or(s.encoderLayers);
  if (decoderLayers != s.decoderLayers)
    return check.mismatch("num_decoder_layers", std::to_string(decoderLayers),
                          std::to_string(s.decoderLayers));
  if (int64_t buckets = o.getInteger("relative_attention_num_buckets").value_or(32);
      buckets != s.buckets)
    return check.mismatch("relative_attention_num_buckets", std::to_string(buckets),
                          std::to_string(s.buckets));
  if (int64_t distance = o.getInteger("relative_attention_max_distance").value_or(128);
      distance != a.relative_max_distance())
    return check.mismatch("relative_attention_max_distance", std::to_string(distance),
                          std::to_string(a.relative_max_distance()));
  if (Error e = check.number("layer_norm_epsilon", a.norm_epsilon()))
    return e;
  std::string proj = o.getString("feed_forward_proj").value_or("relu").str();
  if (parseFeedForwardProj(proj) != std::pair<bool, std::string>{s.gated, activationName(a)})
    return check.mismatch("feed_forward_proj", proj, feedForwardProj(s, a));
  return check.boolean("tie_word_embeddings", s.tied, /*absent=*/true);
}

} // namespace

const FamilyDefinition kT5 = {"T5", t5Tensors, t5Config, checkT5Config};

} // namespace hf
} // namespace mt
