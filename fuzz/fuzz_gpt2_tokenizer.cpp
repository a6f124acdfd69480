//===- fuzz_gpt2_tokenizer.cpp - GPT-2's byte-level BPE -------------------===//
// Any bytes encode, and decode back to the same bytes (GPT-2's BPE is
// lossless); the vocabulary is the one mt-data ships.
#include "mt/Data/Gpt2Tokenizer.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const mt::Gpt2Tokenizer *tokenizer = [] {
    auto *t = new mt::Gpt2Tokenizer;
    std::string error;
    const char *dir = std::getenv("MT_GPT2_VOCAB_DIR");
    if (!t->loadFromDirectory(dir ? dir : mt::Gpt2Tokenizer::defaultDirectory(), error)) {
      std::fprintf(stderr, "fuzz_gpt2_tokenizer: %s (set MT_GPT2_VOCAB_DIR)\n", error.c_str());
      std::abort();
    }
    return t;
  }();
  std::string text(reinterpret_cast<const char *>(data), size);
  std::vector<int32_t> ids = tokenizer->encode(text);
  std::string bytes, error;
  if (!tokenizer->decodeBytes(ids, bytes, error) || bytes != text)
    __builtin_trap();
  return 0;
}
