//===- fuzz_json_lines.cpp - the JSON-lines field extractor ---------------===//
// One input is one line: the fields Megatron's preprocessing reads, then the
// whole value skipped by the general parser.
#include "mt/Data/Json.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view line(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> values;
  std::string error;
  size_t column = 0;
  mt::extractStringFields(line, {"text", "title"}, values, error, column);
  mt::JsonParser parser(line);
  if (parser.skipValue())
    parser.expectEnd();
  mt::jsonQuote(line);
  return 0;
}
