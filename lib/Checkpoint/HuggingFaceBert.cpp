//===- HuggingFaceBert.cpp - BERT as BertForPreTraining or MegatronBert ----===//
//
// Our BERT's parameters carry transformers' names already (bert.*, cls.*),
// stacked over bert.encoder.layer. The post-LN layout is BertForPreTraining;
// Megatron's pre-LN layout (input_layernorm, post_attention_layernorm, a
// final layer norm, none on the embeddings) is MegatronBertForPreTraining,
// whose files call those attention.ln, ln and bert.encoder.ln. Both tie the
// masked-LM decoder to the word embeddings and its bias to
// cls.predictions.bias: save_pretrained leaves the copies out; older files
// carry them, and the position_ids buffer.
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

constexpr const char *kTokenTypes = "bert.embeddings.token_type_embeddings.weight";

/// What BERT cannot express in `a`, or "".
std::string unsupportedFeature(const Arch &a) {
  if (a.dataset() != Arch::BERT)
    return "no masked-LM and sentence-order heads (the plan's model is not BERT)";
  if (a.positions() != Arch::LEARNED)
    return std::string(nameOf(a.positions())) + " positions (BERT learns a position table)";
  if (a.norm() != Arch::LAYER_NORM)
    return std::string(nameOf(a.norm())) + " (BERT uses layer norm)";
  if (a.activation() != Arch::GELU && a.activation() != Arch::GELU_TANH)
    return "the " + std::string(nameOf(a.activation())) + " activation (BERT's is GeLU)";
  if (!a.biases())
    return "linears without biases";
  return "";
}

Family bertTensors(bool megatron) {
  Family f;
  f.title = megatron ? "MegatronBert" : "BERT";
  f.prefix = "bert.";
  f.tiedCopies = {{"cls.predictions.decoder.weight", "bert.embeddings.word_embeddings.weight"},
                  {"cls.predictions.decoder.bias", "cls.predictions.bias"}};
  f.buffers = {"embeddings.position_ids", "embeddings.token_type_ids"};
  auto global = [&](std::string theirs, bool vocab = false) {
    TensorName t;
    t.ours = "bert." + theirs;
    t.theirs = theirs;
    t.vocabRows = vocab;
    f.tensors.push_back(t);
  };
  // Each linear and norm has a weight and a bias.
  auto pair = [&](const std::string &ours, const std::string &theirs, bool layer) {
    for (const char *part : {".weight", ".bias"}) {
      TensorName t;
      t.stack = layer ? "encoder.layer." : "";
      t.ours = "bert." + t.stack + ours + part;
      t.theirs = theirs + part;
      f.tensors.push_back(t);
    }
  };
  auto same = [&](const std::string &name) { pair(name, name, true); };
  global("embeddings.word_embeddings.weight", /*vocab=*/true);
  global("embeddings.position_embeddings.weight");
  global("embeddings.token_type_embeddings.weight");
  if (!megatron)
    pair("embeddings.LayerNorm", "embeddings.LayerNorm", false);
  if (megatron)
    pair("input_layernorm", "attention.ln", true);
  for (const char *name : {"attention.self.query", "attention.self.key", "attention.self.value",
                           "attention.output.dense"})
    same(name);
  if (!megatron)
    same("attention.output.LayerNorm");
  if (megatron)
    pair("post_attention_layernorm", "ln", true);
  same("intermediate.dense");
  same("output.dense");
  if (!megatron)
    same("output.LayerNorm");
  if (megatron)
    pair("encoder.final_layernorm", "encoder.ln", false);
  pair("pooler.dense", "pooler.dense", false);
  // The heads sit outside the model prefix: cls.*.
  auto head = [&](const char *name, bool vocab = false) {
    TensorName t;
    t.ours = t.theirs = name;
    t.outsideModel = true;
    t.vocabRows = vocab;
    f.tensors.push_back(t);
  };
  head("cls.predictions.bias", /*vocab=*/true);
  for (const char *name :
       {"cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
        "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias",
        "cls.seq_relationship.weight", "cls.seq_relationship.bias"})
    head(name);
  return f;
}

int64_t typeVocab(const Shapes &shapes) {
  auto it = shapes.find(kTokenTypes);
  return it == shapes.end() || it->second.empty() ? 0 : it->second[0];
}

