//===- HuggingFaceImport.cpp - Hugging Face files into a checkpoint --------===//
//
// Everything is checked before anything is written: config.json against the
// plan, every tensor of the files named, every tensor the plan needs present
// in its shape. Then each rank's file is written piece by piece, each piece
// filled from one layer's tensor at a time, so memory stays near one piece
// and one layer whatever the model's size.
//
//===----------------------------------------------------------------------===//
#include "mt/Checkpoint/HuggingFace.h"

#include "HuggingFaceFamily.h"
#include "HuggingFaceFiles.h"

#include "mt/Checkpoint/CheckpointWriter.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Plan/PlanFile.h"
#include "mt/Support/Errors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <algorithm>
#include <map>
#include <set>

namespace mt {
namespace {

using llvm::Error;
using llvm::formatv;

std::string shapeList(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

/// Our shape of one layer of `p`: [rows, cols] (a vector is one row).
void layerShape(const plan::Parameter &p, const hf::TensorName &t, int64_t &rows, int64_t &cols,
                std::vector<int64_t> &inner) {
  inner.assign(p.shape().begin() + (t.perLayer() ? 1 : 0), p.shape().end());
  hf::rowsAndCols(t, inner, rows, cols);
}

/// The plan's parameters as the files hold them, one layer at a time.
class Source {
public:
  Source(const hf::Family &family, const hf::ModelFiles &files, std::string dir,
         std::string prefix, int64_t vocab)
      : family_(family), files_(files), dir_(std::move(dir)), prefix_(std::move(prefix)),
        vocab_(vocab) {}

  /// Checks that the files hold `p` (every layer) in its shape.
  Error check(const plan::Parameter &p, int64_t configVocab) const;
  /// Rows [rowBegin, rowEnd) (at least) of layer `layer` of `p` in our
  /// layout (padding rows zero): the values from row `*firstRow` on.
  llvm::Expected<const std::vector<float> *> layer(const plan::Parameter &p, int64_t layer,
                                                   int64_t rowBegin, int64_t rowEnd,
                                                   int64_t &firstRow);
  bool perLayer(const plan::Parameter &p) const { return family_.find(p.name())->perLayer(); }
  /// The columns of one of `p`'s rows.
  int64_t columns(const plan::Parameter &p) const {
    int64_t rows, cols;
    std::vector<int64_t> inner;
    layerShape(p, *family_.find(p.name()), rows, cols, inner);
    return cols;
  }
  /// The files' name of `t` at `layer`: transformers', or the gamma and
  /// beta of layer norms in files converted from TensorFlow (bert-base).
  std::string fileName(const hf::TensorName &t, int64_t layer) const {
    std::string name = family_.fileName(t, layer, prefix_);
    if (files_.find(name).tensor)
      return name;
    llvm::StringRef n(name);
    for (auto [current, old] : {std::pair<llvm::StringRef, llvm::StringRef>{"LayerNorm.weight",
                                                                           "LayerNorm.gamma"},
                                {"LayerNorm.bias", "LayerNorm.beta"}})
      if (n.ends_with(current)) {
        std::string alias = (n.drop_back(current.size()) + old).str();
        if (files_.find(alias).tensor)
          return alias;
      }
    return name;
  }

private:
  const hf::Family &family_;
  const hf::ModelFiles &files_;
  std::string dir_, prefix_;
  int64_t vocab_;
  // The last rows read, and buffers whose memory is reused.
  std::string cachedName_;
  int64_t cachedLayer_ = -1, cachedBegin_ = 0, cachedEnd_ = 0;
  std::vector<float> cached_, theirs_;
};

Error Source::check(const plan::Parameter &p, int64_t configVocab) const {
  const hf::TensorName *t = family_.find(p.name());
  if (!t)
    return errorf("the plan's parameter '{0}' has no counterpart in Hugging Face {1}", p.name(),
                  family_.title);
  if (t->perLayer() && p.shape_size() < 2)
    return errorf("the plan's parameter '{0}' stacks no layers", p.name());
  int64_t layers = t->perLayer() ? p.shape(0) : 1;
  int64_t rows, cols;
  std::vector<int64_t> inner;
  layerShape(p, *t, rows, cols, inner);
  for (int64_t l = 0; l < layers; ++l) {
    std::string name = fileName(*t, l);
    hf::ModelFiles::Found found = files_.find(name);
    if (!found.tensor)
      return errorf("'{0}' has no tensor '{1}'", files_.where(), name);
    const std::string &dtype = found.tensor->dtype;
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16" && dtype != "F64")
      return errorf("'{0}': tensor '{1}' is {2}; parameters are read from F32, F16, BF16 or F64",
                    found.file->path(), name, dtype);
    const std::vector<int64_t> &have = found.tensor->shape;
    if (t->vocabRows) {
      // The real rows; another converter may have padded the file's.
      if (have.size() != inner.size() || have[0] < vocab_ || (have.size() == 2 && have[1] != cols))
        return errorf("'{0}': tensor '{1}' must have at least {2} rows{3}, not {4}",
                      found.file->path(), name, vocab_,
                      have.size() == 2 ? formatv(" of {0}", cols).str() : "", shapeList(have));
      // Rows beyond the plan's vocabulary are dropped only when they are a
      // converter's padding: config.json names the plan's vocabulary or the
      // padded row count, never a third size.
      if (configVocab != vocab_ && configVocab != have[0])
        return errorf("'{0}/config.json' has vocab_size = {1}, but the plan's model has {2} tokens "
                      "(and tensor '{3}' {4} rows)",
                      dir_, configVocab, vocab_, name, have[0]);
      continue;
    }
    std::vector<int64_t> want = inner;
    if (t->transposed && want.size() == 2)
      std::swap(want[0], want[1]);
    if (have != want)
      return errorf("'{0}': tensor '{1}' has shape {2}, but the plan's model needs {3}",
                    found.file->path(), name, shapeList(have), shapeList(want));
  }
  return Error::success();
}

llvm::Expected<const std::vector<float> *> Source::layer(const plan::Parameter &p, int64_t l,
                                                         int64_t rowBegin, int64_t rowEnd,
                                                         int64_t &firstRow) {
  const hf::TensorName &t = *family_.find(p.name());
  int64_t rows, cols;
  std::vector<int64_t> inner;
  layerShape(p, t, rows, cols, inner);
  // Whole heads of rotary rows (they permute within a head); every row of a
  // transposed tensor (each of ours is a column of theirs).
  if (t.rotaryHeads > 0) {
    int64_t d = rows / t.rotaryHeads;
    rowBegin = rowBegin / d * d;
    rowEnd = (rowEnd + d - 1) / d * d;
  }
  if (t.transposed)
    rowBegin = 0, rowEnd = rows;
  if (cachedName_ == p.name() && cachedLayer_ == l && cachedBegin_ <= rowBegin &&
      rowEnd <= cachedEnd_) {
    firstRow = cachedBegin_;
    return &cached_;
  }
  hf::ModelFiles::Found found = files_.find(fileName(t, l));
  // Rows past the real vocabulary are ours alone: zero.
  int64_t real = std::min(rowEnd, t.vocabRows ? vocab_ : rows);
  int64_t stored = std::max(real - rowBegin, int64_t(0));
  if (t.transposed || rows == 1) {
    // Every row: theirs are ours' columns, or a vector's rows are its elements.
    int64_t all = found.tensor->shape.empty() ? 1 : found.tensor->shape[0];
    if (llvm::Error e = found.file->readRowsF32(*found.tensor, 0, all, theirs_))
      return std::move(e);
  } else if (llvm::Error e = found.file->readRowsF32(*found.tensor, rowBegin, rowBegin + stored,
                                                     theirs_)) {
    return std::move(e);
  }
  hf::TensorName block = t;
  if (t.rotaryHeads > 0)
    block.rotaryHeads = stored / (rows / t.rotaryHeads);
  cached_ = hf::toOurs(block, theirs_, stored, cols);
  cached_.resize(static_cast<size_t>((rowEnd - rowBegin) * cols), 0.0f);
  cachedName_ = p.name();
  cachedLayer_ = l;
  cachedBegin_ = rowBegin;
  cachedEnd_ = rowEnd;
  firstRow = rowBegin;
  return &cached_;
}

/// Fills `out` with piece `held`'s elements. Its elements run through the
/// layers in order, their global indices increasing, so each layer's rows
/// the piece holds are read once: a tensor-parallel rank of a row-split
/// weight reads its own rows only.
Error fillPiece(Source &source, const HeldPiece &held, std::vector<unsigned char> &out) {
  const plan::Parameter &p = *held.param;
  std::vector<int64_t> shape(p.shape().begin(), p.shape().end());
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  int64_t layerElements = source.perLayer(p) ? elements / shape[0] : elements;
  int64_t cols = source.columns(p);
  TensorShard shard = held.shape.shard(shape);
  bool whole = held.shape.layerEnd == 0 && held.shape.splitDim < 0;
  auto global = [&](int64_t k) { return whole ? k : shard.globalIndex(k); };
  auto *dst = reinterpret_cast<float *>(out.data());
  const std::vector<float> *layer = nullptr;
  int64_t current = -1, first = 0;
  for (int64_t k = held.shape.flatBegin; k < held.shape.flatEnd; ++k) {
    int64_t g = global(k);
    int64_t l = g / layerElements;
    if (l != current) {
      // The piece's last element in this layer, by bisection.
      int64_t lo = k, hi = held.shape.flatEnd - 1;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (global(mid) / layerElements == l)
          lo = mid;
        else
          hi = mid - 1;
      }
      int64_t rowBegin = g % layerElements / cols, rowEnd = global(lo) % layerElements / cols + 1;
      llvm::Expected<const std::vector<float> *> v = source.layer(p, l, rowBegin, rowEnd, first);
      if (!v)
        return v.takeError();
      layer = *v;
      current = l;
    }
    dst[k - held.shape.flatBegin] = (*layer)[static_cast<size_t>(g % layerElements - first * cols)];
  }
  return Error::success();
}

std::string tokenizerNote(const std::string &dir) {
  if (llvm::sys::fs::exists(dir + "/tokenizer.model"))
    return formatv("its SentencePiece tokenizer is {0}/tokenizer.model (give it to mt-data and "
                   "mt-run as --tokenizer-model); ",
                   dir)
        .str();
  if (llvm::sys::fs::exists(dir + "/tokenizer.json"))
    return formatv("{0} holds only tokenizer.json (a Hugging Face fast tokenizer), which mt does "
                   "not read: tokenize with the model's SentencePiece tokenizer.model, or GPT-2's "
                   "vocab.json and merges.txt; ",
                   dir)
        .str();
  return "";
}

/// Writes iteration 0 of `plan`'s checkpoint under `saveDir`, rank by rank
/// and piece by piece, the parameters from `source`: weights only (AdamW's
/// moments, which such files lack, load as zeros).
Error writeRanks(const plan::Plan &plan, Source &source, const std::string &saveDir) {
  std::string error;
  int64_t ranks = planMesh(plan.config()).numRanks();
  std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(ranks));
  if (!beginCheckpoint(saveDir, 0, error))
    return errorf("{0}", error);
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<SavedPiece> pieces;
    if (!savedPieces(plan, r, pieces, error, /*weightsOnly=*/true))
      return errorf("{0}", error);
    std::vector<unsigned char> buffer;
    Error failure = Error::success();
    auto data = [&](size_t i) -> const void * {
      buffer.assign(pieces[i].bytes, 0);
      if (!failure)
        failure = fillPiece(source, pieces[i].held, buffer);
      return buffer.data();
    };
    bool written = writeRankFile(saveDir, 0, r, pieces, data, sums[static_cast<size_t>(r)], error);
    if (failure)
      return failure;
    if (!written)
      return errorf("{0}", error);
  }
  ckpt::TrainingState state;
  state.set_seed(plan.config().seed());
  ckpt::Manifest manifest;
  if (!describeCheckpoint(plan, state, sums, manifest, error, /*weightsOnly=*/true) ||
      !finishCheckpoint(saveDir, 0, manifest, 0, error))
    return errorf("{0}", error);
  return Error::success();
}

