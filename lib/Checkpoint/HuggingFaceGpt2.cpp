//===- HuggingFaceGpt2.cpp - checkpoints as Hugging Face GPT-2 -------------===//
#include "mt/Checkpoint/HuggingFaceGpt2.h"

#include "mt/Checkpoint/SafeTensors.h"
#include "mt/Plan/PlanEnums.h"

#include "HuggingFaceGpt2Names.h"
#include "mt/Plan/PlanFile.h"

#include "mt/Support/Errors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace mt {
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

/// Rows [0, rows) of a row-major float matrix of `cols` columns, layer `layer`
/// of a stack, transposed when asked.
std::vector<float> extract(const std::vector<float> &whole, const std::vector<int64_t> &shape,
                           bool perLayer, int64_t layer, bool transposed, int64_t keepRows,
                           std::vector<int64_t> &outShape) {
  std::vector<int64_t> inner(shape.begin() + (perLayer ? 1 : 0), shape.end());
  int64_t innerElements = 1;
  for (int64_t d : inner)
    innerElements *= d;
  const float *base = whole.data() + (perLayer ? layer * innerElements : 0);
  if (keepRows >= 0 && !inner.empty())
    inner[0] = keepRows;
  int64_t n = 1;
  for (int64_t d : inner)
    n *= d;
  std::vector<float> out(base, base + n);
  outShape = inner;
  if (transposed && inner.size() == 2) {
    int64_t rows = inner[0], cols = inner[1];
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out[c * rows + r] = base[r * cols + c];
    outShape = {cols, rows};
  }
  return out;
}

/// A number as Python's json.dumps writes it: the shortest text that reads
/// back the same double, with ".0" on whole numbers.
std::string pythonFloat(double d) {
  char text[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, d);
    if (std::strtod(text, nullptr) == d)
      break;
  }
  std::string s = text;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

/// `text` as a JSON string literal.
std::string quoted(llvm::StringRef text) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(text.str());
  return out;
}

} // namespace

llvm::Expected<std::string> huggingFaceGpt2Config(const plan::Config &c) {
  const plan::ModelArchitecture &a = c.architecture();
  if (std::string why = unsupportedFeature(a); !why.empty())
    return errorf("Hugging Face GPT-2 has no equivalent of {0}", why);
  // Each value as json.dumps writes it; the keys sorted, as
  // json.dumps(sort_keys=True, indent=2) does.
  auto integer = [](int64_t v) { return std::to_string(v); };
  std::map<std::string, std::string> config = {
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
      {"torch_dtype", quoted("float32")},
      {"use_cache", "true"},
      {"vocab_size", integer(c.vocab_size())},
  };
  // GPT-2's tokenizer ends (and starts) documents with <|endoftext|>, 50256.
  if (c.vocab_size() == 50257) {
    config["bos_token_id"] = "50256";
    config["eos_token_id"] = "50256";
  }
  std::string out = "{\n";
  size_t i = 0;
  for (const auto &[key, value] : config)
    out += "  " + quoted(key) + ": " + value + (++i < config.size() ? ",\n" : "\n");
  return out + "}\n";
}

Error exportHuggingFaceGpt2(CheckpointReader &reader, const std::string &dir) {
  const ckpt::Manifest &m = reader.manifest();
  llvm::Expected<std::string> config = huggingFaceGpt2Config(m.saved_from());
  if (!config)
    return config.takeError();
  const plan::ModelArchitecture &a = m.saved_from().architecture();
  std::map<std::string, int64_t> params; // our name -> tensor index
  for (int i = 0; i < m.tensors_size(); ++i)
    if (m.tensors(i).role() == ckpt::PARAM)
      params[m.tensors(i).name()] = i;
  for (const hf_gpt2::Name &n : hf_gpt2::kNames)
    if (!params.count(n.ours))
      return errorf("checkpoint '{0}' has no parameter '{1}', which GPT-2's {2} needs",
                    reader.directory(), n.ours, n.theirs);
  for (const auto &[name, index] : params)
    if (std::none_of(std::begin(hf_gpt2::kNames), std::end(hf_gpt2::kNames),
                     [&](const hf_gpt2::Name &n) { return name == n.ours; }))
      return errorf("parameter '{0}' of checkpoint '{1}' has no place in Hugging Face GPT-2", name,
                    reader.directory());

  std::vector<safetensors::TensorToWrite> tensors;
  for (const hf_gpt2::Name &n : hf_gpt2::kNames) {
    const ckpt::Tensor &t = m.tensors(static_cast<int>(params[n.ours]));
    std::vector<unsigned char> bytes;
    std::string error;
    if (!reader.readWhole(params[n.ours], bytes, error))
      return errorf("{0}", error);
    std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
    size_t count = bytes.size() / static_cast<size_t>(dtypeBytes(t.dtype()));
    std::vector<float> whole(count);
    if (t.dtype() == plan::F64) {
      for (size_t i = 0; i < count; ++i) {
        double d;
        std::memcpy(&d, bytes.data() + 8 * i, 8);
        whole[i] = static_cast<float>(d);
      }
    } else {
      std::memcpy(whole.data(), bytes.data(), count * 4);
    }
    if (n.perLayer && (shape.empty() || shape[0] != a.layers()))
      return errorf("parameter '{0}' stacks {1} layers, but the model has {2}", n.ours,
                    shape.empty() ? 0 : shape[0], a.layers());
    // The vocabulary's padding rows are ours, not the model's.
    int64_t keepRows = t.unpadded_rows() > 0 ? t.unpadded_rows() : -1;
    for (int64_t l = 0; l < (n.perLayer ? a.layers() : 1); ++l) {
      safetensors::TensorToWrite out;
      out.name = std::string(hf_gpt2::kModelPrefix) +
                 (n.perLayer ? formatv("h.{0}.{1}", l, n.theirs).str() : n.theirs);
      out.values = extract(whole, shape, n.perLayer, l, n.transposed, keepRows, out.shape);
      tensors.push_back(std::move(out));
    }
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return errorf("cannot create '{0}': {1}", dir, ec.message());
  if (Error e =
          safetensors::write(dir + "/model.safetensors", std::move(tensors), {{"format", "pt"}}))
    return e;
  std::string path = dir + "/config.json";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return errorf("cannot write '{0}': {1}", path, ec.message());
  os << *config;
  os.close();
  if (os.has_error())
    return errorf("cannot write '{0}': {1}", path, os.error().message());
  return Error::success();
}

} // namespace mt
