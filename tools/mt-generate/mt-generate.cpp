//===- mt-generate.cpp - text generation from an inference plan ------------===//
//
// mt-generate PLAN [--load CKPT] --prompt TEXT: the plan mtc --inference
// compiled, the parameters of a checkpoint (any layout, or one mt-ckpt
// import made from Hugging Face files), the GPT-2 tokenizer; greedy,
// sampled or beam-searched continuations, streamed as they come, with the
// prompt's and the decode's tokens per second. An encoder-decoder's plan
// (T5) reads the prompt as the encoder's input and prints what the decoder
// generates from its start token. A tensor-parallel plan runs its ranks as
// threads of this process, or, started by mpirun (or srun), one rank per
// process; each holds its pieces of the parameters, and rank 0 prints.
//
//===----------------------------------------------------------------------===//
#include "mt/Data/DocumentTokenizer.h"
#include "mt/Plan/InferenceMemory.h"
#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Runtime/Comm/MpiTransport.h"
#include "mt/Runtime/Comm/ThreadTransport.h"
#include "mt/Runtime/Inference/Generation.h"
#include "mt/Support/HelpOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

namespace cl = llvm::cl;
using namespace mt;

static cl::OptionCategory category("mt-generate options");
static cl::opt<std::string> planPath(cl::Positional, cl::desc("<plan from mtc --inference>"),
                                     cl::Required, cl::cat(category));
static cl::opt<std::string> load("load",
                                 cl::desc("checkpoint to take the parameters from (any layout; "
                                          "default: the plan's initialization from --seed)"),
                                 cl::cat(category));
static cl::list<std::string> prompts("prompt",
                                     cl::desc("prompt text (repeat it for one prompt per row of "
                                              "the plan's batch)"),
                                     cl::cat(category));
static cl::opt<std::string> promptFile("prompt-file", cl::desc("read the prompt from a file"),
                                       cl::cat(category));
static cl::list<std::string> promptIds(
    "prompt-ids",
    cl::desc("the prompt as token ids, separated by commas or spaces (repeatable, as --prompt)"),
    cl::cat(category));
static cl::opt<int64_t> maxNewTokens("max-new-tokens", cl::desc("tokens to generate at most"),
                                     cl::init(32), cl::cat(category));
static cl::opt<bool> sample("sample",
                            cl::desc("draw tokens (default: greedy); --temperature, --top-k and "
                                     "--top-p imply it"),
                            cl::cat(category));
static cl::opt<double> temperature("temperature", cl::desc("divides the logits (default 1)"),
                                   cl::init(1.0), cl::cat(category));
static cl::opt<int64_t> topK("top-k", cl::desc("draw from the k most likely (0: all)"), cl::init(0),
                             cl::cat(category));
static cl::opt<double> topP("top-p",
                            cl::desc("draw from the smallest set of most likely tokens whose "
                                     "probability reaches p (1: all)"),
                            cl::init(1.0), cl::cat(category));
static cl::opt<double>
    repetitionPenalty("repetition-penalty",
                      cl::desc("divide seen tokens' positive logits by this, multiply "
                               "negative ones (CTRL; 1: off)"),
                      cl::init(1.0), cl::cat(category));
static cl::opt<int64_t> beams("beams",
                              cl::desc("beam search over N beams (the plan's batch must be N)"),
                              cl::init(1), cl::cat(category));
static cl::opt<double> lengthPenalty("length-penalty",
                                     cl::desc("beam scores are log-probability sums / "
                                              "length^this (default 1)"),
                                     cl::init(1.0), cl::cat(category));
static cl::opt<bool> earlyStopping("early-stopping",
                                   cl::desc("stop a beam search once --beams hypotheses end"),
                                   cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("seed of the draws (and of parameters not loaded)"),
                              cl::init(1234), cl::cat(category));
static cl::opt<int64_t> eos("eos",
                            cl::desc("end token id (default: the tokenizer's: GPT-2's "
                                     "<|endoftext|>, 50256, or the SentencePiece model's </s>)"),
                            cl::init(Gpt2Tokenizer::kEndOfText), cl::cat(category));
