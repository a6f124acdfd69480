//===- fuzz_safetensors.cpp - the safetensors reader ----------------------===//
// The file is opened and every tensor it declares is read as f32 (those
// under 16 MB of elements), as the Hugging Face import reads them.
#include "FuzzFiles.h"

#include "mt/Checkpoint/SafeTensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = mt::fuzz::scratchDir() + "/model.safetensors";
  mt::fuzz::writeFile(path, std::string_view(reinterpret_cast<const char *>(data), size));
  auto reader = mt::safetensors::Reader::open(path);
  if (!reader) {
    llvm::consumeError(reader.takeError());
    return 0;
  }
  for (const mt::safetensors::TensorInfo &t : reader->header().tensors) {
    (void)reader->find(t.name);
    auto values = reader->readF32(t);
    if (!values)
      llvm::consumeError(values.takeError());
  }
  return 0;
}
