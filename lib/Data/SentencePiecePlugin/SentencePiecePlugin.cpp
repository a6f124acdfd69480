//===- SentencePiecePlugin.cpp - libsentencepiece behind a C interface -----===//
//
// Debian's libsentencepiece carries its own copy of protobuf-lite with
// exported symbols; a process that also loads libprotobuf (every mt tool
// that reads a plan) crashes when the two copies bind to each other. This
// library is therefore loaded by SentencePieceTokenizer with RTLD_LOCAL |
// RTLD_DEEPBIND, so it and libsentencepiece keep their symbols to
// themselves, and it exposes only these C functions.
//
//===----------------------------------------------------------------------===//
#include <sentencepiece_processor.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using sentencepiece::SentencePieceProcessor;

extern "C" {

/// A loaded model, or null with the reason in `error` (`capacity` bytes).
void *mt_sp_load(const char *path, char *error, size_t capacity) {
  auto *processor = new SentencePieceProcessor();
  auto status = processor->Load(path);
  if (status.ok())
    return processor;
  std::snprintf(error, capacity, "%s", status.ToString().c_str());
  delete processor;
  return nullptr;
}

void mt_sp_free(void *model) { delete static_cast<SentencePieceProcessor *>(model); }

/// The ids of `text`, appended through `append(context, id)`.
void mt_sp_encode(void *model, const char *text, size_t size, void (*append)(void *, int32_t),
                  void *context) {
  std::vector<int> ids;
  (void)static_cast<SentencePieceProcessor *>(model)->Encode(std::string_view(text, size), &ids);
  for (int id : ids)
    append(context, id);
}

/// The text of `ids` through `set(context, bytes, size)`; 0 on failure.
int mt_sp_decode(void *model, const int32_t *ids, size_t count,
                 void (*set)(void *, const char *, size_t), void *context) {
  std::string text;
  auto status = static_cast<SentencePieceProcessor *>(model)->Decode(
      std::vector<int>(ids, ids + count), &text);
  if (!status.ok())
    return 0;
  set(context, text.data(), text.size());
  return 1;
}

int32_t mt_sp_size(void *model) {
  return static_cast<SentencePieceProcessor *>(model)->GetPieceSize();
}
int32_t mt_sp_bos(void *model) { return static_cast<SentencePieceProcessor *>(model)->bos_id(); }
int32_t mt_sp_eos(void *model) { return static_cast<SentencePieceProcessor *>(model)->eos_id(); }

} // extern "C"