llvm::Expected<std::string> bertConfig(const plan::Config &c, const Shapes &shapes,
                                       const std::string &torchDtype, bool megatron) {
  const Arch &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("Hugging Face {0} has no equivalent of {1}", megatron ? "MegatronBert" : "BERT",
                  why);
  auto integer = [](int64_t v) { return std::to_string(v); };
  return configText({
      {"architectures", megatron ? "[\n    \"MegatronBertForPreTraining\"\n  ]"
                                 : "[\n    \"BertForPreTraining\"\n  ]"},
      {"attention_probs_dropout_prob", pythonFloat(a.attention_dropout())},
      {"hidden_act", quoted(a.activation() == Arch::GELU ? "gelu" : "gelu_new")},
      {"hidden_dropout_prob", pythonFloat(a.hidden_dropout())},
      {"hidden_size", integer(a.hidden())},
      {"initializer_range", pythonFloat(0.02)},
      {"intermediate_size", integer(a.ffn_hidden())},
      {"layer_norm_eps", pythonFloat(a.norm_epsilon())},
      {"max_position_embeddings", integer(a.max_positions())},
      {"model_type", quoted(megatron ? "megatron-bert" : "bert")},
      {"num_attention_heads", integer(a.heads())},
      {"num_hidden_layers", integer(a.layers())},
      {"pad_token_id", "0"},
      {"position_embedding_type", quoted("absolute")},
      {"torch_dtype", quoted(torchDtype)},
      {"type_vocab_size", integer(typeVocab(shapes))},
      {"use_cache", "true"},
      {"vocab_size", integer(c.vocab_size())},
  });
}

Error checkBertConfig(const ConfigChecker &check, const plan::Config &c, const Shapes &shapes,
                      bool megatron) {
  const Arch &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("'{0}' describes BERT, but the plan's model has {1}", check.path(), why);
  bool oursMegatron = shapes.count("bert.encoder.final_layernorm.weight");
  if (oursMegatron != megatron)
    return errorf("'{0}' describes {1}, but the plan's BERT is {2}: compile the other layout "
                  "(examples/gen_bert.py)",
                  check.path(),
                  megatron ? "Megatron's pre-LN BERT (megatron-bert)" : "post-LN BERT (bert)",
                  oursMegatron ? "Megatron's pre-LN one" : "the post-LN one");
  for (auto [key, expected] : {std::pair<const char *, int64_t>{"num_hidden_layers", a.layers()},
                               {"hidden_size", a.hidden()},
                               {"num_attention_heads", a.heads()},
                               {"intermediate_size", a.ffn_hidden()},
                               {"max_position_embeddings", a.max_positions()}})
    if (Error e = check.integer(key, expected))
      return e;
  if (Error e = check.integer("type_vocab_size", typeVocab(shapes), /*optional=*/true))
    return e;
  if (Error e = check.number("layer_norm_eps", a.norm_epsilon()))
    return e;
  std::string act = check.json().getString("hidden_act").value_or("gelu").str();
  std::string ours = a.activation() == Arch::GELU ? "gelu" : "gelu_new";
  if (act != ours)
    return check.mismatch("hidden_act", act, ours);
  std::string positions =
      check.json().getString("position_embedding_type").value_or("absolute").str();
  if (positions != "absolute")
    return check.mismatch("position_embedding_type", positions, "absolute");
  return Error::success();
}

} // namespace

const FamilyDefinition kBert = {
    "BERT", [](const plan::Config &, const Shapes &) { return bertTensors(false); },
    [](const plan::Config &c, const Shapes &s, const std::string &d) {
      return bertConfig(c, s, d, false);
    },
    [](const ConfigChecker &k, const plan::Config &c, const Shapes &s) {
      return checkBertConfig(k, c, s, false);
    }};

const FamilyDefinition kMegatronBert = {
    "MegatronBert", [](const plan::Config &, const Shapes &) { return bertTensors(true); },
    [](const plan::Config &c, const Shapes &s, const std::string &d) {
      return bertConfig(c, s, d, true);
    },
    [](const ConfigChecker &k, const plan::Config &c, const Shapes &s) {
      return checkBertConfig(k, c, s, true);
    }};

} // namespace hf
} // namespace mt
