//===- HuggingFaceExport.cpp - a checkpoint's model as Hugging Face files --===//
#include "mt/Checkpoint/HuggingFace.h"

#include "HuggingFaceFamily.h"
#include "HuggingFaceFiles.h"

#include "mt/Plan/PlanEnums.h"
#include "mt/Plan/PlanFile.h"
#include "mt/Support/Errors.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <set>

namespace mt {
namespace {

using llvm::Error;

/// One tensor of the files: which of ours, which layer, its stored shape.
struct Entry {
  const hf::TensorName *name;
  int64_t layer;
  safetensors::TensorSpec spec;
};

/// The tensors in transformers' state_dict order (which decides the shards):
/// each stack layer by layer where its first tensor is listed.
std::vector<Entry> stateDictOrder(const hf::Family &f, const std::map<std::string, int64_t> &layers,
                                  const std::map<std::string, std::vector<int64_t>> &stored) {
  std::vector<Entry> out;
  auto add = [&](const hf::TensorName &t, int64_t layer) {
    out.push_back({&t, layer, {f.fileName(t, layer, f.prefix), stored.at(t.ours)}});
  };
  std::set<std::string> stacksDone;
  for (const hf::TensorName &t : f.tensors) {
    if (!t.perLayer()) {
      add(t, 0);
      continue;
    }
    if (!stacksDone.insert(t.stack).second)
      continue;
    for (int64_t l = 0; l < layers.at(t.ours); ++l)
      for (const hf::TensorName &u : f.tensors)
        if (u.stack == t.stack)
          add(u, l);
  }
  return out;
}

const char *torchDtype(llvm::StringRef dtype) {
  return dtype == "BF16" ? "bfloat16" : dtype == "F16" ? "float16" : "float32";
}

} // namespace

llvm::Expected<HuggingFaceExported> exportHuggingFace(CheckpointReader &reader,
                                                      const std::string &dir,
                                                      const HuggingFaceExport &options) {
  const ckpt::Manifest &m = reader.manifest();
  std::map<std::string, int64_t> params; // our name -> tensor index
  hf::Shapes shapes;
  for (int i = 0; i < m.tensors_size(); ++i) {
    const ckpt::Tensor &t = m.tensors(i);
    if (t.role() != ckpt::PARAM)
      continue;
    params[t.name()] = i;
    std::vector<int64_t> &shape = shapes[t.name()];
    shape.assign(t.shape().begin(), t.shape().end());
    if (t.unpadded_rows() > 0)
      shape[0] = t.unpadded_rows();
  }
  std::string config;
  llvm::Expected<hf::Family> family =
      hf::familyForExport(m.saved_from(), shapes, torchDtype(options.dtype), config);
  if (!family)
    return family.takeError();
  for (const hf::TensorName &t : family->tensors)
    if (!params.count(t.ours))
      return errorf("checkpoint '{0}' has no parameter '{1}', which {2}'s {3} needs",
                    reader.directory(), t.ours, family->title, t.theirs);
  // Each of ours: its one layer's shape as theirs stores it, and its layers.
  std::map<std::string, std::vector<int64_t>> stored;
  std::map<std::string, int64_t> layers;
  for (const auto &[name, index] : params) {
    const hf::TensorName *t = family->find(name);
    if (!t)
      return errorf("parameter '{0}' of checkpoint '{1}' has no place in Hugging Face {2}", name,
                    reader.directory(), family->title);
    const ckpt::Tensor &tensor = m.tensors(static_cast<int>(index));
    std::vector<int64_t> shape(tensor.shape().begin(), tensor.shape().end());
    if (t->perLayer() && shape.size() < 2)
      return errorf("parameter '{0}' of checkpoint '{1}' stacks no layers", name,
                    reader.directory());
    layers[name] = t->perLayer() ? shape[0] : 1;
    if (t->perLayer())
      shape.erase(shape.begin());
    if (tensor.unpadded_rows() > 0 && (!t->vocabRows || shape.empty()))
      return errorf("parameter '{0}' of checkpoint '{1}' has padding rows, but Hugging Face "
                    "{2}'s {3} has no vocabulary rows",
                    name, reader.directory(), family->title, t->theirs);
    if (tensor.unpadded_rows() > 0) // the vocabulary's padding rows are ours, not the model's
      shape[0] = tensor.unpadded_rows();
    if (t->transposed && shape.size() == 2)
      std::swap(shape[0], shape[1]);
    stored[name] = shape;
  }
  std::vector<Entry> entries = stateDictOrder(*family, layers, stored);
  std::vector<safetensors::TensorSpec> specs;
  for (const Entry &e : entries)
    specs.push_back(e.spec);
  llvm::Expected<hf::ModelWriter> writer =
      hf::ModelWriter::create(dir, specs, options.dtype, options.maxShardBytes);
  if (!writer)
    return writer.takeError();

  // Parameter by parameter: one whole parameter in memory at a time.
  for (const hf::TensorName &t : family->tensors) {
    int64_t index = params.at(t.ours);
    const ckpt::Tensor &tensor = m.tensors(static_cast<int>(index));
    std::vector<unsigned char> bytes;
    std::string error;
    if (!reader.readWhole(index, bytes, error))
      return errorf("{0}", error);
    if (tensor.dtype() != plan::F32 && tensor.dtype() != plan::F64)
      return errorf("parameter '{0}' is {1}; exports read F32 or F64 parameters", t.ours,
                    plan::DType_Name(tensor.dtype()));
    size_t count = bytes.size() / static_cast<size_t>(dtypeBytes(tensor.dtype()));
    std::vector<float> whole(count);
    for (size_t i = 0; i < count; ++i) {
      if (tensor.dtype() == plan::F64) {
        double d;
        std::memcpy(&d, bytes.data() + 8 * i, 8);
        whole[i] = static_cast<float>(d);
      } else {
        std::memcpy(&whole[i], bytes.data() + 4 * i, 4);
      }
    }
    bytes = {};
    std::vector<int64_t> shape(tensor.shape().begin(), tensor.shape().end());
    if (t.perLayer())
      shape.erase(shape.begin());
    int64_t layerElements = 1;
    for (int64_t d : shape)
      layerElements *= d;
    int64_t rows, cols;
    hf::rowsAndCols(t, shape, rows, cols);
    if (tensor.unpadded_rows() > 0) // the vocabulary's padding rows are ours, not the model's
      rows = tensor.unpadded_rows();
    for (int64_t l = 0; l < layers.at(t.ours); ++l) {
      const float *base = whole.data() + l * layerElements;
      std::vector<float> ours(base, base + rows * cols);
      if (Error e = writer->put(family->fileName(t, l, family->prefix),
                                hf::toTheirs(t, ours, rows, cols)))
        return std::move(e);
    }
  }
  if (Error e = writer->finish())
    return std::move(e);
  if (Error e = hf::writeTextFile(dir + "/config.json", config))
    return std::move(e);
  return HuggingFaceExported{family->title, writer->fileNames()};
}

} // namespace mt
