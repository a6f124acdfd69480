//===- SentencePieceTokenizer.cpp - a SentencePiece model's ids ------------===//
#include "mt/Data/SentencePieceTokenizer.h"

#include "mt/Support/ProgramPath.h"

#include <dlfcn.h>

#include <cstdlib>

namespace mt {

/// The plugin's C functions (lib/Data/SentencePiecePlugin), loaded once per
/// process with its own symbol scope.
struct SentencePieceTokenizer::Api {
  void *(*load)(const char *, char *, size_t) = nullptr;
  void (*free)(void *) = nullptr;
  void (*encode)(void *, const char *, size_t, void (*)(void *, int32_t), void *) = nullptr;
  int (*decode)(void *, const int32_t *, size_t, void (*)(void *, const char *, size_t),
                void *) = nullptr;
  int32_t (*size)(void *) = nullptr;
  int32_t (*bos)(void *) = nullptr;
  int32_t (*eos)(void *) = nullptr;
};

SentencePieceTokenizer::SentencePieceTokenizer() = default;

SentencePieceTokenizer::~SentencePieceTokenizer() {
  if (model_ && api_)
    api_->free(model_);
}

bool SentencePieceTokenizer::load(const std::string &path, std::string &error) {
  std::string tried;
  void *library = nullptr;
  std::vector<std::string> candidates;
  if (const char *chosen = std::getenv("MT_SENTENCEPIECE_PLUGIN"))
    candidates.push_back(chosen);
  candidates.push_back(besideProgram("../lib/libmt-sentencepiece.so"));
  candidates.push_back("libmt-sentencepiece.so");
  for (const std::string &candidate : candidates) {
    if (candidate.empty())
      continue;
    library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (library)
      break;
    const char *why = dlerror();
    tried += "\n  " + candidate + ": " + (why ? why : "cannot load");
  }
  if (!library) {
    error = "cannot load SentencePiece (libmt-sentencepiece.so, which needs Debian's "
            "libsentencepiece0):" +
            tried;
    return false;
  }
  api_ = std::make_unique<Api>();
  bool found = true;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    found = found && fn;
  };
  bind(api_->load, "mt_sp_load");
  bind(api_->free, "mt_sp_free");
  bind(api_->encode, "mt_sp_encode");
  bind(api_->decode, "mt_sp_decode");
  bind(api_->size, "mt_sp_size");
  bind(api_->bos, "mt_sp_bos");
  bind(api_->eos, "mt_sp_eos");
  if (!found) {
    error = "libmt-sentencepiece.so lacks its functions: rebuild it";
    return false;
  }
  char why[512] = {};
  model_ = api_->load(path.c_str(), why, sizeof(why));
  if (!model_) {
    error = "cannot load the SentencePiece model '" + path + "': " + why;
    return false;
  }
  return true;
}

void SentencePieceTokenizer::encodeInto(std::string_view text, std::vector<int32_t> &out) const {
  api_->encode(
      model_, text.data(), text.size(),
      [](void *context, int32_t id) {
        static_cast<std::vector<int32_t> *>(context)->push_back(id);
      },
      &out);
}

bool SentencePieceTokenizer::decode(const std::vector<int32_t> &ids, std::string &text,
                                    std::string &error) const {
  for (int32_t id : ids)
    if (id < 0 || id >= vocabSize()) {
      error = "token id " + std::to_string(id) + " is outside the SentencePiece model's " +
              std::to_string(vocabSize()) + " pieces";
      return false;
    }
  text.clear();
  if (!api_->decode(
          model_, ids.data(), ids.size(),
          [](void *context, const char *bytes, size_t size) {
            static_cast<std::string *>(context)->assign(bytes, size);
          },
          &text)) {
    error = "SentencePiece cannot decode these ids";
    return false;
  }
  return true;
}

int32_t SentencePieceTokenizer::vocabSize() const { return api_->size(model_); }
int32_t SentencePieceTokenizer::beginOfText() const { return api_->bos(model_); }
int32_t SentencePieceTokenizer::endOfText() const { return api_->eos(model_); }

} // namespace mt
