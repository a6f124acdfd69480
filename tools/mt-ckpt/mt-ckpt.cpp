//===- mt-ckpt.cpp - looks inside, verifies and converts checkpoints -------===//
//
//   mt-ckpt show PATH                    what a checkpoint holds
//   mt-ckpt verify PATH                  reads every byte against its checksum
//   mt-ckpt convert PATH --plan P -o DIR the same checkpoint in plan P's layout
//   mt-ckpt export PATH --format=hf -o DIR   as Hugging Face files (GPT-2, Llama)
//   mt-ckpt import HF_DIR --plan P -o DIR    Hugging Face files as a checkpoint
//
// PATH is a checkpoint (DIR/iter_*) or a save directory (its newest).
//
//===----------------------------------------------------------------------===//
#include "mt/Checkpoint/CheckpointFiles.h"
#include "mt/Checkpoint/CheckpointReader.h"
#include "mt/Checkpoint/CheckpointWriter.h"
#include "mt/Checkpoint/HuggingFace.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Plan/PlanFile.h"

#include <llvm/ADT/StringSwitch.h>
#include <llvm/Support/CommandLine.h>

#include <cstdint>
#include <cstdio>
#include <map>

using namespace llvm;

namespace {

cl::SubCommand showCmd("show", "List a checkpoint's tensors, shapes, step, layout and files");
cl::SubCommand verifyCmd("verify", "Read every file of a checkpoint against its checksums");
cl::SubCommand convertCmd("convert",
                          "Write a checkpoint in another plan's layout (offline reshape)");
cl::SubCommand exportCmd("export", "Write a checkpoint's model in another framework's files");
cl::SubCommand importCmd("import",
                         "Make a checkpoint of a plan's model from Hugging Face files");

cl::opt<std::string> showPath(cl::Positional, cl::Required, cl::desc("<checkpoint>"),
                              cl::sub(showCmd));
cl::opt<std::string> verifyPath(cl::Positional, cl::Required, cl::desc("<checkpoint>"),
                                cl::sub(verifyCmd));
cl::opt<std::string> convertPath(cl::Positional, cl::Required, cl::desc("<checkpoint>"),
                                 cl::sub(convertCmd));
cl::opt<std::string> planPath("plan", cl::Required, cl::desc("the plan whose layout to write"),
                              cl::value_desc("PLAN"), cl::sub(convertCmd), cl::sub(importCmd));
cl::opt<std::string> importPath(cl::Positional, cl::Required,
                                cl::desc("<directory with config.json and model.safetensors or "
                                         "model.safetensors.index.json>"),
                                cl::sub(importCmd));
cl::opt<std::string> outDir("o", cl::Required, cl::desc("directory to write into"),
                            cl::value_desc("DIR"), cl::sub(convertCmd), cl::sub(exportCmd),
                            cl::sub(importCmd));
cl::opt<std::string> exportPath(cl::Positional, cl::Required, cl::desc("<checkpoint>"),
                                cl::sub(exportCmd));
enum class ExportFormat { HuggingFace };
cl::opt<ExportFormat> exportFormat(
    "format", cl::Required, cl::desc("the files to write"),
    cl::values(clEnumValN(ExportFormat::HuggingFace, "hf",
                          "Hugging Face (GPT2LMHeadModel, LlamaForCausalLM): config.json and "
                          "safetensors")),
    cl::sub(exportCmd));
cl::opt<std::string> exportDtype("dtype", cl::init("f32"),
                                 cl::desc("the exported tensors' type: f32, bf16 or f16"),
                                 cl::sub(exportCmd));
cl::opt<std::string> maxShardSize(
    "max-shard-size", cl::init("5GB"),
    cl::desc("largest safetensors file before sharding with an index, as save_pretrained "
             "(bytes, or with KB, MB, GB)"),
    cl::sub(exportCmd));

int fail(const std::string &message) {
  std::fprintf(stderr, "mt-ckpt: error: %s\n", message.c_str());
  return 1;
}

std::string layoutOf(const mt::plan::Config &c) {
  const mt::plan::Parallelism &p = c.parallel();
  auto one = [](int64_t v) { return std::to_string(v > 0 ? v : 1); };
  std::string s = "tp " + one(p.tensor_parallel_size()) +
                  (p.sequence_parallel() ? " (sequence parallel)" : "") + ", pp " +
                  one(p.pipeline_parallel_size());
  if (p.virtual_stages() > 1)
    s += " (" + std::to_string(p.virtual_stages()) + " virtual stages, interleaved)";
  s += ", dp " + one(p.data_parallel_size()) +
       (p.distributed_optimizer() ? " (distributed optimizer)" : "");
  return s;
}

int show(const std::string &path) {
  mt::CheckpointReader reader;
  std::string error;
  if (!reader.open(path, error))
    return fail(error);
  const mt::ckpt::Manifest &m = reader.manifest();
  const mt::ckpt::TrainingState &s = m.state();
  const mt::plan::Config &c = m.saved_from();
  std::printf("checkpoint %s\n", reader.directory().c_str());
  std::printf("  format %llu, written %s by %s\n",
              static_cast<unsigned long long>(m.format_version()), m.created().c_str(),
              m.producer().c_str());
  std::printf("  model %s, fingerprint %s\n", m.model().c_str(), m.fingerprint().c_str());
  if (m.weights_only())
    std::printf("  weights only: AdamW's moments were not saved and load as zeros\n");
  std::printf("  iteration %lld (%lld optimizer steps), consumed samples: %lld train, %lld "
              "validation; seed %llu\n",
              static_cast<long long>(s.iteration()), static_cast<long long>(s.optimizer_steps()),
              static_cast<long long>(s.consumed_train_samples()),
              static_cast<long long>(s.consumed_valid_samples()),
              static_cast<unsigned long long>(s.seed()));
  if (s.loss_scaler().scale() > 0)
    std::printf("  loss scale %g (%lld good steps, %lld overflows left)\n", s.loss_scaler().scale(),
                static_cast<long long>(s.loss_scaler().good_steps()),
                static_cast<long long>(s.loss_scaler().overflows_left()));
  std::printf("  saved from: %s; vocabulary %lld padded to %lld; micro-batch %lld, global batch "
              "%lld, seq %lld, %s\n",
              layoutOf(c).c_str(), static_cast<long long>(c.vocab_size()),
              static_cast<long long>(c.padded_vocab_size()),
              static_cast<long long>(c.micro_batch_size()),
              static_cast<long long>(c.global_batch_size()), static_cast<long long>(c.seq_length()),
              std::string(mt::activationTypeName(c.activation_type())).c_str());
  const mt::plan::ModelArchitecture &a = c.architecture();
  char rotary[48] = "";
  if (a.rotary_base() > 0)
    std::snprintf(rotary, sizeof rotary, " (base %g)", a.rotary_base());
  if (a.layers() > 0)
    std::printf("  architecture: %lld layers, hidden %lld, %lld heads (%lld key/value), ffn %lld, "
                "%s positions%s, %s (eps %g), %s, %s head, %s\n",
                static_cast<long long>(a.layers()), static_cast<long long>(a.hidden()),
                static_cast<long long>(a.heads()), static_cast<long long>(a.kv_heads()),
                static_cast<long long>(a.ffn_hidden()),
                std::string(mt::nameOf(a.positions())).c_str(),
                rotary,
                std::string(mt::nameOf(a.norm())).c_str(), a.norm_epsilon(),
                std::string(mt::nameOf(a.activation())).c_str(),
                a.tied_embeddings() ? "tied" : "untied", a.biases() ? "biases" : "no biases");
  std::printf("tensors (%d):\n", m.tensors_size());
  for (const mt::ckpt::Tensor &t : m.tensors()) {
    std::string pad = t.unpadded_rows() > 0
                          ? " (rows from " + std::to_string(t.unpadded_rows()) + " are padding)"
                          : "";
    std::printf("  %-32s %-10s %s %s%s\n", t.name().c_str(), mt::roleName(t.role()),
                mt::plan::DType_Name(t.dtype()).c_str(),
                mt::shapeText({t.shape().begin(), t.shape().end()}).c_str(), pad.c_str());
  }
  std::printf("files (%d):\n", m.files_size());
  for (const mt::ckpt::File &f : m.files())
    std::printf("  %s: rank %lld, %llu bytes, %d pieces, xxh3 %016llx\n", f.name().c_str(),
                static_cast<long long>(f.rank()), static_cast<unsigned long long>(f.bytes()),
                f.pieces_size(), static_cast<unsigned long long>(f.checksum()));
  return 0;
}

int verify(const std::string &path) {
  mt::CheckpointReader reader;
  std::string error;
  uint64_t bytes = 0;
  if (!reader.open(path, error) || !reader.verify(bytes, error))
    return fail(error);
  std::printf("ok: %s: %d tensors, %llu bytes in %d files, every checksum matches\n",
              reader.directory().c_str(), reader.manifest().tensors_size(),
              static_cast<unsigned long long>(bytes), reader.manifest().files_size());
  return 0;
}

int convert(const std::string &path, const std::string &planFile, const std::string &dir) {
  mt::CheckpointReader reader;
  mt::plan::Plan plan;
  std::string error;
  if (!reader.open(path, error) || !mt::readPlanFile(planFile, plan, error))
    return fail(error);
  std::string diff = reader.differences(plan);
  if (!diff.empty())
    return fail("checkpoint '" + reader.directory() + "' is not of the plan's model:\n" + diff);
  int64_t iteration = reader.manifest().state().iteration();
  int64_t ranks = mt::planMesh(plan.config()).numRanks();
  std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(ranks));
  if (!mt::beginCheckpoint(dir, iteration, error))
    return fail(error);
  // Rank by rank, through the same reads a resumed run makes.
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<mt::SavedPiece> pieces;
    if (!mt::savedPieces(plan, r, pieces, error))
      return fail(error);
    std::vector<std::vector<unsigned char>> data(pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      data[i].resize(pieces[i].bytes);
      if (!reader.fill(*pieces[i].held.param, pieces[i].held.role, pieces[i].held.shape,
                       data[i].data(), error))
        return fail(error);
    }
    if (!mt::writeRankFile(
            dir, iteration, r, pieces,
            [&](size_t i) { return static_cast<const void *>(data[i].data()); },
            sums[static_cast<size_t>(r)], error))
      return fail(error);
  }
  mt::ckpt::Manifest manifest;
  if (!mt::describeCheckpoint(plan, reader.manifest().state(), sums, manifest, error) ||
      !mt::finishCheckpoint(dir, iteration, manifest, 0, error))
    return fail(error);
  std::printf("wrote %s/%s: iteration %lld of model %s in the plan's layout (%s), %lld files\n",
              dir.c_str(), mt::iterationDirName(iteration).c_str(),
              static_cast<long long>(iteration), plan.config().model().c_str(),
              layoutOf(plan.config()).c_str(), static_cast<long long>(ranks));
  return 0;
}