static cl::opt<int32_t>
    decoderStart("decoder-start-token-id",
                 cl::desc("an encoder-decoder's first decoder token (default 0, T5's padding id)"),
                 cl::init(0), cl::cat(category));
static cl::opt<std::string> decoderPromptIds(
    "decoder-prompt-ids",
    cl::desc("an encoder-decoder's decoder prefix as token ids, its start token included "
             "(default: the start token alone)"),
    cl::cat(category));
static cl::opt<bool> ignoreEos("ignore-eos", cl::desc("generate --max-new-tokens regardless"),
                               cl::cat(category));
static cl::opt<std::string> tokenizerDir(
    "tokenizer",
    cl::desc("directory of encoder.json and vocab.bpe (default: the installed GPT-2 files)"),
    cl::cat(category));
static cl::opt<std::string> tokenizerType(
    "tokenizer-type",
    cl::desc("GPT2BPETokenizer (default) or SentencePieceTokenizer (Llama2Tokenizer) with "
             "--tokenizer-model"),
    cl::init("GPT2BPETokenizer"), cl::cat(category));
static cl::opt<std::string>
    tokenizerModel("tokenizer-model", cl::desc("the SentencePiece model file"), cl::cat(category));
static cl::opt<bool> printIds("ids", cl::desc("print token ids instead of text"),
                              cl::cat(category));
static cl::opt<bool> promptByDecode(
    "prompt-by-decode",
    cl::desc("run the prompt one token at a time through the decode function (a check of the "
             "KV cache against the prefill)"),
    cl::cat(category));
static cl::opt<std::string> dumpLogits(
    "dump-logits",
    cl::desc("write row 0's logits at every position run, f32 [positions, vocabulary], to FILE "
             "(the prompt runs through the decode unless the plan's prefill computes every "
             "token's: mtc --all-prefill-logits)"),
    cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("no statistics on stderr"), cl::cat(category));

static int fail(const std::string &message) {
  std::fprintf(stderr, "mt-generate: error: %s\n", message.c_str());
  return 1;
}

static bool parseIds(const std::string &text, std::vector<int32_t> &ids, std::string &error,
                     const char *flag = "--prompt-ids") {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::SplitString(spaced, parts);
  for (llvm::StringRef p : parts) {
    int32_t id = 0;
    if (p.trim().getAsInteger(10, id)) {
      error = std::string(flag) + ": '" + p.str() + "' is not a token id";
      return false;
    }
    ids.push_back(id);
  }
  return true;
}

/// The prompts (one per row, or one for all) as token ids.
static bool readPrompts(DocumentTokenizer &tokenizer, std::vector<std::vector<int32_t>> &rows,
                        std::string &error) {
  int inputs =
      (prompts.empty() ? 0 : 1) + (promptFile.empty() ? 0 : 1) + (promptIds.empty() ? 0 : 1);
  if (inputs != 1) {
    error = "give the prompt once: --prompt, --prompt-file or --prompt-ids";
    return false;
  }
  bool needText = !printIds || promptIds.empty();
  TokenizerChoice choice;
  choice.type = tokenizerType;
  choice.model = tokenizerModel;
  if (!tokenizerDir.empty()) {
    choice.vocabFile = tokenizerDir + "/" + Gpt2Tokenizer::kVocabFileName;
    choice.mergeFile = tokenizerDir + "/" + Gpt2Tokenizer::kMergesFileName;
  }
  if (needText && !tokenizer.load(choice, error))
    return false;
  if (!promptIds.empty()) {
    for (const std::string &text : promptIds)
      if (!parseIds(text, rows.emplace_back(), error))
        return false;
  } else if (!promptFile.empty()) {
    auto file = llvm::MemoryBuffer::getFile(promptFile);
    if (!file) {
      error = "cannot read --prompt-file '" + promptFile + "': " + file.getError().message();
      return false;
    }
    tokenizer.encodeDocument((*file)->getBuffer(), rows.emplace_back());
  } else {
    for (const std::string &text : prompts)
      tokenizer.encodeDocument(text, rows.emplace_back());
  }
  return true;
}