/// Everything before anything is written: the plan's parameters against
/// the family's tensors, every tensor of the files known (one we read, a
/// buffer older files carry, a tied copy equal to its original), every one
/// we read present in its shape.
Error checkFiles(const plan::Plan &plan, const hf::Family &family, const hf::ModelFiles &files,
                 const Source &source, int64_t configVocab, std::string &notes) {
  std::map<std::string, const plan::Parameter *> params;
  for (const plan::Parameter &p : plan.parameters()) {
    if (p.dtype() != plan::F32)
      return errorf("parameter '{0}' is {1}; Hugging Face files are imported into F32 plans",
                    p.name(), plan::DType_Name(p.dtype()));
    params[p.name()] = &p;
  }
  for (const hf::TensorName &t : family.tensors)
    if (!params.count(t.ours))
      return errorf("the plan's model has no parameter '{0}', which Hugging Face {1}'s {2} is",
                    t.ours, family.title, t.theirs);
  std::set<std::string> expected;
  for (const auto &[name, p] : params) {
    if (Error e = source.check(*p, configVocab))
      return e;
    const hf::TensorName &t = *family.find(name);
    for (int64_t l = 0; l < (t.perLayer() ? p->shape(0) : 1); ++l)
      expected.insert(source.fileName(t, l));
  }
  std::vector<std::string> skipped;
  for (const std::string &name : files.names()) {
    if (expected.count(name))
      continue;
    auto copy = std::find_if(family.tiedCopies.begin(), family.tiedCopies.end(),
                             [&](const hf::TiedCopy &c) { return c.theirs == name; });
    if (copy != family.tiedCopies.end()) {
      std::string original = source.fileName(*family.find(copy->ours), 0);
      hf::ModelFiles::Found a = files.find(name), b = files.find(original);
      llvm::Expected<std::vector<float>> x = a.file->readF32(*a.tensor);
      if (!x)
        return x.takeError();
      llvm::Expected<std::vector<float>> y = b.file->readF32(*b.tensor);
      if (!y)
        return y.takeError();
      if (a.tensor->shape != b.tensor->shape || *x != *y)
        return errorf("'{0}': {1} differs from {2}; the plan's model ties them", a.file->path(),
                      name, original);
      continue;
    }
    if (std::any_of(family.buffers.begin(), family.buffers.end(),
                    [&](const std::string &b) { return llvm::StringRef(name).ends_with(b); })) {
      skipped.push_back(name); // a buffer (the causal mask, positions), not a parameter
      continue;
    }
    return errorf("'{0}' has a tensor '{1}' that Hugging Face {2} of the plan's shape does not",
                  files.where(), name, family.title);
  }
  if (!skipped.empty())
    notes += skipped.size() == 1
                 ? formatv("skipped a buffer that is not a parameter ('{0}'); ", skipped.front())
                       .str()
                 : formatv("skipped {0} buffers that are not parameters ('{1}', ...); ",
                           skipped.size(), skipped.front())
                       .str();
  int64_t vocab = plan.config().vocab_size();
  for (const hf::TensorName &t : family.tensors) {
    if (!t.vocabRows)
      continue;
    int64_t rows = files.find(source.fileName(t, 0)).tensor->shape[0];
    if (rows > vocab)
      notes += formatv("dropped {0}'s {1} rows beyond the vocabulary of {2}; ",
                       source.fileName(t, 0), rows - vocab, vocab)
                   .str();
  }
  return Error::success();
}

} // namespace