/// "5GB" as save_pretrained reads it (decimal units), or plain bytes.
bool parseSize(const std::string &text, uint64_t &bytes) {
  StringRef s(text), digits = s.take_while([](char c) { return c >= '0' && c <= '9'; });
  StringRef unit = s.drop_front(digits.size());
  uint64_t scale = StringSwitch<uint64_t>(unit.upper())
                       .Case("", 1)
                       .Case("B", 1)
                       .Case("KB", 1000)
                       .Case("MB", 1000'000)
                       .Case("GB", 1000'000'000)
                       .Default(0);
  if (digits.empty() || !scale || digits.getAsInteger(10, bytes) || bytes == 0 ||
      bytes > UINT64_MAX / scale)
    return false;
  bytes *= scale;
  return true;
}

int exportModel(const std::string &path, const std::string &dir) {
  mt::HuggingFaceExport options;
  options.dtype = StringRef(exportDtype).upper();
  if (options.dtype != "F32" && options.dtype != "BF16" && options.dtype != "F16")
    return fail("--dtype=" + exportDtype + ": exports write f32, bf16 or f16");
  if (!parseSize(maxShardSize, options.maxShardBytes))
    return fail("--max-shard-size=" + maxShardSize + ": give bytes, or a size such as 500MB or 5GB");
  mt::CheckpointReader reader;
  std::string error;
  if (!reader.open(path, error))
    return fail(error);
  auto exported = mt::exportHuggingFace(reader, dir, options);
  if (!exported)
    return fail(llvm::toString(exported.takeError()));
  const mt::plan::ModelArchitecture &a = reader.manifest().saved_from().architecture();
  std::string files = exported->files.size() == 1
                          ? exported->files[0]
                          : "model.safetensors.index.json, " +
                                std::to_string(exported->files.size()) + " shards";
  std::printf("wrote %s/%s and config.json: %s with %lld layers, hidden %lld, "
              "%lld heads, vocabulary %lld (iteration %lld of %s)\n",
              dir.c_str(), files.c_str(), exported->family.c_str(),
              static_cast<long long>(a.layers()), static_cast<long long>(a.hidden()),
              static_cast<long long>(a.heads()),
              static_cast<long long>(reader.manifest().saved_from().vocab_size()),
              static_cast<long long>(reader.manifest().state().iteration()),
              reader.directory().c_str());
  return 0;
}

int importModel(const std::string &hfDir, const std::string &planFile, const std::string &dir) {
  mt::plan::Plan plan;
  std::string error, notes;
  if (!mt::readPlanFile(planFile, plan, error))
    return fail(error);
  if (llvm::Error e = mt::importHuggingFace(hfDir, plan, dir, notes))
    return fail(llvm::toString(std::move(e)));
  std::printf("wrote %s/%s: model %s from %s in the plan's layout (%s), weights only%s%s\n",
              dir.c_str(),
              mt::iterationDirName(0).c_str(), plan.config().model().c_str(), hfDir.c_str(),
              layoutOf(plan.config()).c_str(), notes.empty() ? "" : "; ",
              notes.empty() ? "" : notes.substr(0, notes.size() - 2).c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "mt-ckpt: looks inside, verifies and converts mt checkpoints\n");
  if (showCmd)
    return show(showPath);
  if (verifyCmd)
    return verify(verifyPath);
  if (convertCmd)
    return convert(convertPath, planPath, outDir);
  if (exportCmd)
    return exportModel(exportPath, outDir);
  if (importCmd)
    return importModel(importPath, planPath, outDir);
  return fail("name a subcommand: show, verify, convert, export or import (mt-ckpt --help)");
}