static GenerationOptions optionsFromFlags() {
  GenerationOptions options;
  options.maxNewTokens = maxNewTokens;
  options.eos = ignoreEos ? -1 : static_cast<int32_t>(eos);
  if (!ignoreEos && !eos.getNumOccurrences() && tokenizerType != "GPT2BPETokenizer")
    options.eos = -2; // the tokenizer's, set once it is loaded
  options.sampling.greedy = !(sample || temperature.getNumOccurrences() ||
                              topK.getNumOccurrences() || topP.getNumOccurrences());
  options.sampling.temperature = temperature;
  options.sampling.topK = topK;
  options.sampling.topP = topP;
  options.sampling.repetitionPenalty = repetitionPenalty;
  options.sampling.seed = seed;
  options.beams = beams;
  options.lengthPenalty = lengthPenalty;
  options.earlyStopping = earlyStopping;
  options.promptByDecode = promptByDecode;
  options.decoderStart = decoderStart;
  return options;
}

/// The flags' generation options for `session`'s plan, with the end token
/// resolved; false with `error` for a combination that cannot run.
static bool optionsFor(const InferenceSession &session, const DocumentTokenizer &tokenizer,
                       GenerationOptions &options, std::string &error) {
  options = optionsFromFlags();
  bool encoderDecoder = session.isEncoderDecoder();
  if (!decoderPromptIds.empty()) {
    if (!encoderDecoder) {
      error = "--decoder-prompt-ids is for encoder-decoder plans (T5); give this plan's prompt "
              "with --prompt-ids";
      return false;
    }
    if (!parseIds(decoderPromptIds, options.decoderPrompt, error, "--decoder-prompt-ids"))
      return false;
    if (options.decoderPrompt.empty()) {
      error = "--decoder-prompt-ids holds no token id";
      return false;
    }
  }
  if (options.eos == -2) // no tokenizer loaded (ids in and out): no end token
    options.eos = tokenizer.loaded() ? tokenizer.endOfText() : -1;
  // T5 ends at </s> (1) whatever reads its ids; GPT-2's end token is not its.
  if (encoderDecoder && !ignoreEos && !eos.getNumOccurrences() &&
      tokenizerType == "GPT2BPETokenizer")
    options.eos = 1;
  if (beams > 1 && !options.sampling.greedy) {
    error = "--beams searches; it does not sample: drop --sample, --temperature, --top-k and "
            "--top-p";
    return false;
  }
  return true;
}

/// Hugging Face's T5 tokenizer ends every encoder input with the end token
/// (</s>), as the model saw its inputs in training: a text prompt to an
/// encoder-decoder gets it too (ids are taken as given).
static void endEncoderInputs(const InferenceSession &session, const DocumentTokenizer &tokenizer,
                             std::vector<std::vector<int32_t>> &rows) {
  if (session.isEncoderDecoder() && promptIds.empty() && tokenizer.loaded())
    for (std::vector<int32_t> &row : rows)
      row.push_back(tokenizer.endOfText());
}

static void printStats(const GenerationStats &stats, const InferenceSession &session) {
  double rows = static_cast<double>(session.batch());
  if (session.isEncoderDecoder())
    std::fprintf(stderr, "mt-generate: encoder %lld tokens x %g rows in %.3f s\n",
                 static_cast<long long>(session.encoderLength()), rows, stats.encodeSeconds);
  std::fprintf(stderr,
               "mt-generate: prompt %lld tokens x %g rows in %.3f s (%.1f tokens/s); decode "
               "%lld steps in %.3f s (%.1f tokens/s, %.2f ms a step); memory %lld bytes\n",
               static_cast<long long>(stats.promptTokens), rows, stats.promptSeconds,
               stats.promptSeconds > 0 ? stats.promptTokens * rows / stats.promptSeconds : 0.0,
               static_cast<long long>(stats.decodeCalls), stats.decodeSeconds,
               stats.decodeSeconds > 0 ? stats.decodeCalls * rows / stats.decodeSeconds : 0.0,
               stats.decodeCalls ? 1e3 * stats.decodeSeconds / stats.decodeCalls : 0.0,
               static_cast<long long>(session.allocatedBytes()));
}

