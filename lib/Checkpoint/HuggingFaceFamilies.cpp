//===- HuggingFaceFamilies.cpp - which Hugging Face family a model is ------===//
#include "HuggingFaceFamily.h"

#include "mt/Plan/PlanEnums.h"
#include "mt/Support/Errors.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mt {
namespace hf {

using llvm::Error;
using llvm::formatv;

std::string Family::fileName(const TensorName &t, int64_t layer,
                             const std::string &modelPrefix) const {
  std::string name = t.outsideModel ? "" : modelPrefix;
  if (t.perLayer())
    name += t.stack + std::to_string(layer) + ".";
  return name + t.theirs;
}

const TensorName *Family::find(const std::string &ours) const {
  for (const TensorName &t : tensors)
    if (t.ours == ours)
      return &t;
  return nullptr;
}

namespace {

/// Row r of ours is row rotaryRow(r) of theirs: within each head of d rows,
/// ours pairs (2i, 2i + 1), theirs (i, i + d/2).
int64_t rotaryRow(int64_t r, int64_t d) {
  int64_t head = r / d, inHead = r % d;
  return head * d + (inHead % 2) * (d / 2) + inHead / 2;
}

} // namespace

void rowsAndCols(const TensorName &t, const std::vector<int64_t> &inner, int64_t &rows,
                 int64_t &cols) {
  int64_t n = 1;
  for (int64_t d : inner)
    n *= d;
  rows = inner.size() >= 2 || (t.vocabRows && inner.size() == 1) ? inner[0] : 1;
  cols = rows ? n / rows : 0;
}

/// Element (r, c) of ours and where theirs stores it, over every element.
template <typename Visit>
void forEachElement(const TensorName &t, int64_t rows, int64_t cols, Visit visit) {
  int64_t d = t.rotaryHeads > 0 ? rows / t.rotaryHeads : 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t stored = d > 0 ? rotaryRow(r, d) : r;
    for (int64_t c = 0; c < cols; ++c)
      visit(r * cols + c, t.transposed ? c * rows + stored : stored * cols + c);
  }
}

std::vector<float> toTheirs(const TensorName &t, const std::vector<float> &values, int64_t rows,
                            int64_t cols) {
  std::vector<float> out(values.size());
  forEachElement(t, rows, cols, [&](int64_t ours, int64_t theirs) { out[theirs] = values[ours]; });
  return out;
}

std::vector<float> toOurs(const TensorName &t, const std::vector<float> &values, int64_t rows,
                          int64_t cols) {
  std::vector<float> out(values.size());
  forEachElement(t, rows, cols, [&](int64_t ours, int64_t theirs) { out[ours] = values[theirs]; });
  return out;
}

std::string pythonFloat(double d) {
  // repr(float): the shortest digits that read back the same double, in
  // fixed notation for exponents -4..15 (".0" on whole numbers), else as
  // "1e-05", "1.5e+16".
  if (!std::isfinite(d))
    return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
  char text[40];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*e", precision - 1, d);
    if (std::strtod(text, nullptr) == d)
      break;
  }
  std::snprintf(text, sizeof text, "%.*e", precision - 1, d);
  std::string scientific = text;
  size_t e = scientific.find('e');
  int exponent = std::atoi(scientific.c_str() + e + 1);
  std::string digits;
  for (char c : scientific.substr(0, e))
    if (c >= '0' && c <= '9')
      digits += c;
  std::string sign = d < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
    std::snprintf(text, sizeof text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + text;
  }
  if (exponent < 0)
    return sign + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  if (static_cast<int>(digits.size()) <= exponent + 1)
    return sign + digits + std::string(static_cast<size_t>(exponent + 1) - digits.size(), '0') +
           ".0";
  return sign + digits.substr(0, static_cast<size_t>(exponent + 1)) + "." +
         digits.substr(static_cast<size_t>(exponent + 1));
}

std::string quoted(llvm::StringRef text) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(text.str());
  return out;
}

