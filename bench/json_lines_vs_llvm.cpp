// Issue #25 item 5: mt's JSON-lines field extractor (lib/Data/Json.cpp)
// beside LLVM's llvm::json::parse on the same lines: what each makes of the
// inputs where they differ, and their speed on a JSON-lines file. Built and
// run by bench/json-lines.sh.
#include "mt/Data/Json.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

/// What llvm::json makes of `line`'s "text": the string, or its error.
std::string llvmText(const std::string &line) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(line);
  if (!v)
    return "error " + llvm::toString(v.takeError());
  if (auto *o = v->getAsObject())
    if (auto s = o->getString("text"))
      return "\"" + s->str() + "\"";
  return "no string \"text\"";
}

std::string mtText(const std::string &line) {
  std::vector<std::string> values;
  std::string error;
  size_t column = 0;
  if (!mt::extractStringFields(line, {"text"}, values, error, column))
    return "error " + error;
  return "\"" + values[0] + "\"";
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.jsonl\n", argv[0]);
    return 2;
  }
  const char *cases[] = {
      R"({"text": "a", "text": "b"})",     // duplicate key: Python keeps the last
      R"({"text": "a", "score": NaN})",    // Python's json.loads (Megatron) accepts NaN
      R"({"text": "\ud800"})",             // an unpaired surrogate
  };
  for (const char *c : cases)
    std::printf("%-32s llvm::json: %-44s mt: %s\n", c, llvmText(c).c_str(), mtText(c).c_str());

  std::ifstream in(argv[1]);
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (std::string line; std::getline(in, line); bytes += line.size())
    lines.push_back(line);
  for (int round = 0; round < 3; ++round) {
    size_t mtChars = 0, llvmChars = 0;
    auto start = std::chrono::steady_clock::now();
    std::vector<std::string> values;
    std::string error;
    size_t column = 0;
    for (const std::string &line : lines)
      if (mt::extractStringFields(line, {"text"}, values, error, column))
        mtChars += values[0].size();
    double mtSeconds = seconds(start);
    start = std::chrono::steady_clock::now();
    for (const std::string &line : lines) {
      llvm::Expected<llvm::json::Value> v = llvm::json::parse(line);
      if (!v) {
        llvm::consumeError(v.takeError());
        continue;
      }
      if (auto *o = v->getAsObject())
        if (auto s = o->getString("text"))
          llvmChars += s->size();
    }
    double llvmSeconds = seconds(start);
    std::printf("%zu lines, %.1f MB: mt %.0f MB/s, llvm::json %.0f MB/s (text bytes %zu and %zu)\n",
                lines.size(), bytes / 1e6, bytes / 1e6 / mtSeconds, bytes / 1e6 / llvmSeconds, mtChars,
                llvmChars);
  }
  return 0;
}
