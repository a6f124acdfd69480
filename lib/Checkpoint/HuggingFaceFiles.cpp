//===- HuggingFaceFiles.cpp - a model directory's safetensors files --------===//
#include "HuggingFaceFiles.h"

#include "HuggingFaceFamily.h"

#include "mt/Support/Errors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

namespace mt {
namespace hf {

using llvm::Error;
using llvm::formatv;

namespace {

constexpr const char *kSingle = "model.safetensors";
constexpr const char *kIndex = "model.safetensors.index.json";

bool exists(const std::string &path) { return llvm::sys::fs::exists(path); }

std::string shardName(size_t k, size_t n) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", k + 1, n);
  return name;
}

/// A shard file name the index may give: a plain name in the directory.
bool plainName(llvm::StringRef name) {
  return !name.empty() && !name.contains('/') && name != "." && name != ".." &&
         name.ends_with(".safetensors");
}

} // namespace

Error writeTextFile(const std::string &path, const std::string &text) {
  std::string partial = path + ".partial";
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return errorf("cannot create '{0}': {1}", partial, std::strerror(errno));
  bool ok = true;
  for (size_t done = 0; ok && done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    ok = n > 0 || (n < 0 && errno == EINTR);
    done += n > 0 ? static_cast<size_t>(n) : 0;
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(partial.c_str(), path.c_str()) != 0) {
    Error e = errorf("cannot write '{0}': {1}", path, std::strerror(errno));
    std::remove(partial.c_str());
    return e;
  }
  return Error::success();
}

llvm::Expected<ModelFiles> ModelFiles::open(const std::string &dir) {
  ModelFiles m;
  std::string index = dir + "/" + kIndex;
  if (!exists(index)) {
    std::string single = dir + "/" + kSingle;
    if (!exists(single)) {
      if (exists(dir + "/pytorch_model.bin") || exists(dir + "/pytorch_model.bin.index.json"))
        return errorf("'{0}' holds pytorch_model.bin (Python pickles), which mt does not read: "
                      "save the model with safe_serialization=True (model.safetensors)",
                      dir);
      return errorf("'{0}' has neither {1} nor {2}", dir, kSingle, kIndex);
    }
    llvm::Expected<safetensors::Reader> file = safetensors::Reader::open(single);
    if (!file)
      return file.takeError();
    m.files_.push_back(std::make_unique<safetensors::Reader>(std::move(*file)));
    for (const safetensors::TensorInfo &t : m.files_[0]->header().tensors)
      m.tensors_[t.name] = {m.files_[0].get(), &t};
    m.where_ = single;
    return std::move(m);
  }
  auto buffer = llvm::MemoryBuffer::getFile(index);
  if (!buffer)
    return errorf("cannot read '{0}': {1}", index, buffer.getError().message());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return errorf("'{0}' is not JSON: {1}", index, llvm::toString(json.takeError()));
  const llvm::json::Object *map =
      json->getAsObject() ? json->getAsObject()->getObject("weight_map") : nullptr;
  if (!map)
    return errorf("'{0}' has no weight_map object", index);
  std::map<std::string, size_t> opened;
  for (const auto &[key, value] : *map) {
    std::optional<llvm::StringRef> file = value.getAsString();
    if (!file || !plainName(*file))
      return errorf("'{0}': weight_map gives tensor '{1}' no file name of this directory "
                    "(*.safetensors)",
                    index, llvm::StringRef(key));
    auto [it, fresh] = opened.try_emplace(file->str(), m.files_.size());
    if (fresh) {
      llvm::Expected<safetensors::Reader> r = safetensors::Reader::open(dir + "/" + file->str());
      if (!r)
        return r.takeError();
      m.files_.push_back(std::make_unique<safetensors::Reader>(std::move(*r)));
    }
    const safetensors::Reader *reader = m.files_[it->second].get();
    const safetensors::TensorInfo *t = reader->find(llvm::StringRef(key));
    if (!t)
      return errorf("'{0}' places tensor '{1}' in '{2}', which has no such tensor", index,
                    llvm::StringRef(key), reader->path());
    m.tensors_[key.str()] = {reader, t};
  }
  for (const auto &file : m.files_)
    for (const safetensors::TensorInfo &t : file->header().tensors)
      if (auto it = m.tensors_.find(t.name); it == m.tensors_.end() || it->second.file != file.get())
        return errorf("'{0}' holds tensor '{1}', which '{2}' does not place there", file->path(),
                      t.name, index);
  m.where_ = formatv("{0} ({1} files)", index, m.files_.size()).str();
  return std::move(m);
}

ModelFiles::Found ModelFiles::find(const std::string &name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? Found{} : it->second;
}

std::vector<std::string> ModelFiles::names() const {
  std::vector<std::string> out;
  for (const auto &[name, unused] : tensors_)
    out.push_back(name);
  return out;
}

llvm::Expected<ModelWriter> ModelWriter::create(const std::string &dir,
                                                const std::vector<safetensors::TensorSpec> &tensors,
                                                const std::string &dtype, uint64_t maxShardBytes) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return errorf("cannot create '{0}': {1}", dir, ec.message());
  uint64_t elementBytes = safetensors::dtypeBytes(dtype);
  std::vector<std::vector<safetensors::TensorSpec>> shards(1);
  uint64_t shardBytes = 0;
  ModelWriter w;
  w.dir_ = dir;
  for (const safetensors::TensorSpec &t : tensors) {
    uint64_t bytes = static_cast<uint64_t>(t.numElements()) * elementBytes;
    if (!shards.back().empty() && shardBytes + bytes > maxShardBytes) {
      shards.emplace_back();
      shardBytes = 0;
    }
    shards.back().push_back(t);
    shardBytes += bytes;
    w.totalBytes_ += bytes;
  }
  for (size_t k = 0; k < shards.size(); ++k) {
    std::string name = shards.size() == 1 ? kSingle : shardName(k, shards.size());
    llvm::Expected<safetensors::Writer> file =
        safetensors::Writer::create(dir + "/" + name, shards[k], dtype, {{"format", "pt"}});
    if (!file)
      return file.takeError();
    for (const safetensors::TensorSpec &t : shards[k])
      w.fileOf_[t.name] = k;
    w.names_.push_back(name);
    w.files_.push_back(std::move(*file));
  }
  return std::move(w);
}