/// One rank's generation: rank 0 prints, dumps and reports; the others run
/// the same steps silently (their collectives meet rank 0's).
static int runRank(const plan::Plan &plan, const InferenceMemory &memory,
                   const DocumentTokenizer &tokenizer, std::vector<std::vector<int32_t>> rows,
                   Communicator *comm, int64_t rank) {
  std::string error;
  // Every rank meets the same errors; the others say which they are.
  auto fail = [&](const std::string &message) {
    return ::fail(rank == 0 ? message : "rank " + std::to_string(rank) + ": " + message);
  };
  InferenceSession session;
  if (!session.open(plan, seed, error, comm, rank))
    return fail(error);
  if (!load.empty()) {
    std::string loaded;
    if (!session.loadCheckpoint(load, loaded, error))
      return fail(error);
    if (!quiet && rank == 0)
      std::fprintf(stderr, "mt-generate: parameters from %s\n", loaded.c_str());
  }
  if (session.allocatedBytes() != memory.total())
    return fail("holds " + std::to_string(session.allocatedBytes()) + " bytes, not the " +
                std::to_string(memory.total()) + " the plan's memory report says");
  GenerationOptions options;
  if (!optionsFor(session, tokenizer, options, error))
    return fail(error);
  endEncoderInputs(session, tokenizer, rows);
  if (rank != 0) {
    GenerationObserver same; // dumping makes the prompt run through the decode
    if (!dumpLogits.empty())
      same.onLogits = [](int64_t, const float *, int64_t) {};
    std::vector<std::vector<int32_t>> out;
    GenerationStats stats;
    return generate(session, rows, options, same, out, stats, error) ? 0 : fail(error);
  }
  bool encoderDecoder = session.isEncoderDecoder();
  std::ofstream logits;
  if (!dumpLogits.empty()) {
    logits.open(dumpLogits, std::ios::binary);
    if (!logits)
      return fail("cannot write --dump-logits '" + dumpLogits + "'");
  }
  // One row, not a beam search: the text streams as each token is chosen.
  bool stream = session.batch() == 1 && beams <= 1 && rows.size() == 1;
  auto printTokens = [&](const std::vector<int32_t> &ids) {
    if (printIds) {
      for (size_t i = 0; i < ids.size(); ++i)
        std::printf("%s%d", i ? " " : "", ids[i]);
      return;
    }
    std::string bytes;
    // GPT-2 streams bytes (a token may end inside a character); a
    // SentencePiece piece is text.
    if (tokenizer.isGpt2() ? tokenizer.gpt2().decodeBytes(ids, bytes, error)
                           : tokenizer.decode(ids, bytes, error))
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  };
  // The prompt streams ahead of its first token, once the run is under way
  // (an encoder's input is not part of what the decoder writes).
  bool promptShown = !stream || encoderDecoder;
  auto showPrompt = [&]() {
    if (!promptShown)
      printTokens(rows.front());
    promptShown = true;
  };
  GenerationObserver observer;
  // SentencePiece text is decoded whole and streamed by its new suffix: a
  // piece alone loses the space it starts with.
  std::vector<int32_t> streamed = encoderDecoder ? std::vector<int32_t>() : rows.front();
  std::string shownText;
  if (stream && !printIds && tokenizer.loaded() && !tokenizer.isGpt2())
    (void)tokenizer.decode(streamed, shownText, error);
  if (stream)
    observer.onToken = [&](int64_t, int32_t token) {
      showPrompt();
      if (printIds) {
        std::printf(" %d", token);
      } else if (tokenizer.isGpt2()) {
        printTokens({token});
      } else {
        streamed.push_back(token);
        std::string text;
        if (tokenizer.decode(streamed, text, error) && text.size() >= shownText.size())
          std::fwrite(text.data() + shownText.size(), 1, text.size() - shownText.size(), stdout);
        shownText = text;
      }
      std::fflush(stdout);
    };
  if (logits.is_open())
    observer.onLogits = [&](int64_t, const float *row, int64_t vocab) {
      logits.write(reinterpret_cast<const char *>(row), static_cast<std::streamsize>(vocab * 4));
    };
  std::vector<std::vector<int32_t>> out;
  GenerationStats stats;
  if (!generate(session, rows, options, observer, out, stats, error))
    return fail(error);
  for (size_t r = 0; !stream && r < out.size(); ++r) {
    std::vector<int32_t> all =
        encoderDecoder ? std::vector<int32_t>() : rows[std::min(r, rows.size() - 1)];
    all.insert(all.end(), out[r].begin(), out[r].end());
    printTokens(all);
    std::printf("\n");
  }
  if (stream) {
    showPrompt();
    std::printf("\n");
  }
  std::fflush(stdout);
  if (logits.is_open() && !logits.flush())
    return fail("cannot write --dump-logits '" + dumpLogits + "'");
  if (!quiet)
    printStats(stats, session);
  return 0;
}

