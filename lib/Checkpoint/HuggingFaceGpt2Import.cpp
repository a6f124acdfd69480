//===- HuggingFaceGpt2Import.cpp - Hugging Face GPT-2 into a checkpoint ----===//
#include "mt/Checkpoint/HuggingFaceGpt2.h"

#include "mt/Checkpoint/CheckpointWriter.h"
#include "mt/Checkpoint/SafeTensors.h"
#include "mt/Plan/PlanEnums.h"

#include "HuggingFaceGpt2Names.h"
#include "mt/Plan/PlanFile.h"

#include "mt/Support/Errors.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstring>
#include <set>

namespace mt {
namespace {

using llvm::Error;
using llvm::formatv;

/// config.json against the plan's recorded architecture, field by field.
Error checkConfig(const std::string &path, const plan::Config &c, int64_t &configVocab) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return errorf("cannot read '{0}': {1}", path, buffer.getError().message());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return errorf("'{0}' is not JSON: {1}", path, llvm::toString(json.takeError()));
  const llvm::json::Object *o = json->getAsObject();
  if (!o)
    return errorf("'{0}' is not a JSON object", path);
  if (std::optional<llvm::StringRef> type = o->getString("model_type"); type && *type != "gpt2")
    return errorf("'{0}' describes a {1} model, not GPT-2", path, *type);
  const plan::ModelArchitecture &a = c.architecture();
  if (a.layers() == 0)
    return errorf("the plan records no architecture (compiled by an older mtc): recompile it");
  auto integer = [&](const char *key, int64_t expected) -> Error {
    std::optional<int64_t> v = o->getInteger(key);
    if (!v)
      return errorf("'{0}' has no integer {1}", path, key);
    if (*v != expected)
      return errorf("'{0}' has {1} = {2}, but the plan's model has {3}", path, key, *v, expected);
    return Error::success();
  };
  for (auto [key, expected] : {std::pair<const char *, int64_t>{"n_layer", a.layers()},
                               {"n_embd", a.hidden()},
                               {"n_head", a.heads()},
                               {"n_positions", a.max_positions()}})
    if (Error e = integer(key, expected))
      return e;
  std::optional<double> eps = o->getNumber("layer_norm_epsilon");
  if (eps && std::abs(*eps - a.norm_epsilon()) > 1e-12 * std::abs(a.norm_epsilon()))
    return errorf("'{0}' has layer_norm_epsilon = {1}, but the plan's model has {2}", path, *eps,
                  a.norm_epsilon());
  std::string act = o->getString("activation_function").value_or("gelu_new").str();
  std::string ours = act == "gelu_new" ? "gelu_tanh" : act;
  if (ours != nameOf(a.activation()))
    return errorf("'{0}' has activation_function = {1}, but the plan's model uses {2}", path, act,
                  nameOf(a.activation()));
  configVocab = o->getInteger("vocab_size").value_or(c.vocab_size());
  if (std::optional<int64_t> inner = o->getInteger("n_inner"); inner && *inner != a.ffn_hidden())
    return errorf("'{0}' has n_inner = {1}, but the plan's model has {2}", path, *inner,
                  a.ffn_hidden());
  return Error::success();
}

/// The values of tensor `name` of the file, or an error naming it.
llvm::Expected<std::vector<float>> readTensor(const safetensors::Reader &file,
                                              const std::string &name,
                                              const std::vector<int64_t> &shape) {
  const safetensors::TensorInfo *t = file.find(name);
  if (!t)
    return errorf("'{0}' has no tensor '{1}'", file.path(), name);
  if (t->shape != shape) {
    std::string have, want;
    for (int64_t d : t->shape)
      have += (have.empty() ? "" : ", ") + std::to_string(d);
    for (int64_t d : shape)
      want += (want.empty() ? "" : ", ") + std::to_string(d);
    return errorf("'{0}': tensor '{1}' has shape [{2}], but the plan's model needs [{3}]",
                  file.path(), name, have, want);
  }
  return file.readF32(*t);
}

} // namespace

