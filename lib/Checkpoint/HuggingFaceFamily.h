//===- HuggingFaceFamily.h - how a model family lies in Hugging Face files -*- C++ -*-===//
//
// What the generic exporter and importer need of a transformers model
// class: which of our parameters is which tensor of its files, how each is
// stored (transposed, rotary rows in rotate-half order), and its
// config.json, written from or checked against a plan's recorded
// architecture. One file per family (HuggingFaceGpt2.cpp,
// HuggingFaceLlama.cpp); HuggingFaceFamilies.cpp chooses.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CHECKPOINT_HUGGINGFACEFAMILY_H
#define MT_LIB_CHECKPOINT_HUGGINGFACEFAMILY_H

#include "plan.pb.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mt {
namespace hf {

/// One of our parameters in a family's files.
struct TensorName {
  std::string ours;   // our parameter ("layers.self_attn.q_proj.weight")
  std::string theirs; // theirs after the model prefix and layer ("self_attn.q_proj.weight")
  // Ours stacks layers; theirs is one tensor per layer l, named
  // "<prefix><stack>l.<theirs>" ("h.", "layers.", "encoder.block."). Empty:
  // one tensor each.
  std::string stack;
  bool transposed = false; // stored [in, out] (GPT-2's Conv1D)
  // Rows in rotate-half order (transformers' rotary): this many heads of
  // rows, each head's pairs (i, i + d/2) where ours keeps (2i, 2i + 1).
  int64_t rotaryHeads = 0;
  bool outsideModel = false; // no model prefix (lm_head.weight)
  bool vocabRows = false;    // rows are the vocabulary (ours may be padded)
  bool perLayer() const { return !stack.empty(); }
};

/// A tensor files may carry that is another's copy (a tied weight):
/// skipped when equal to it, refused when not.
struct TiedCopy {
  std::string theirs; // its full name in the files
  std::string ours;   // the parameter it must equal
};

struct Family {
  std::string title;       // "GPT-2", "Llama"
  std::string prefix;      // "transformer.", "model."
  std::vector<TensorName> tensors; // in the order transformers' state_dict lists them
  std::vector<TiedCopy> tiedCopies;
  // Suffixes of buffers older files carry that are not parameters (skipped).
  std::vector<std::string> buffers;

  /// Their full name of `t` at layer `layer`, under `prefix`.
  std::string fileName(const TensorName &t, int64_t layer, const std::string &modelPrefix) const;
  const TensorName *find(const std::string &ours) const;
};

/// Our parameters' shapes (without vocabulary padding), by name: what a
/// family needs beyond the architecture (BERT's layout, T5's stacks).
using Shapes = std::map<std::string, std::vector<int64_t>>;

/// One layer of `t` of shape `inner` as rows of columns: a matrix's rows, a
/// vocabulary vector's elements, else one row.
void rowsAndCols(const TensorName &t, const std::vector<int64_t> &inner, int64_t &rows,
                 int64_t &cols);

/// One layer's tensor `values` of `t` ([rows, cols] as ours holds it,
/// vectors as one row) in their storage order, and back.
std::vector<float> toTheirs(const TensorName &t, const std::vector<float> &values, int64_t rows,
                            int64_t cols);
std::vector<float> toOurs(const TensorName &t, const std::vector<float> &values, int64_t rows,
                          int64_t cols);

/// config.json text as transformers writes it (json.dumps(sort_keys=True,
/// indent=2)): `values` are already JSON texts, keyed by name.
std::string configText(const std::vector<std::pair<std::string, std::string>> &values);
/// A number as Python's json.dumps writes it.
std::string pythonFloat(double d);
/// `text` as a JSON string literal.
std::string quoted(llvm::StringRef text);

/// Checks of config.json against the plan, each naming the file, the key
/// and both values.
class ConfigChecker {
public:
  ConfigChecker(const llvm::json::Object &config, std::string path)
      : config_(config), path_(std::move(path)) {}
  const llvm::json::Object &json() const { return config_; }
  const std::string &path() const { return path_; }
  /// `key` must be an integer equal to `expected` (absent: an error unless `optional`).
  llvm::Error integer(const char *key, int64_t expected, bool optional = false) const;
  /// `key`, when present, is a number equal to `expected` (relative 1e-12).
  llvm::Error number(const char *key, double expected) const;
  /// `key`, when present, is a boolean equal to `expected`; absent means `absent`.
  llvm::Error boolean(const char *key, bool expected, bool absent) const;
  /// An error naming `key`'s value and what the plan's model has.
  llvm::Error mismatch(const char *key, const std::string &theirs, const std::string &ours) const;

private:
  const llvm::json::Object &config_;
  std::string path_;
};

// Each family: its tensors, its config.json from a model (empty
// `torchDtype`: only whether it can be expressed), and the check of a
// config.json against a plan's model.
struct FamilyDefinition {
  const char *title;
  Family (*tensors)(const plan::Config &c, const Shapes &shapes);
  llvm::Expected<std::string> (*config)(const plan::Config &c, const Shapes &shapes,
                                        const std::string &torchDtype);
  llvm::Error (*check)(const ConfigChecker &check, const plan::Config &c, const Shapes &shapes);
};
extern const FamilyDefinition kGpt2;        // GPT2LMHeadModel (HuggingFaceGpt2.cpp)
extern const FamilyDefinition kLlama;       // LlamaForCausalLM, Mistral's config of its graph
extern const FamilyDefinition kBert;        // BertForPreTraining (HuggingFaceBert.cpp)
extern const FamilyDefinition kMegatronBert; // MegatronBertForPreTraining (pre-LN)
extern const FamilyDefinition kT5;          // T5ForConditionalGeneration, v1.0 and v1.1

/// The family of a checkpoint's model, with its config.json (export).
llvm::Expected<Family> familyForExport(const plan::Config &c, const Shapes &shapes,
                                       const std::string &torchDtype, std::string &config);
/// The family config.json names, checked against the plan (import);
/// `configVocab` receives its vocab_size.
llvm::Expected<Family> familyForImport(const std::string &configPath, const plan::Config &c,
                                       const Shapes &shapes, int64_t &configVocab);

} // namespace hf
} // namespace mt

#endif // MT_LIB_CHECKPOINT_HUGGINGFACEFAMILY_H
