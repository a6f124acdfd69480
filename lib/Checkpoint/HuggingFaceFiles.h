//===- HuggingFaceFiles.h - a model directory's safetensors files -*- C++ -*-===//
//
// A Hugging Face model directory holds its tensors in model.safetensors or,
// above save_pretrained's shard size, in model-0000k-of-0000n.safetensors
// files that model.safetensors.index.json maps tensor by tensor.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CHECKPOINT_HUGGINGFACEFILES_H
#define MT_LIB_CHECKPOINT_HUGGINGFACEFILES_H

#include "mt/Checkpoint/SafeTensors.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mt {
namespace hf {

/// The tensors of a model directory, read from whichever file holds each.
class ModelFiles {
public:
  /// Opens `dir`'s model.safetensors, or every shard its index names,
  /// checking that the index and the shards agree tensor by tensor.
  static llvm::Expected<ModelFiles> open(const std::string &dir);

  struct Found {
    const safetensors::Reader *file = nullptr;
    const safetensors::TensorInfo *tensor = nullptr;
  };
  /// Tensor `name`, or {null, null}.
  Found find(const std::string &name) const;
  /// Every tensor's name, sorted.
  std::vector<std::string> names() const;
  /// "DIR/model.safetensors", or "DIR/model.safetensors.index.json (N files)".
  const std::string &where() const { return where_; }

private:
  std::vector<std::unique_ptr<safetensors::Reader>> files_;
  std::map<std::string, Found> tensors_;
  std::string where_;
};

/// Writes `text` to `path` through a temporary file renamed into place.
llvm::Error writeTextFile(const std::string &path, const std::string &text);

/// Writes a model directory's tensors: model.safetensors when they fit in
/// `maxShardBytes`, else shards of at most that size (a larger tensor alone
/// in its own) in the given order, with the index, as save_pretrained does.
class ModelWriter {
public:
  static llvm::Expected<ModelWriter> create(const std::string &dir,
                                            const std::vector<safetensors::TensorSpec> &tensors,
                                            const std::string &dtype, uint64_t maxShardBytes);
  /// Writes tensor `name`'s values into its file.
  llvm::Error put(const std::string &name, const std::vector<float> &values);
  /// Finishes every file, writes the index of shards and removes what an
  /// earlier export left that is not part of this one.
  llvm::Error finish();
  /// The files written, by name.
  const std::vector<std::string> &fileNames() const { return names_; }

private:
  std::string dir_;
  std::vector<std::string> names_;
  std::vector<safetensors::Writer> files_;
  std::map<std::string, size_t> fileOf_;
  uint64_t totalBytes_ = 0;
};

} // namespace hf
} // namespace mt

#endif // MT_LIB_CHECKPOINT_HUGGINGFACEFILES_H
