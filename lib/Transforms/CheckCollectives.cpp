//===- CheckCollectives.cpp - every rank's collectives match ---------------===//
//
// A plan hangs when ranks disagree about the next collective. Ranks that
// differ only along tp or dp run the same functions, so their collectives
// match by construction; ranks on different pipeline stages run different
// functions, so a collective whose group spans "pp" must appear at the same
// position, with the same kind, size and element type, in the matching
// function of every stage. The activations and gradients the runtime moves
// between stages must have the same type on both sides. A plan that fails
// is not emitted; the error names both stages (their pipeline ranks) and
// both ops.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Regex.h"

namespace mt {
#define GEN_PASS_DEF_CHECKCOLLECTIVESPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// What the peers of a collective must agree on.
struct Signature {
  Operation *op;
  std::string text; // "mt.all_reduce of 8xf32 over [pp] (sum)"
};

std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName() << " of ";
  Type t = op->getNumOperands() ? op->getOperand(0).getType() : op->getResult(0).getType();
  os << t << " over [";
  auto axes = cast<CollectiveOpInterface>(op).getGroupAxes();
  llvm::interleaveComma(axes, os);
  os << "]";
  if (auto d = op->getAttrOfType<IntegerAttr>("dim"))
    os << " dim " << d.getInt();
  if (auto r = op->getAttr("reduction"))
    os << " " << r;
  return s;
}

/// Collectives of `func` whose group spans the pipeline axis, in order.
std::vector<Signature> pipelineCollectives(func::FuncOp func) {
  std::vector<Signature> out;
  func.walk([&](CollectiveOpInterface c) {
    if (llvm::is_contained(c.getGroupAxes(), "pp"))
      out.push_back({c, describe(c)});
  });
  return out;
}

std::optional<int64_t> stageOf(func::FuncOp f) {
  auto a = f->getAttrOfType<IntegerAttr>(kStageAttrName);
  return a ? std::optional<int64_t>(a.getInt()) : std::nullopt;
}

/// "gpt_stage3_grad" -> "gpt_stage#_grad": the functions every stage has one of.
std::string roleKey(func::FuncOp f, int64_t stage) {
  std::string name = f.getSymName().str();
  std::string tag = "_stage" + std::to_string(stage);
  size_t at = name.find(tag);
  if (at != std::string::npos)
    name.replace(at, tag.size(), "_stage#");
  return name;
}

struct CheckCollectivesPass : mt::impl::CheckCollectivesPassBase<CheckCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t pp = 1;
    // Stage functions by role, indexed by stage.
    llvm::StringMap<std::map<int64_t, func::FuncOp>> byRole;
    for (auto f : module.getOps<func::FuncOp>())
      if (auto k = stageOf(f)) {
        byRole[roleKey(f, *k)][*k] = f;
        if (auto n = f->getAttrOfType<IntegerAttr>(kNumStagesAttrName))
          pp = std::max<int64_t>(pp, n.getInt());
      }
    bool ok = true;
    for (auto &[role, stages] : byRole) {
      if (stages.size() < 2)
        continue;
      auto &[firstStage, first] = *stages.begin();
      std::vector<Signature> reference = pipelineCollectives(first);
      for (auto &[k, f] : stages) {
        std::vector<Signature> mine = pipelineCollectives(f);
        size_t n = std::max(reference.size(), mine.size());
        for (size_t i = 0; i < n; ++i) {
          bool same = i < reference.size() && i < mine.size() && reference[i].text == mine[i].text;
          if (same)
            continue;
          Operation *where = i < mine.size() ? mine[i].op : f.getOperation();
          auto diag = where->emitError()
                      << "mt-check-collectives: pipeline stages " << firstStage << " and " << k
                      << " (the ranks at pp coordinates " << firstStage % pp << " and " << k % pp
                      << ") disagree on their collective #" << i << " over the pipeline axis: "
                      << (i < reference.size() ? reference[i].text : std::string("none")) << " in @"
                      << first.getSymName() << " vs "
                      << (i < mine.size() ? mine[i].text : std::string("none")) << " in @"
                      << f.getSymName() << "; the run would hang";
          if (i < reference.size())
            diag.attachNote(reference[i].op->getLoc()) << "the other side";
          ok = false;
          break;
        }
      }
    }
    // Send/recv between stages: stage k's output (activation) and stage
    // k+1's input, stage k+1's input gradient and stage k's cotangent.
    for (auto &[role, stages] : byRole)
      for (auto &[k, f] : stages) {
        auto next = stages.find(k + 1);
        if (next == stages.end())
          continue;
        func::FuncOp g = next->second;
        std::optional<Type> sent, received;
        for (unsigned i = 0; i < g.getNumArguments(); ++i)
          if (g.getArgAttr(i, kStageInputAttrName))
            received = g.getArgumentTypes()[i];
        bool isGrad = f->hasAttr(kGradientOfAttrName) && !f->hasAttr(kRoleAttrName);
        if (!isGrad && f.getNumResults() == 1 &&
            cast<RankedTensorType>(f.getResultTypes()[0]).getRank() != 0)
          sent = f.getResultTypes()[0];
        if (sent && received && *sent != *received) {
          f.emitError() << "mt-check-collectives: stage " << k << " sends " << *sent << " to stage "
                        << k + 1 << ", which receives " << *received
                        << "; the send has no matching recv";
          ok = false;
        }
        // Gradients flow back: g's stage_input_grad result to f's cotangent.
        std::optional<Type> back, expected;
        for (unsigned i = 0; i < g.getNumResults(); ++i)
          if (g.getResultAttr(i, kStageInputGradAttrName))
            back = g.getResultTypes()[i];
        for (unsigned i = 0; i < f.getNumArguments(); ++i)
          if (f.getArgAttr(i, kCotangentAttrName))
            expected = f.getArgumentTypes()[i];
        if (back && expected && *back != *expected) {
          g.emitError() << "mt-check-collectives: stage " << k + 1 << " sends the gradient "
                        << *back << " to stage " << k << ", which receives " << *expected
                        << "; the send has no matching recv";
          ok = false;
        }
      }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
