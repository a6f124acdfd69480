//===- Generation.cpp - text generation over an inference session ----------===//
#include "mt/Runtime/Inference/Generation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>

namespace mt {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Row `row`'s logits over the model's vocabulary (padding dropped).
std::vector<float> logitsOf(const float *row, int64_t vocab) {
  return std::vector<float>(row, row + vocab);
}

/// Runs the prompts (equal lengths) through the caches; `last` receives each
/// row's logits at the last prompt position.
bool runPrompt(InferenceSession &s, const std::vector<std::vector<int32_t>> &rows,
               const GenerationOptions &o, const GenerationObserver &observer,
               std::vector<std::vector<float>> &last, GenerationStats &stats, std::string &error) {
  int64_t n = static_cast<int64_t>(rows.front().size()), batch = s.batch(), pos = 0;
  int64_t vocab = s.vocabSize();
  last.assign(static_cast<size_t>(batch), {});
  auto start = Clock::now();
  while (pos < n) {
    int64_t remaining = n - pos;
    // Dumping every prompt token's logits from a prefill that computes the
    // last token's only: the decode computes each.
    bool byDecode = o.promptByDecode || (observer.onLogits && !s.everyPrefillLogit());
    bool chunk = !byDecode && remaining > 1 && pos + s.prefillLength() <= s.capacity();
    if (chunk) {
      int64_t c = std::min(remaining, s.prefillLength());
      std::vector<int32_t> tokens;
      for (const auto &row : rows)
        tokens.insert(tokens.end(), row.begin() + pos, row.begin() + pos + c);
      if (!s.prefill(tokens, c, pos, error))
        return false;
      if (observer.onLogits)
        for (int64_t i = 0; i < c; ++i)
          observer.onLogits(pos + i, s.prefillLogits(0, i), vocab);
      for (int64_t r = 0; r < batch; ++r)
        last[static_cast<size_t>(r)] = logitsOf(s.prefillLogits(r, c - 1), vocab);
      pos += c;
    } else {
      std::vector<int32_t> tokens;
      for (const auto &row : rows)
        tokens.push_back(row[static_cast<size_t>(pos)]);
      if (!s.decode(tokens, pos, error))
        return false;
      if (observer.onLogits)
        observer.onLogits(pos, s.decodeLogits(0), vocab);
      for (int64_t r = 0; r < batch; ++r)
        last[static_cast<size_t>(r)] = logitsOf(s.decodeLogits(r), vocab);
      ++pos;
    }
  }
  stats.promptTokens = n;
  stats.promptSeconds = since(start);
  return true;
}

/// Continues each row's prompt (`rows`, unpadded: what the repetition
/// penalty sees) from cache slot `pos`.
bool sampleRows(InferenceSession &s, std::vector<std::vector<int32_t>> rows, int64_t pos,
                std::vector<std::vector<float>> logits, const GenerationOptions &o,
                const GenerationObserver &observer, std::vector<std::vector<int32_t>> &out,
                GenerationStats &stats, std::string &error) {
  int64_t batch = s.batch();
  out.assign(static_cast<size_t>(batch), {});
  std::vector<bool> finished(static_cast<size_t>(batch), false);
  auto start = Clock::now();
  for (int64_t step = 0; step < o.maxNewTokens; ++step) {
    std::vector<int32_t> next(static_cast<size_t>(batch));
    bool running = false;
    for (int64_t r = 0; r < batch; ++r) {
      size_t i = static_cast<size_t>(r);
      if (finished[i]) { // keeps its place in the batch, feeding the end token
        next[i] = o.eos >= 0 ? o.eos : 0;
        continue;
      }
      next[i] =
          chooseToken(logits[i], rows[i], o.sampling, static_cast<uint64_t>(step * batch + r));
      rows[i].push_back(next[i]);
      out[i].push_back(next[i]);
      if (observer.onToken)
        observer.onToken(r, next[i]);
      finished[i] = next[i] == o.eos;
      running = running || !finished[i];
    }
    stats.newTokens = step + 1;
    if (!running || step + 1 == o.maxNewTokens)
      break;
    if (!s.decode(next, pos, error))
      return false;
    ++stats.decodeCalls;
    if (observer.onLogits)
      observer.onLogits(pos, s.decodeLogits(0), s.vocabSize());
    for (int64_t r = 0; r < batch; ++r)
      logits[static_cast<size_t>(r)] = logitsOf(s.decodeLogits(r), s.vocabSize());
    ++pos;
  }
  stats.decodeSeconds = since(start);
  return true;
}

std::vector<double> logSoftmax(const std::vector<float> &logits) {
  double top = *std::max_element(logits.begin(), logits.end()), sum = 0;
  for (float l : logits)
    sum += std::exp(l - top);
  double shift = top + std::log(sum);
  std::vector<double> out(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    out[i] = logits[i] - shift;
  return out;
}

struct Hypothesis {
  double score; // normalized
  std::vector<int32_t> tokens;
};

bool beamSearch(InferenceSession &s, const std::vector<int32_t> &prompt,
                std::vector<std::vector<float>> logits, const GenerationOptions &o,
                std::vector<std::vector<int32_t>> &out, GenerationStats &stats,
                std::string &error) {
  int64_t width = o.beams, pos = static_cast<int64_t>(prompt.size());
  const double minusInf = -std::numeric_limits<double>::infinity();
  std::vector<double> scores(static_cast<size_t>(width), minusInf);
  scores[0] = 0; // the beams start equal: only the first is expanded
  std::vector<std::vector<int32_t>> beams(static_cast<size_t>(width));
  std::vector<Hypothesis> kept;
  auto normalized = [&](double sum, size_t length) {
    return sum / std::pow(static_cast<double>(length), o.lengthPenalty);
  };
  auto keep = [&](double score, std::vector<int32_t> tokens) {
    kept.push_back({score, std::move(tokens)});
    if (static_cast<int64_t>(kept.size()) > width) {
      auto worst = std::min_element(kept.begin(), kept.end(),
                                    [](const auto &a, const auto &b) { return a.score < b.score; });
      kept.erase(worst);
    }
  };
  auto start = Clock::now();
  bool done = false;
  for (int64_t step = 0; step < o.maxNewTokens && !done; ++step) {
    // (score, beam, token), best first; ties by beam, then token.
    std::vector<std::tuple<double, int64_t, int32_t>> candidates;
    for (int64_t b = 0; b < width; ++b) {
      if (scores[static_cast<size_t>(b)] == minusInf)
        continue;
      std::vector<float> l = logits[static_cast<size_t>(b)];
      std::vector<int32_t> seen(prompt);
      seen.insert(seen.end(), beams[static_cast<size_t>(b)].begin(),
                  beams[static_cast<size_t>(b)].end());
      penalizeRepetition(l, seen, o.sampling.repetitionPenalty);
      std::vector<double> lp = logSoftmax(l);
      for (size_t t = 0; t < lp.size(); ++t)
        candidates.emplace_back(scores[static_cast<size_t>(b)] + lp[t], b, static_cast<int32_t>(t));
    }
    auto better = [](const auto &a, const auto &c) {
      if (std::get<0>(a) != std::get<0>(c))
        return std::get<0>(a) > std::get<0>(c);
      return std::make_pair(std::get<1>(a), std::get<2>(a)) <
             std::make_pair(std::get<1>(c), std::get<2>(c));
    };
    size_t top = std::min(candidates.size(), static_cast<size_t>(2 * width));
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(top),
                      candidates.end(), better);
    std::vector<int64_t> parents;
    std::vector<int32_t> tokens;
    std::vector<double> next;
    for (size_t rank = 0; rank < top && static_cast<int64_t>(parents.size()) < width; ++rank) {
      auto [score, b, t] = candidates[rank];
      if (t == o.eos) {
        // An end token among the best `width` finishes a hypothesis.
        if (rank < static_cast<size_t>(width)) {
          std::vector<int32_t> ended = beams[static_cast<size_t>(b)];
          ended.push_back(t);
          keep(normalized(score, ended.size()), std::move(ended));
        }
        continue;
      }
      parents.push_back(b);
      tokens.push_back(t);
      next.push_back(score);
    }
    std::vector<std::vector<int32_t>> grown;
    for (size_t i = 0; i < parents.size(); ++i) {
      grown.push_back(beams[static_cast<size_t>(parents[i])]);
      grown.back().push_back(tokens[i]);
    }
    while (static_cast<int64_t>(parents.size()) < width) { // fewer live candidates than beams
      parents.push_back(0);
      tokens.push_back(tokens.empty() ? 0 : tokens.front());
      next.push_back(minusInf);
      grown.push_back(grown.empty() ? std::vector<int32_t>{} : grown.front());
    }
    beams = std::move(grown);
    scores = next;
    stats.newTokens = step + 1;
    double best = *std::max_element(scores.begin(), scores.end());
    if (static_cast<int64_t>(kept.size()) >= width) {
      double worst = std::min_element(kept.begin(), kept.end(), [](const auto &a, const auto &b) {
                       return a.score < b.score;
                     })->score;
      done = o.earlyStopping || worst >= normalized(best, static_cast<size_t>(step + 1));
    }
    if (best == minusInf)
      done = true;
    if (done || step + 1 == o.maxNewTokens)
      break;
    s.reorderCaches(parents, pos);
    if (!s.decode(tokens, pos, error))
      return false;
    ++stats.decodeCalls;
    for (int64_t b = 0; b < width; ++b)
      logits[static_cast<size_t>(b)] = logitsOf(s.decodeLogits(b), s.vocabSize());
    ++pos;
  }
  if (!done)
    for (int64_t b = 0; b < width; ++b)
      if (scores[static_cast<size_t>(b)] != minusInf)
        keep(normalized(scores[static_cast<size_t>(b)], beams[static_cast<size_t>(b)].size()),
             beams[static_cast<size_t>(b)]);
  stats.decodeSeconds = since(start);
  // The best; the first kept on ties.
  const Hypothesis *best = nullptr;
  for (const Hypothesis &h : kept)
    if (!best || h.score > best->score)
      best = &h;
  out.assign(1, best ? best->tokens : std::vector<int32_t>{});
  return true;
}

} // namespace

