//===- fuzz_indexed_dataset.cpp - Megatron's .idx/.bin reader -------------===//
// One input holds both files (splitInTwo); every token of every sequence
// the reader accepts is read, as training would.
#include "FuzzFiles.h"

#include "mt/Data/IndexedDataset.h"

#include <algorithm>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto [idx, bin] = mt::fuzz::splitInTwo(data, size);
  std::string prefix = mt::fuzz::scratchDir() + "/data";
  mt::fuzz::writeFile(prefix + ".idx", idx);
  mt::fuzz::writeFile(prefix + ".bin", bin);
  mt::IndexedDataset dataset;
  std::string error;
  if (!dataset.open(prefix, error))
    return 0;
  int64_t budget = 1 << 20; // tokens read per input at most
  for (int64_t s = 0; s < dataset.numSequences() && budget > 0; ++s) {
    int64_t n = std::min(dataset.sequenceLength(s), budget);
    budget -= n;
    for (int64_t k = 0; k < n; ++k)
      (void)dataset.token(s, k);
    if (n > 0 && dataset.dtype() != mt::TokenDType::Int64 && dataset.dtype() != mt::TokenDType::Float32 &&
        dataset.dtype() != mt::TokenDType::Float64) {
      std::vector<int32_t> out(static_cast<size_t>(n));
      dataset.copyTokens(s, 0, n, out.data());
    }
  }
  for (int64_t i = 0; i <= dataset.numDocuments(); ++i)
    (void)dataset.documentIndex(i);
  return 0;
}
