//===- fuzz_checkpoint.cpp - the checkpoint manifest and shard reader -----===//
// One input holds a checkpoint's manifest and its rank file (splitInTwo),
// written as DIR/iter_0000001/{manifest.pb,rank_00000.bin} with DIR/latest;
// the reader opens it as --load would, verifies every byte, and reads each
// tensor whole. A manifest that parses as the protobuf is written framed
// and checksummed as mt-run writes it (so the fuzzer gets past the
// checksum to what the manifest says); any other is written as it is.
#include "FuzzFiles.h"

#include "mt/Checkpoint/CheckpointFiles.h"
#include "mt/Checkpoint/CheckpointReader.h"

#include <sys/stat.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto [manifest, rankFile] = mt::fuzz::splitInTwo(data, size);
  std::string dir = mt::fuzz::scratchDir() + "/ckpt", iter = dir + "/iter_0000001";
  mkdir(dir.c_str(), 0755);
  mkdir(iter.c_str(), 0755);
  mt::fuzz::writeFile(dir + "/latest", "1");
  mt::ckpt::Manifest parsed;
  std::string error;
  if (!parsed.ParseFromArray(manifest.data(), static_cast<int>(manifest.size())) ||
      !mt::writeManifest(parsed, iter + "/manifest.pb", error))
    mt::fuzz::writeFile(iter + "/manifest.pb", manifest);
  mt::fuzz::writeFile(iter + "/rank_00000.bin", rankFile);
  mt::CheckpointReader reader;
  if (!reader.open(dir, error))
    return 0;
  uint64_t bytes = 0;
  if (!reader.verify(bytes, error))
    return 0;
  const mt::ckpt::Manifest &m = reader.manifest();
  std::vector<unsigned char> whole;
  for (int64_t t = 0; t < m.tensors_size(); ++t)
    reader.readWhole(t, whole, error);
  return 0;
}