bool generate(InferenceSession &s, const std::vector<std::vector<int32_t>> &prompts,
              const GenerationOptions &o, const GenerationObserver &observer,
              std::vector<std::vector<int32_t>> &continuations, GenerationStats &stats,
              std::string &error) {
  stats = GenerationStats();
  int64_t batch = s.batch();
  bool beam = o.beams > 1;
  if (beam && (o.beams != batch || prompts.size() != 1)) {
    error = "beam search over " + std::to_string(o.beams) +
            " beams needs one prompt and a plan "
            "compiled for a batch of " +
            std::to_string(o.beams) +
            " (mtc --inference "
            "--micro-batch-size=" +
            std::to_string(o.beams) + "); this plan's batch is " + std::to_string(batch);
    return false;
  }
  if (prompts.empty() || (prompts.size() != 1 && static_cast<int64_t>(prompts.size()) != batch)) {
    error = "give one prompt, or one per row of the plan's batch of " + std::to_string(batch);
    return false;
  }
  std::vector<std::vector<int32_t>> rows(static_cast<size_t>(batch), prompts.front());
  if (prompts.size() > 1)
    rows = prompts;
  if (s.isEncoderDecoder()) {
    auto start = Clock::now();
    if (!s.encode(rows, error))
      return false;
    stats.encodeSeconds = since(start);
    rows.assign(static_cast<size_t>(batch),
                o.decoderPrompt.empty() ? std::vector<int32_t>{o.decoderStart} : o.decoderPrompt);
  }
  // Prompts of different lengths are left-padded to end together (a
  // ragged batch): each row's padding stays hidden from its queries.
  size_t longest = 0;
  for (const auto &row : rows) {
    if (row.empty()) {
      error = "every prompt needs at least one token";
      return false;
    }
    longest = std::max(longest, row.size());
  }
  int64_t n = static_cast<int64_t>(longest);
  std::vector<int64_t> starts;
  std::vector<std::vector<int32_t>> padded;
  for (const auto &row : rows) {
    starts.push_back(n - static_cast<int64_t>(row.size()));
    padded.push_back(std::vector<int32_t>(static_cast<size_t>(starts.back()), 0));
    padded.back().insert(padded.back().end(), row.begin(), row.end());
  }
  if (n + o.maxNewTokens > s.capacity() + 1) {
    error = "a prompt of " + std::to_string(n) + " tokens and " + std::to_string(o.maxNewTokens) +
            " new ones need " + std::to_string(n + o.maxNewTokens - 1) +
            " positions; the KV cache holds " + std::to_string(s.capacity()) +
            " (mtc --inference-max-seq-length)";
    return false;
  }
  if (o.maxNewTokens < 0 || !(o.sampling.temperature > 0) || o.sampling.topK < 0 ||
      !(o.sampling.topP > 0 && o.sampling.topP <= 1) || !(o.sampling.repetitionPenalty > 0)) {
    error = "need max new tokens >= 0, temperature > 0, top-k >= 0, top-p in (0, 1] and a "
            "repetition penalty > 0";
    return false;
  }
  if (!s.setRowStarts(starts, error))
    return false;
  std::vector<std::vector<float>> last;
  if (!runPrompt(s, padded, o, observer, last, stats, error))
    return false;
  if (o.maxNewTokens == 0) {
    continuations.assign(static_cast<size_t>(beam ? 1 : batch), {});
    return true;
  }
  return beam ? beamSearch(s, rows.front(), std::move(last), o, continuations, stats, error)
              : sampleRows(s, rows, n, std::move(last), o, observer, continuations, stats, error);
}

} // namespace mt
