//===- InferenceSession.cpp - runs an inference plan -----------------------===//
#include "mt/Runtime/Inference/InferenceSession.h"

#include "mt/Checkpoint/CheckpointReader.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Code/Initializer.h"
#include "mt/Runtime/Code/PlanCode.h"
#include "mt/Runtime/Comm/CompiledCollectives.h"

#include <algorithm>
#include <cstring>

namespace mt {

InferenceSession::~InferenceSession() = default;

Buffer *InferenceSession::buffer(const std::string &name) {
  auto it = buffers_.find(name);
  return it == buffers_.end() ? nullptr : it->second.get();
}

Buffer &InferenceSession::ensure(const plan::TensorSpec &spec) {
  auto &slot = buffers_[spec.name()];
  if (!slot) {
    slot = std::make_unique<Buffer>(std::vector<int64_t>(spec.shape().begin(), spec.shape().end()),
                                    dtypeBytes(spec.dtype()), cuda_.get());
    allocated_ += slot->numElements() * dtypeBytes(spec.dtype());
    if (!slot->allocated() && allocationError_.empty())
      allocationError_ = "buffer '" + spec.name() + "': " + slot->allocationError();
  }
  return *slot;
}

namespace {

const plan::TensorSpec *findSpec(const google::protobuf::RepeatedPtrField<plan::TensorSpec> &specs,
                                 std::string_view name) {
  for (const plan::TensorSpec &s : specs)
    if (s.name() == name)
      return &s;
  return nullptr;
}

bool hasShape(const plan::TensorSpec *s, plan::DType dtype, size_t rank) {
  return s && s->dtype() == dtype && static_cast<size_t>(s->shape_size()) == rank;
}

} // namespace

/// The decode's caches: its own (self-attention), updated in place, of one
/// capacity; an encoder-decoder's cross-attention keys and values, which
/// the encode function writes, of the encoder's length.
bool InferenceSession::checkCaches(std::string &error) {
  auto updated = [&](const std::string &name) {
    return std::count(decode_->updated_in_place().begin(), decode_->updated_in_place().end(),
                      name) > 0;
  };
  for (const plan::TensorSpec &in : decode_->inputs()) {
    if (!buffers::isKvCache(in.name()))
      continue;
    bool cross = !updated(in.name());
    const plan::TensorSpec *written = encode_ ? findSpec(encode_->outputs(), in.name()) : nullptr;
    if (!hasShape(&in, plan::F32, 4) || in.shape(0) != batch_ ||
        (cross ? !written || written->shape(0) != batch_ || written->shape(2) != in.shape(2)
               : capacity_ && in.shape(2) != capacity_)) {
      error = "the plan is corrupt: KV cache '" + in.name() + "' is not an f32 [" +
              std::to_string(batch_) + ", heads, positions, head_dim] the decode updates" +
              (encode_ ? " or the encode function writes" : "");
      return false;
    }
    if (!cross) {
      capacity_ = in.shape(2);
      caches_.push_back(in.name());
    }
  }
  if (caches_.empty() || prefillLength_ > capacity_) {
    error = "the plan is corrupt: no KV cache, or one shorter than a prefill";
    return false;
  }
  if (encode_) {
    const plan::TensorSpec *tokens = findSpec(encode_->inputs(), buffers::batch("tokens"));
    const plan::TensorSpec *mask = findSpec(encode_->inputs(), buffers::batch("padding_mask"));
    if (!hasShape(tokens, plan::I32, 2) || tokens->shape(0) != batch_ ||
        (mask && (!hasShape(mask, plan::I1, 2) || mask->shape(0) != batch_ ||
                  mask->shape(1) != tokens->shape(1)))) {
      error = "the plan is corrupt: its encode function does not take i32 tokens [" +
              std::to_string(batch_) + ", n] (and their i1 padding mask)";
      return false;
    }
    encoderLength_ = tokens->shape(1);
  }
  return true;
}

/// A ragged batch's inputs, which plans compiled before 2026-11-29 lack:
/// each row's position ([batch] i64; only where the model has absolute
/// positions) and the cache mask ([batch, capacity] i1).
bool InferenceSession::checkRaggedInputs(std::string &error) {
  for (const plan::Function *f : {prefill_, decode_}) {
    const plan::TensorSpec *rows = findSpec(f->inputs(), buffers::batch("row_position"));
    const plan::TensorSpec *mask = findSpec(f->inputs(), buffers::batch("cache_mask"));
    if ((rows && (!hasShape(rows, plan::I64, 1) || rows->shape(0) != batch_)) ||
        (mask && (!hasShape(mask, plan::I1, 2) || mask->shape(0) != batch_ ||
                  mask->shape(1) != capacity_))) {
      error = "the plan is corrupt: function " + f->name() + " does not take i64 row positions [" +
              std::to_string(batch_) + "] and an i1 cache mask [" + std::to_string(batch_) + ", " +
              std::to_string(capacity_) + "]";
      return false;
    }
  }
  return true;
}

/// Each parameter's piece this rank holds (all of it on one rank), in the
/// buffer its functions take, initialized to the whole tensor's values there.
bool InferenceSession::initializeParameters(uint64_t seed, std::string &error) {
  std::vector<HeldPiece> held;
  if (!heldPieces(plan_, rank_, held, error))
    return false;
  for (const HeldPiece &h : held) {
    if (h.role != ckpt::PARAM)
      continue;
    const plan::Parameter &p = *h.param;
    Buffer *b = buffer(p.name());
    if (!b || b->numElements() != h.elements()) {
      error = "the plan is corrupt: no function takes rank " + std::to_string(rank_) +
              "'s piece of parameter '" + p.name() + "' (" + std::to_string(h.elements()) +
              " elements)";
      return false;
    }
    InitKind kind = p.init().kind() == plan::Init::NORMAL  ? InitKind::Normal
                    : p.init().kind() == plan::Init::ZEROS ? InitKind::Zeros
                                                           : InitKind::Ones;
    uint64_t key = parameterKey(seed, p.name());
    TensorShard shard = h.shape.shard(std::vector<int64_t>(p.shape().begin(), p.shape().end()));
    for (int64_t i = 0; i < h.elements(); ++i)
      b->as<float>()[i] = static_cast<float>(
          initialValue(kind, p.init().std(), key,
                       static_cast<uint64_t>(shard.globalIndex(h.shape.flatBegin + i))));
    pieces_.push_back(h);
  }
  return true;
}

bool InferenceSession::open(const plan::Plan &plan, uint64_t seed, std::string &error,
                            Communicator *comm, int64_t rank) {
  plan_ = plan;
  mesh_ = planMesh(plan_.config());
  comm_ = comm;
  rank_ = rank;
  if (mesh_.numRanks() > 1 && !comm_) {
    error = "the plan runs on " + std::to_string(mesh_.numRanks()) +
            " tensor-parallel ranks: run one session on each, over a communicator";
    return false;
  }
  if (rank_ < 0 || rank_ >= mesh_.numRanks()) {
    error = "rank " + std::to_string(rank_) + " is outside the plan's " +
            std::to_string(mesh_.numRanks()) + " ranks";
    return false;
  }
  for (const plan::Function &f : plan_.functions()) {
    if (f.role() == plan::Function::PREFILL)
      prefill_ = &f;
    else if (f.role() == plan::Function::DECODE)
      decode_ = &f;
    else if (f.role() == plan::Function::ENCODE)
      encode_ = &f;
  }
  if (!prefill_ || !decode_) {
    error = "the plan has no prefill and decode functions: it is a training plan; compile one "
            "for generation with mtc --inference";
    return false;
  }
  // An encoder-decoder's prefill runs the decoder on its own tokens.
  const plan::TensorSpec *tokens =
      findSpec(prefill_->inputs(), buffers::batch(encode_ ? "decoder_tokens" : "tokens"));
  const plan::TensorSpec *next = findSpec(decode_->inputs(), buffers::batch(buffers::kNextToken));
  const plan::TensorSpec *logits = findSpec(prefill_->outputs(), buffers::kLogits);
  const plan::TensorSpec *nextLogits = findSpec(decode_->outputs(), buffers::kNextLogits);
  const plan::TensorSpec *lastToken = findSpec(prefill_->inputs(), buffers::batch("last_token"));
  picksLastToken_ = lastToken != nullptr;
  for (const plan::Function *f : {prefill_, decode_})
    if (!hasShape(findSpec(f->inputs(), buffers::batch("position")), plan::I64, 0)) {
      error = "the plan is corrupt: function " + f->name() + " takes no i64 position";
      return false;
    }
  if (!hasShape(tokens, plan::I32, 2) || !hasShape(next, plan::I32, 2) ||
      !hasShape(logits, plan::F32, 3) || !hasShape(nextLogits, plan::F32, 3) ||
      next->shape(0) != tokens->shape(0) || next->shape(1) != 1 ||
      logits->shape(0) != tokens->shape(0) ||
      logits->shape(1) != (lastToken ? 1 : tokens->shape(1)) ||
      nextLogits->shape(2) != logits->shape(2) ||
      (lastToken &&
       (!hasShape(lastToken, plan::F32, 3) || lastToken->shape(0) != tokens->shape(0) ||
        lastToken->shape(1) != tokens->shape(1) || lastToken->shape(2) != 1))) {
    error = "the plan is corrupt: its prefill and decode functions do not take i32 tokens "
            "[batch, n] and give f32 logits [batch, n, vocabulary] (a prefill that picks its "
            "last token: [batch, 1, vocabulary] at an f32 [batch, n, 1] last_token)";
    return false;
  }
  batch_ = tokens->shape(0);
  prefillLength_ = tokens->shape(1);
  paddedVocab_ = logits->shape(2);
  vocab_ = plan_.config().vocab_size();
  if (vocab_ < 1 || vocab_ > paddedVocab_) {
    error = "the plan is corrupt: a vocabulary of " + std::to_string(vocab_) + " in logits of " +
            std::to_string(paddedVocab_);
    return false;
  }
  if (!checkCaches(error) || !checkRaggedInputs(error))
    return false;
  for (const plan::Parameter &p : plan_.parameters())
    if (p.dtype() != plan::F32) {
      error = "parameter '" + p.name() + "' is " + plan::DType_Name(p.dtype()) +
              ": generation runs f32 models";
      return false;
    }
  if (!loadPlanCode(plan_, module_, cuda_, error) ||
      (comm_ && !installCollectiveHooks(module_, error)))
    return false;
  int64_t arena = 0;
  for (const plan::Function *f : {prefill_, decode_, encode_}) {
    if (!f)
      continue;
    for (const auto *specs : {&f->inputs(), &f->outputs()})
      for (const plan::TensorSpec &s : *specs)
        ensure(s);
    arena = std::max(arena, f->arena_bytes());
  }
  // One arena: the functions run one at a time and keep nothing in it.
  arena_ = std::make_unique<Buffer>(std::vector<int64_t>{arena}, 1, cuda_.get());
  allocated_ += arena;
  if (!arena_->allocated() && allocationError_.empty())
    allocationError_ = "the arena of " + std::to_string(arena) + " bytes";
  if (!allocationError_.empty()) {
    error = "out of memory: " + allocationError_;
    return false;
  }
  rowStarts_.assign(static_cast<size_t>(batch_), 0);
  if (Buffer *mask = buffer(buffers::batch("cache_mask")))
    std::memset(mask->data(), 1, static_cast<size_t>(batch_ * capacity_));
  return initializeParameters(seed, error);
}

bool InferenceSession::loadCheckpoint(const std::string &path, std::string &loaded,
                                      std::string &error) {
  CheckpointReader reader;
  if (!reader.open(path, error))
    return false;
  if (!reader.checkModel(plan_, error))
    return false;
  // This rank's piece of each parameter, from a checkpoint of any layout.
  for (const HeldPiece &h : pieces_)
    if (!reader.fill(*h.param, ckpt::PARAM, h.shape, buffer(h.param->name())->data(), error))
      return false;
  loaded = reader.directory();
  return true;
}

bool InferenceSession::call(const plan::Function &fn, std::string &error) {
  std::vector<Buffer *> args;
  for (const plan::TensorSpec &s : fn.inputs())
    args.push_back(buffer(s.name()));
  for (const plan::TensorSpec &s : fn.outputs())
    args.push_back(buffer(s.name()));
  args.push_back(arena_.get());
  if (cuda_ && !cuda_->bindThread(error))
    return false;
  // A tensor-parallel rank's collectives go through its communicator.
  CollectiveContext collectives;
  collectives.comm = comm_;
  collectives.mesh = &mesh_;
  collectives.rank = rank_;
  collectives.function = fn.name();
  collectives.device = cuda_.get();
  bool called;
  {
    CollectiveScope scope(collectives);
    called = module_.call(fn.name(), args, error);
    collectives.finish();
  }
  if (!called)
    return false;
  if (!collectives.error.empty()) {
    error = collectives.error;
    return false;
  }
  return !cuda_ || cuda_->synchronize(error);
}

namespace {

bool checkTokens(const std::vector<int32_t> &tokens, int64_t vocab, std::string &error) {
  for (int32_t t : tokens)
    if (t < 0 || t >= vocab) {
      error = "token id " + std::to_string(t) + " is outside the model's vocabulary of " +
              std::to_string(vocab);
      return false;
    }
  return true;
}

} // namespace

bool InferenceSession::encode(const std::vector<std::vector<int32_t>> &rows, std::string &error) {
  if (!encode_) {
    error = "the plan has no encoder: it generates from a prompt (prefill)";
    return false;
  }
  if (static_cast<int64_t>(rows.size()) != batch_) {
    error = "an encode takes one input for each of " + std::to_string(batch_) + " rows, got " +
            std::to_string(rows.size());
    return false;
  }
  int32_t *in = buffer(buffers::batch("tokens"))->as<int32_t>();
  Buffer *mask = buffer(buffers::batch("padding_mask"));
  for (int64_t r = 0; r < batch_; ++r) {
    const std::vector<int32_t> &row = rows[static_cast<size_t>(r)];
    auto n = static_cast<int64_t>(row.size());
    if (n < 1 || n > encoderLength_ || (!mask && n != encoderLength_)) {
      error = "an encoder input holds " +
              (mask ? "1 to " + std::to_string(encoderLength_)
                    : "exactly " + std::to_string(encoderLength_) +
                          " (the model has no padding mask)") +
              " tokens, got " + std::to_string(n) + " (compile with a longer mtc --seq-length)";
      return false;
    }
    if (!checkTokens(row, vocab_, error))
      return false;
    for (int64_t i = 0; i < encoderLength_; ++i) {
      in[r * encoderLength_ + i] = i < n ? row[static_cast<size_t>(i)] : 0;
      if (mask)
        mask->as<uint8_t>()[r * encoderLength_ + i] = i < n;
    }
  }
  encoded_ = call(*encode_, error);
  return encoded_;
}

bool InferenceSession::prefill(const std::vector<int32_t> &tokens, int64_t n, int64_t position,
                               std::string &error) {
  if (encode_ && !encoded_) {
    error = "an encoder-decoder's decoder runs after encode()";
    return false;
  }
  if (n < 1 || n > prefillLength_ || static_cast<int64_t>(tokens.size()) != batch_ * n ||
      position < 0 || position + prefillLength_ > capacity_) {
    error = "a prefill takes 1 to " + std::to_string(prefillLength_) + " tokens for each of " +
            std::to_string(batch_) + " rows at a position p with p + " +
            std::to_string(prefillLength_) + " <= " + std::to_string(capacity_);
    return false;
  }
  if (!checkTokens(tokens, vocab_, error))
    return false;
  int32_t *in = buffer(buffers::batch(encode_ ? "decoder_tokens" : "tokens"))->as<int32_t>();
  // Positions past n are padding: causal attention keeps them from the
  // real ones, and what they write into the caches is overwritten before
  // anything attends to it.
  for (int64_t r = 0; r < batch_; ++r)
    for (int64_t i = 0; i < prefillLength_; ++i)
      in[r * prefillLength_ + i] = i < n ? tokens[r * n + i] : 0;
  setPosition(position);
  if (picksLastToken_) { // one-hot: the head reads token n - 1 of each row
    float *pick = buffer(buffers::batch("last_token"))->as<float>();
    for (int64_t r = 0; r < batch_; ++r)
      for (int64_t i = 0; i < prefillLength_; ++i)
        pick[r * prefillLength_ + i] = i == n - 1 ? 1.0f : 0.0f;
  }
  prefilled_ = n;
  return call(*prefill_, error);
}

const float *InferenceSession::prefillLogits(int64_t row, int64_t i) const {
  const float *logits = buffers_.at(std::string(buffers::kLogits))->as<float>();
  if (!picksLastToken_)
    return logits + (row * prefillLength_ + i) * paddedVocab_;
  return i == prefilled_ - 1 ? logits + row * paddedVocab_ : nullptr;
}

bool InferenceSession::decode(const std::vector<int32_t> &tokens, int64_t position,
                              std::string &error) {
  if (encode_ && !encoded_) {
    error = "an encoder-decoder's decoder runs after encode()";
    return false;
  }
  if (static_cast<int64_t>(tokens.size()) != batch_ || position < 0 || position >= capacity_) {
    error = "a decode takes one token for each of " + std::to_string(batch_) +
            " rows at a position below " + std::to_string(capacity_);
    return false;
  }
  if (!checkTokens(tokens, vocab_, error))
    return false;
  std::memcpy(buffer(buffers::batch(buffers::kNextToken))->data(), tokens.data(),
              tokens.size() * sizeof(int32_t));
  setPosition(position);
  return call(*decode_, error);
}

bool InferenceSession::setRowStarts(const std::vector<int64_t> &starts, std::string &error) {
  Buffer *mask = buffer(buffers::batch("cache_mask"));
  bool ragged = std::any_of(starts.begin(), starts.end(), [](int64_t s) { return s != 0; });
  if (ragged && !mask) {
    error = "prompts of different lengths need a plan that masks its caches: compile it again "
            "with mtc --inference";
    return false;
  }
  if (static_cast<int64_t>(starts.size()) != batch_ ||
      std::any_of(starts.begin(), starts.end(),
                  [&](int64_t s) { return s < 0 || s >= capacity_; })) {
    error = "row starts: one for each of " + std::to_string(batch_) + " rows, each in [0, " +
            std::to_string(capacity_) + ")";
    return false;
  }
  rowStarts_ = starts;
  for (int64_t r = 0; mask && r < batch_; ++r)
    for (int64_t j = 0; j < capacity_; ++j)
      mask->as<uint8_t>()[r * capacity_ + j] = j >= starts[static_cast<size_t>(r)];
  return true;
}

void InferenceSession::setPosition(int64_t position) {
  *buffer(buffers::batch("position"))->as<int64_t>() = position;
  if (Buffer *rows = buffer(buffers::batch("row_position")))
    for (int64_t r = 0; r < batch_; ++r)
      rows->as<int64_t>()[r] = position - rowStarts_[static_cast<size_t>(r)];
}

const float *InferenceSession::decodeLogits(int64_t row) const {
  return buffers_.at(std::string(buffers::kNextLogits))->as<float>() + row * paddedVocab_;
}

void InferenceSession::reorderCaches(const std::vector<int64_t> &parents, int64_t upto) {
  upto = std::min(upto, capacity_);
  std::vector<int64_t> starts(rowStarts_);
  for (int64_t r = 0; r < batch_; ++r)
    starts[static_cast<size_t>(r)] = rowStarts_[static_cast<size_t>(parents[r])];
  std::string ignored; // the parents' starts are valid
  setRowStarts(starts, ignored);
  for (const std::string &name : caches_) {
    Buffer &cache = *buffers_.at(name);
    const std::vector<int64_t> &shape = cache.shape();
    int64_t heads = shape[1], rowFloats = heads * shape[2] * shape[3];
    size_t span = static_cast<size_t>(upto * shape[3]) * sizeof(float);
    std::vector<float> before(cache.as<float>(), cache.as<float>() + batch_ * rowFloats);
    for (int64_t r = 0; r < batch_; ++r) {
      if (parents[r] == r)
        continue;
      for (int64_t h = 0; h < heads; ++h)
        std::memcpy(cache.as<float>() + r * rowFloats + h * shape[2] * shape[3],
                    before.data() + parents[r] * rowFloats + h * shape[2] * shape[3], span);
    }
  }
}

} // namespace mt