Error ModelWriter::put(const std::string &name, const std::vector<float> &values) {
  auto it = fileOf_.find(name);
  if (it == fileOf_.end())
    return errorf("no file of '{0}' holds tensor '{1}'", dir_, name);
  return files_[it->second].put(name, values);
}

Error ModelWriter::finish() {
  // Over an earlier export, its entry points go before any new shard lands
  // (a shard may replace one of the same name): a failure or crash in
  // between leaves a directory a reader refuses, never an index mixing
  // shards of two exports. (A single file replaces its namesake at once.)
  std::error_code removed;
  std::filesystem::remove(dir_ + "/" + kIndex, removed);
  if (files_.size() > 1)
    std::filesystem::remove(dir_ + "/" + kSingle, removed);
  for (safetensors::Writer &f : files_)
    if (Error e = f.finish())
      return e;
  std::string index = dir_ + "/" + kIndex;
  if (files_.size() > 1) {
    // As save_pretrained: json.dumps(index, indent=2, sort_keys=True).
    std::string text = "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(totalBytes_) +
                       "\n  },\n  \"weight_map\": {\n";
    size_t i = 0;
    for (const auto &[name, file] : fileOf_)
      text += "    " + hf::quoted(name) + ": " + hf::quoted(names_[file]) +
              (++i < fileOf_.size() ? ",\n" : "\n");
    text += "  }\n}\n";
    if (Error e = writeTextFile(index, text))
      return e;
  }
  // What an earlier export into this directory left would mislead a reader.
  std::set<std::string> ours(names_.begin(), names_.end());
  if (files_.size() > 1)
    ours.insert(kIndex);
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(dir_, ec)) {
    std::string name = e.path().filename().string();
    bool model = name == kSingle || name == kIndex ||
                 (name.rfind("model-", 0) == 0 && llvm::StringRef(name).ends_with(".safetensors"));
    if (model && !ours.count(name))
      std::filesystem::remove(e.path(), ec);
  }
  return Error::success();
}

} // namespace hf
} // namespace mt