/// One rank per process, as mpirun started them.
static int runUnderMpi(const plan::Plan &plan, const InferenceMemory &memory,
                       const DocumentTokenizer &tokenizer,
                       const std::vector<std::vector<int32_t>> &rows, int64_t ranks) {
  std::string error;
  std::unique_ptr<MpiTransport> mpi = MpiTransport::create(error);
  if (!mpi)
    return fail(error);
  if (mpi->size() != ranks) {
    if (mpi->rank() == 0)
      fail("the plan needs " + std::to_string(ranks) + " ranks but mpirun started " +
           std::to_string(mpi->size()) + " processes; use mpirun -np " + std::to_string(ranks));
    return 1;
  }
  Communicator comm(*mpi, /*timeoutSeconds=*/600);
  int rc = runRank(plan, memory, tokenizer, rows, &comm, mpi->rank());
  if (rc != 0)
    mpi->fail("exiting after the error above");
  return rc;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mt::showOnlyInHelp({&category});
  cl::ParseCommandLineOptions(argc, argv, "mt-generate: text from a plan of mtc --inference\n");
  std::string error;
  plan::Plan plan;
  if (!readPlanFile(planPath, plan, error))
    return fail(error);
  InferenceMemory memory;
  if (!inferenceMemory(plan, memory, error))
    return fail(error);
  DocumentTokenizer tokenizer;
  std::vector<std::vector<int32_t>> rows;
  if (!readPrompts(tokenizer, rows, error))
    return fail(error);

  int64_t ranks = planMesh(plan.config()).numRanks();
  if (MpiTransport::launchedByMpi())
    return runUnderMpi(plan, memory, tokenizer, rows, ranks);
  if (ranks == 1)
    return runRank(plan, memory, tokenizer, rows, nullptr, 0);
  // Tensor-parallel ranks as threads: one that fails stops the others'
  // collectives.
  ThreadWorld world(static_cast<int>(ranks));
  std::vector<std::unique_ptr<ThreadTransport>> transports;
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < ranks; ++r) {
    transports.push_back(std::make_unique<ThreadTransport>(world, r));
    comms.push_back(std::make_unique<Communicator>(*transports.back(), /*timeoutSeconds=*/600));
  }
  std::vector<int> codes(static_cast<size_t>(ranks), 0);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      codes[r] = runRank(plan, memory, tokenizer, rows, comms[r].get(), r);
      if (codes[r] != 0)
        transports[r]->fail("rank " + std::to_string(r) + " stopped with an error");
    });
  for (std::thread &t : threads)
    t.join();
  return *std::max_element(codes.begin(), codes.end());
}
