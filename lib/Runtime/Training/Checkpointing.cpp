//===- Checkpointing.cpp - saves and restores a trainer's state ------------===//
#include "mt/Runtime/Training/Checkpointing.h"
#include "mt/Runtime/Training/Trainer.h"

#include "mt/Checkpoint/CheckpointReader.h"
#include "mt/Checkpoint/CheckpointWriter.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace mt {

namespace {

constexpr int kChecksumChannel = (1 << 22);

Group world(const Communicator &comm) {
  Group g{{}, "world"};
  for (int64_t r = 0; r < comm.size(); ++r)
    g.ranks.push_back(r);
  return g;
}

/// Every rank learns whether all succeeded. A rank that did not fail itself
/// gets an empty error: the rank that failed reports why, once.
bool agree(Communicator &comm, bool ok, const std::string &what, std::string &error) {
  if (comm.size() <= 1)
    return ok;
  int64_t failed = ok ? 0 : 1;
  std::string commError;
  if (!comm.allReduce(world(comm), &failed, 1, ElementType::I64, ReduceOp::Max, what, commError)) {
    if (ok)
      error = commError;
    return false;
  }
  if (failed && ok)
    error.clear();
  return failed == 0;
}

std::string layoutText(const plan::Config &c) {
  const plan::Parallelism &p = c.parallel();
  std::string s = "tp " + std::to_string(std::max<int64_t>(p.tensor_parallel_size(), 1)) + ", pp " +
                  std::to_string(std::max<int64_t>(p.pipeline_parallel_size(), 1));
  if (p.virtual_stages() > 1)
    s += " (" + std::to_string(p.virtual_stages()) + " virtual stages)";
  s += ", dp " + std::to_string(std::max<int64_t>(p.data_parallel_size(), 1));
  if (p.distributed_optimizer())
    s += " (distributed optimizer)";
  return s;
}

} // namespace

CheckpointSaver::CheckpointSaver(std::string dir, int64_t keep, bool background)
    : dir_(std::move(dir)), keep_(keep), background_(background) {}

CheckpointSaver::~CheckpointSaver() {
  if (writer_.joinable())
    writer_.join();
}

bool CheckpointSaver::save(Trainer &trainer, Communicator &comm, const RunPosition &position,
                           std::string &error) {
  // One save at a time: the one in flight is finished first.
  if (pending() && !finish(comm, /*wait=*/true, error))
    return false;
  auto t0 = std::chrono::steady_clock::now();
  const plan::Plan &plan = trainer.plan();
  int64_t rank = trainer.rank();
  iteration_ = position.iteration;
  bool ok = rank != 0 || beginCheckpoint(dir_, iteration_, error);
  if (!agree(comm, ok, "begin checkpoint " + std::to_string(iteration_), error))
    return false;

  // What the manifest will say, as of now.
  state_.Clear();
  state_.set_iteration(iteration_);
  state_.set_optimizer_steps(trainer.optimizerSteps());
  state_.set_consumed_train_samples(position.trainSamples);
  state_.set_consumed_valid_samples(position.validSamples);
  state_.set_train_split_samples(position.trainSplitSamples);
  state_.set_seed(plan.config().seed());
  if (LossScaler *scaler = trainer.lossScaler()) {
    LossScaler::State s = scaler->state();
    state_.mutable_loss_scaler()->set_scale(s.scale);
    state_.mutable_loss_scaler()->set_good_steps(s.goodSteps);
    state_.mutable_loss_scaler()->set_overflows_left(s.overflowsLeft);
  }
  plan_ = &plan;
  rank_ = rank;
  bytes_ = 0;
  pieces_.clear();
  sources_.clear();
  ok = savedPieces(plan, rank, pieces_, error);
  for (size_t i = 0; ok && i < pieces_.size(); ++i) {
    const SavedPiece &p = pieces_[i];
    Buffer *b = trainer.buffer(p.held.buffer);
    if (!b || b->numElements() < p.held.elements()) {
      error = "rank " + std::to_string(rank) + " has no " + std::to_string(p.held.elements()) +
              "-element buffer '" + p.held.buffer + "' to save";
      ok = false;
      break;
    }
    sources_.push_back(b->data());
    bytes_ += p.bytes;
  }
  written_ = false;
  writeOk_ = ok;
  writeError_ = ok ? std::string() : error;
  inFlight_ = true;
  if (ok && background_) {
    // Training goes on and changes the buffers: write from a copy.
    snapshot_.resize(bytes_);
    for (size_t i = 0; i < pieces_.size(); ++i) {
      std::memcpy(snapshot_.data() + pieces_[i].offset, sources_[i], pieces_[i].bytes);
      sources_[i] = snapshot_.data() + pieces_[i].offset;
    }
    holdSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    writer_ = std::thread([this] { write(); });
    return true;
  }
  if (ok)
    write();
  holdSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return finish(comm, /*wait=*/true, error);
}

void CheckpointSaver::write() {
  std::string error;
  bool ok = writeRankFile(
      dir_, iteration_, rank_, pieces_,
      [&](size_t i) { return static_cast<const void *>(sources_[i]); }, sums_, error);
  writeOk_ = ok;
  if (!ok)
    writeError_ = error;
  written_ = true;
}