std::string configText(const std::vector<std::pair<std::string, std::string>> &values) {
  std::vector<std::pair<std::string, std::string>> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::string out = "{\n";
  for (size_t i = 0; i < sorted.size(); ++i)
    out += "  " + quoted(sorted[i].first) + ": " + sorted[i].second +
           (i + 1 < sorted.size() ? ",\n" : "\n");
  return out + "}\n";
}

Error ConfigChecker::mismatch(const char *key, const std::string &theirs,
                              const std::string &ours) const {
  return errorf("'{0}' has {1} = {2}, but the plan's model has {3}", path_, key, theirs, ours);
}

Error ConfigChecker::integer(const char *key, int64_t expected, bool optional) const {
  if (!config_.get(key) && optional)
    return Error::success();
  std::optional<int64_t> v = config_.getInteger(key);
  if (!v)
    return errorf("'{0}' has no integer {1}", path_, key);
  if (*v != expected)
    return mismatch(key, std::to_string(*v), std::to_string(expected));
  return Error::success();
}

Error ConfigChecker::number(const char *key, double expected) const {
  if (!config_.get(key))
    return Error::success();
  std::optional<double> v = config_.getNumber(key);
  if (!v)
    return errorf("'{0}': {1} is not a number", path_, key);
  if (std::abs(*v - expected) > 1e-12 * std::abs(expected))
    return mismatch(key, pythonFloat(*v), pythonFloat(expected));
  return Error::success();
}

Error ConfigChecker::boolean(const char *key, bool expected, bool absent) const {
  bool v = absent;
  if (config_.get(key)) {
    std::optional<bool> b = config_.getBoolean(key);
    if (!b)
      return errorf("'{0}': {1} is not true or false", path_, key);
    v = *b;
  }
  if (v != expected)
    return mismatch(key, v ? "true" : "false", expected ? "true" : "false");
  return Error::success();
}

llvm::Expected<Family> familyForExport(const plan::Config &c, const Shapes &shapes,
                                       const std::string &torchDtype, std::string &config) {
  using Arch = plan::ModelArchitecture;
  const Arch &a = c.architecture();
  const FamilyDefinition *f = &kGpt2;
  if (a.dataset() == Arch::BERT)
    f = shapes.count("bert.encoder.final_layernorm.weight") ? &kMegatronBert : &kBert;
  else if (a.dataset() == Arch::T5)
    f = &kT5;
  else if (a.norm() == Arch::RMS_NORM && a.activation() == Arch::SILU)
    f = &kLlama;
  llvm::Expected<std::string> text = f->config(c, shapes, torchDtype);
  if (!text)
    return text.takeError();
  config = *text;
  return f->tensors(c, shapes);
}

llvm::Expected<Family> familyForImport(const std::string &path, const plan::Config &c,
                                       const Shapes &shapes, int64_t &configVocab) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return errorf("cannot read '{0}': {1}", path, buffer.getError().message());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return errorf("'{0}' is not JSON: {1}", path, llvm::toString(json.takeError()));
  const llvm::json::Object *o = json->getAsObject();
  if (!o)
    return errorf("'{0}' is not a JSON object", path);
  if (c.architecture().layers() == 0)
    return errorf("the plan records no architecture (compiled by an older mtc): recompile it");
  ConfigChecker check(*o, path);
  // GPT-2's files of old carry no model_type.
  std::string type = o->getString("model_type").value_or("gpt2").str();
  configVocab = o->getInteger("vocab_size").value_or(c.vocab_size());
  static const std::pair<const char *, const FamilyDefinition *> kTypes[] = {
      {"gpt2", &kGpt2},         {"llama", &kLlama}, {"mistral", &kLlama},
      {"bert", &kBert},         {"megatron-bert", &kMegatronBert}, {"t5", &kT5},
  };
  for (const auto &[name, f] : kTypes) {
    if (type != name)
      continue;
    if (Error e = f->check(check, c, shapes))
      return std::move(e);
    return f->tensors(c, shapes);
  }
  return errorf("'{0}' describes a model of type '{1}'; mt-ckpt imports gpt2, llama, mistral, "
                "bert, megatron-bert and t5",
                path, type);
}

} // namespace hf
} // namespace mt
