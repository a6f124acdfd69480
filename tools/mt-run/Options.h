//===- Options.h - mt-run's command line -------------------------*- C++ -*-===//
#ifndef MT_TOOLS_MTRUN_OPTIONS_H
#define MT_TOOLS_MTRUN_OPTIONS_H

#include <cstdint>
#include <string>

namespace mtrun {

struct Options {
  std::string plan, data, logDir, metricsFile, record, timeline;
  std::string vocabFile;       // BERT's WordPiece vocabulary
  std::string tokenizerModel;  // T5's SentencePiece model
  int64_t vocabExtraIds = 100; // T5's sentinels, after the SentencePiece vocabulary
  std::string save, load;
  int64_t saveInterval = 0, saveKeep = 0;
  bool asyncSave = false;
  bool measureArena = false;
  bool overlapGradReduce = true;
  std::string overlapTpComm = "auto"; // auto | true | false
  bool profile = false;
  double peakBandwidth = 0, peakTflops = 0; // 0: the device's known peaks
  bool dump = false;
  bool evalOnly = false, evalItersGiven = false;
  int64_t trainIters = 0, evalInterval = 0, evalIters = 4, logInterval = 1, maxSkipped = 10;
  std::string split = "949,50,1";
  double commTimeout = 300;
  // --inject-fault=kill:RANK:STEP (tests): that rank dies at that step.
  int64_t killRank = -1, killStep = 0;
  // --inject-fault=sigterm:RANK:STEP (tests): that rank raises SIGTERM after step STEP.
  int64_t signalRank = -1, signalStep = 0;
};

/// Parses the command line (llvm::cl: `--flag value` and `--flag=value`)
/// and checks what the parser cannot; false after printing the error.
bool parseOptions(int argc, char **argv, Options &o);

/// Prints "mt-run: error: MESSAGE" and returns 1.
int fail(const std::string &message);

} // namespace mtrun

#endif // MT_TOOLS_MTRUN_OPTIONS_H