bool CheckpointSaver::finish(Communicator &comm, bool wait, std::string &error) {
  if (!inFlight_)
    return true;
  std::string what = "checkpoint " + std::to_string(iteration_);
  if (!wait) {
    // Finish only once every rank has written its file; all ranks decide
    // alike.
    int64_t busy = written_ || !background_ ? 0 : 1;
    if (comm.size() > 1 && !comm.allReduce(world(comm), &busy, 1, ElementType::I64, ReduceOp::Max,
                                           "progress of " + what, error))
      return false;
    if (busy)
      return true;
  }
  if (writer_.joinable())
    writer_.join();
  inFlight_ = false;
  snapshot_.clear();
  snapshot_.shrink_to_fit();
  bool ok = writeOk_;
  if (!ok)
    error = writeError_;
  // Rank 0 collects every file's piece checksums (a count of -1: that rank failed).
  std::vector<std::vector<uint64_t>> all(static_cast<size_t>(comm.size()));
  int64_t count = ok ? static_cast<int64_t>(sums_.size()) : -1;
  std::string sumsWhat = "checksums of " + what;
  if (rank_ != 0) {
    if (!comm.send(0, kChecksumChannel, &count, 1, ElementType::I64, sumsWhat, error) ||
        (count > 0 &&
         !comm.send(0, kChecksumChannel, sums_.data(), count, ElementType::I64, sumsWhat, error)))
      return false;
  } else {
    all[0] = sums_;
    for (int64_t r = 1; r < comm.size(); ++r) {
      int64_t n = 0;
      if (!comm.recv(r, kChecksumChannel, &n, 1, ElementType::I64, sumsWhat, error))
        return false;
      if (n < 0) {
        ok = false;
        continue;
      }
      all[static_cast<size_t>(r)].resize(static_cast<size_t>(n));
      if (n > 0 && !comm.recv(r, kChecksumChannel, all[static_cast<size_t>(r)].data(), n,
                              ElementType::I64, sumsWhat, error))
        return false;
    }
    ckpt::Manifest manifest;
    ok = ok && describeCheckpoint(*plan_, state_, all, manifest, error) &&
         finishCheckpoint(dir_, iteration_, manifest, keep_, error);
  }
  if (!agree(comm, ok, "save " + what, error))
    return false;
  published_ = iteration_;
  return true;
}

bool loadCheckpoint(Trainer &trainer, Communicator &comm, const std::string &path,
                    std::string &loaded, RunPosition &position, std::vector<std::string> &notes,
                    std::string &error) {
  const plan::Plan &plan = trainer.plan();
  CheckpointReader reader;
  auto load = [&]() {
    if (!reader.open(path, error))
      return false;
    if (!reader.checkModel(plan, error))
      return false;
    std::vector<HeldPiece> held;
    if (!heldPieces(plan, trainer.rank(), held, error))
      return false;
    for (const HeldPiece &h : held) {
      Buffer *b = trainer.buffer(h.buffer);
      if (!b || b->numElements() < h.elements()) {
        error = "this rank has no " + std::to_string(h.elements()) + "-element buffer '" +
                h.buffer + "' to load into";
        return false;
      }
      // Distributed-optimizer shards are padded: the padding stays zero.
      std::memset(b->data(), 0, static_cast<size_t>(b->numElements() * h.elementBytes()));
      if (!reader.fill(*h.param, h.role, h.shape, b->data(), error))
        return false;
    }
    return true;
  };
  // Rank 0 first: a checkpoint that is damaged or of another model is
  // reported once, not by every rank.
  std::string what = "load checkpoint '" + path + "'";
  bool ok = trainer.rank() != 0 || load();
  if (!agree(comm, ok, what, error))
    return false;
  ok = trainer.rank() == 0 || load();
  if (!agree(comm, ok, what, error))
    return false;

  const ckpt::Manifest &m = reader.manifest();
  const ckpt::TrainingState &s = m.state();
  loaded = reader.directory();
  position.iteration = s.iteration();
  position.trainSamples = s.consumed_train_samples();
  position.validSamples = s.consumed_valid_samples();
  position.trainSplitSamples = s.train_split_samples();
  trainer.setOptimizerSteps(s.optimizer_steps());
  const plan::Config &c = plan.config(), &saved = m.saved_from();
  if (layoutText(saved) != layoutText(c))
    notes.push_back("reshaped from " + layoutText(saved) + " to " + layoutText(c));
  if (saved.padded_vocab_size() != c.padded_vocab_size())
    notes.push_back("vocabulary padding " + std::to_string(saved.padded_vocab_size()) + " -> " +
                    std::to_string(c.padded_vocab_size()) + " rows (padding rows start at zero)");
  if (s.seed() != c.seed())
    notes.push_back("the checkpoint's run used seed " + std::to_string(s.seed()) + ", this plan " +
                    std::to_string(c.seed()) + ": dropout masks from here on follow this plan's");
  if (LossScaler *scaler = trainer.lossScaler()) {
    if (s.loss_scaler().scale() > 0)
      scaler->restore({s.loss_scaler().scale(), s.loss_scaler().good_steps(),
                       s.loss_scaler().overflows_left()});
    else
      notes.push_back("the checkpoint has no loss scale: starting from the plan's");
  } else if (s.loss_scaler().scale() > 0) {
    notes.push_back("the checkpoint's loss scale is not used: this plan has no loss scaling");
  }
  return true;
}

} // namespace mt