Error importHuggingFace(const std::string &hfDir, const plan::Plan &plan,
                        const std::string &saveDir, std::string &notes) {
  int64_t configVocab = 0;
  hf::Shapes shapes;
  for (const plan::Parameter &p : plan.parameters()) {
    std::vector<int64_t> &shape = shapes[p.name()];
    shape.assign(p.shape().begin(), p.shape().end());
    if (p.unpadded_rows() > 0)
      shape[0] = p.unpadded_rows();
  }
  llvm::Expected<hf::Family> family =
      hf::familyForImport(hfDir + "/config.json", plan.config(), shapes, configVocab);
  if (!family)
    return family.takeError();
  llvm::Expected<hf::ModelFiles> files = hf::ModelFiles::open(hfDir);
  if (!files)
    return files.takeError();
  int64_t vocab = plan.config().vocab_size();
  // The base model's files (GPT2Model, LlamaModel) have no model prefix.
  std::string prefix = family->prefix;
  if (!files->find(family->fileName(family->tensors.front(), 0, prefix)).tensor &&
      files->find(family->fileName(family->tensors.front(), 0, "")).tensor)
    prefix = "";
  Source source(*family, *files, hfDir, prefix, vocab);
  if (Error e = checkFiles(plan, *family, *files, source, configVocab, notes))
    return e;
  notes += tokenizerNote(hfDir);

  return writeRanks(plan, source, saveDir);
}

} // namespace mt