llvm::Expected<std::map<std::string, std::vector<float>>>
importHuggingFaceGpt2(const std::string &dir, const plan::Plan &plan, std::string &notes) {
  int64_t configVocab = 0;
  if (Error e = checkConfig(dir + "/config.json", plan.config(), configVocab))
    return std::move(e);
  llvm::Expected<safetensors::Reader> file = safetensors::Reader::open(dir + "/model.safetensors");
  if (!file)
    return file.takeError();
  std::string prefix =
      file->find(std::string(hf_gpt2::kModelPrefix) + "wte.weight") ? hf_gpt2::kModelPrefix : "";
  const plan::ModelArchitecture &a = plan.config().architecture();
  int64_t vocab = plan.config().vocab_size();

  // Every key must be one we read, a buffer older files carry, or lm_head.
  std::set<std::string> expected;
  for (const hf_gpt2::Name &m : hf_gpt2::kNames)
    for (int64_t l = 0; l < (m.perLayer ? a.layers() : 1); ++l)
      expected.insert(prefix + (m.perLayer ? formatv("h.{0}.{1}", l, m.theirs).str() : m.theirs));
  int skipped = 0;
  for (const safetensors::TensorInfo &t : file->header().tensors) {
    llvm::StringRef name = t.name;
    if (expected.count(t.name) || name == "lm_head.weight")
      continue;
    if (name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias")) {
      ++skipped; // the causal mask, a buffer rather than a parameter
      continue;
    }
    return errorf("'{0}' has a tensor '{1}' that Hugging Face GPT-2 of the plan's shape does not",
                  file->path(), t.name);
  }
  if (skipped)
    notes += formatv("skipped {0} attention-mask buffers; ", skipped).str();

  std::map<std::string, std::vector<float>> out;
  for (const plan::Parameter &p : plan.parameters()) {
    const hf_gpt2::Name *m = nullptr;
    for (const hf_gpt2::Name &candidate : hf_gpt2::kNames)
      if (p.name() == candidate.ours)
        m = &candidate;
    if (!m)
      return errorf("the plan's parameter '{0}' has no counterpart in Hugging Face GPT-2",
                    p.name());
    std::vector<int64_t> shape(p.shape().begin(), p.shape().end());
    int64_t elements = 1;
    for (int64_t d : shape)
      elements *= d;
    std::vector<float> &values = out[p.name()];
    values.assign(static_cast<size_t>(elements), 0.0f);
    std::vector<int64_t> inner(shape.begin() + (m->perLayer ? 1 : 0), shape.end());
    if (p.name() == "wte") {
      // The real rows; another converter may have padded the file's.
      const safetensors::TensorInfo *t = file->find(prefix + "wte.weight");
      if (!t || t->shape.size() != 2 || t->shape[0] < vocab || t->shape[1] != shape[1])
        return errorf("'{0}': the token embedding must have at least {1} rows of {2}", file->path(),
                      vocab, shape[1]);
      // Rows beyond the plan's vocabulary are dropped only when they are a
      // converter's padding: config.json names the plan's vocabulary or the
      // padded row count, never a third size.
      if (configVocab != vocab && configVocab != t->shape[0])
        return errorf("'{0}/config.json' has vocab_size = {1}, but the plan's model has {2} "
                      "tokens (and the file's embedding {3} rows)",
                      dir, configVocab, vocab, t->shape[0]);
      llvm::Expected<std::vector<float>> v = file->readF32(*t);
      if (!v)
        return v.takeError();
      std::memcpy(values.data(), v->data(), static_cast<size_t>(vocab * shape[1]) * 4);
      if (t->shape[0] > vocab)
        notes += formatv("dropped the embedding's {0} rows beyond the vocabulary of {1}; ",
                         t->shape[0] - vocab, vocab)
                     .str();
      if (const safetensors::TensorInfo *head = file->find("lm_head.weight")) {
        llvm::Expected<std::vector<float>> h = file->readF32(*head);
        if (!h)
          return h.takeError();
        if (head->shape != t->shape || *h != *v)
          return errorf("'{0}': lm_head.weight differs from the token embedding; the plan's "
                        "model ties them",
                        file->path());
      }
      continue;
    }
    int64_t layerElements = 1;
    for (int64_t d : inner)
      layerElements *= d;
    for (int64_t l = 0; l < (m->perLayer ? a.layers() : 1); ++l) {
      std::string name = prefix + (m->perLayer ? formatv("h.{0}.{1}", l, m->theirs).str()
                                               : std::string(m->theirs));
      std::vector<int64_t> stored = inner;
      if (m->transposed)
        std::swap(stored[0], stored[1]);
      llvm::Expected<std::vector<float>> v = readTensor(*file, name, stored);
      if (!v)
        return v.takeError();
      float *dst = values.data() + l * layerElements;
      if (m->transposed) {
        int64_t rows = inner[0], cols = inner[1]; // ours: [out, in]; stored [in, out]
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            dst[r * cols + c] = (*v)[c * rows + r];
      } else {
        std::memcpy(dst, v->data(), static_cast<size_t>(layerElements) * 4);
      }
    }
  }
  return out;
}

Error writeImportedCheckpoint(const plan::Plan &plan,
                              const std::map<std::string, std::vector<float>> &values,
                              const std::string &saveDir) {
  std::string error;
  int64_t ranks = planMesh(plan.config()).numRanks();
  std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(ranks));
  if (!beginCheckpoint(saveDir, 0, error))
    return errorf("{0}", error);
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<SavedPiece> pieces;
    if (!savedPieces(plan, r, pieces, error))
      return errorf("{0}", error);
    std::vector<std::vector<float>> data(pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      const HeldPiece &held = pieces[i].held;
      data[i].assign(static_cast<size_t>(held.elements()), 0.0f); // moments start at zero
      if (held.role != ckpt::PARAM)
        continue;
      if (held.param->dtype() != plan::F32)
        return errorf("parameter '{0}' is {1}; Hugging Face files are imported into F32 plans",
                      held.param->name(), plan::DType_Name(held.param->dtype()));
      const std::vector<float> &whole = values.at(held.param->name());
      std::vector<int64_t> shape(held.param->shape().begin(), held.param->shape().end());
      TensorShard shard = held.shape.shard(shape);
      bool whole_ = held.shape.layerEnd == 0 && held.shape.splitDim < 0;
      for (int64_t k = held.shape.flatBegin; k < held.shape.flatEnd; ++k)
        data[i][static_cast<size_t>(k - held.shape.flatBegin)] =
            whole[static_cast<size_t>(whole_ ? k : shard.globalIndex(k))];
    }
    if (!writeRankFile(
            saveDir, 0, r, pieces,
            [&](size_t i) { return static_cast<const void *>(data[i].data()); },
            sums[static_cast<size_t>(r)], error))
      return errorf("{0}", error);
  }
  ckpt::TrainingState state;
  state.set_seed(plan.config().seed());
  ckpt::Manifest manifest;
  if (!describeCheckpoint(plan, state, sums, manifest, error) ||
      !finishCheckpoint(saveDir, 0, manifest, 0, error))
    return errorf("{0}", error);
  return Error::success();
}

} // namespace mt
