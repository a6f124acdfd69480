//===- ModelArchitecture.cpp - what a model is, from its IR ----------------===//
#include "mt/Driver/ModelArchitecture.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {
namespace {

int64_t dim(Value v, unsigned d) { return cast<RankedTensorType>(v.getType()).getDimSize(d); }

/// The op that produced `v`, seen through mt.shard and mt.reshape.
Operation *producer(Value v) {
  Operation *def = v.getDefiningOp();
  while (def && isa<ShardOp, ReshapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return def;
}

void describeLayer(Block &body, plan::ModelArchitecture &a) {
  body.walk([&](Operation *op) {
    if (auto s = dyn_cast<SplitHeadsOp>(op)) {
      int64_t heads = s.getNumHeadsAttr().getInt();
      a.set_heads(std::max(a.heads(), heads));
      a.set_kv_heads(a.kv_heads() ? std::min(a.kv_heads(), heads) : heads);
    } else if (auto n = dyn_cast<LayerNormOp>(op)) {
      a.set_norm(plan::ModelArchitecture::LAYER_NORM);
      a.set_norm_epsilon(n.getEpsilon().convertToDouble());
    } else if (auto n = dyn_cast<RmsNormOp>(op)) {
      a.set_norm(plan::ModelArchitecture::RMS_NORM);
      a.set_norm_epsilon(n.getEpsilon().convertToDouble());
    } else if (auto l = dyn_cast<LinearOp>(op)) {
      a.set_biases(a.biases() || l.getBias());
    } else if (auto d = dyn_cast<DropoutOp>(op)) {
      double rate = d.getRateAttr().getValueAsDouble();
      if (isa_and_nonnull<SoftmaxOp>(producer(d.getInput())))
        a.set_attention_dropout(rate);
      else
        a.set_hidden_dropout(rate);
    } else if (isa<GeluOp, SiluOp, ReluOp>(op)) {
      if (auto g = dyn_cast<GeluOp>(op))
        a.set_activation(g.getApproximate() == GeluApproximation::tanh
                             ? plan::ModelArchitecture::GELU_TANH
                             : plan::ModelArchitecture::GELU);
      else
        a.set_activation(isa<SiluOp>(op) ? plan::ModelArchitecture::SILU
                                         : plan::ModelArchitecture::RELU);
      // The feed-forward width: what the activation runs over.
      a.set_ffn_hidden(cast<RankedTensorType>(op->getResult(0).getType()).getShape().back());
    } else if (auto r = dyn_cast<RotaryOp>(op)) {
      a.set_positions(plan::ModelArchitecture::ROTARY);
      a.set_rotary_base(r.getBase().convertToDouble());
      a.set_rotary_dim(r.getRotaryDim().value_or(0));
    } else if (isa<AlibiOp>(op)) {
      a.set_positions(plan::ModelArchitecture::ALIBI);
    } else if (auto r = dyn_cast<RelativePositionBiasOp>(op)) {
      a.set_positions(plan::ModelArchitecture::RELATIVE);
      a.set_relative_max_distance(r.getMaxDistance());
    }
  });
}

/// The dataset the model's batch inputs ask for: BERT's sentence-order and
/// token-type inputs, T5's decoder sequence, else GPT's tokens and labels.
plan::ModelArchitecture::Dataset datasetOf(func::FuncOp model) {
  plan::ModelArchitecture::Dataset dataset = plan::ModelArchitecture::GPT;
  for (unsigned i = 0; i < model.getNumArguments(); ++i) {
    auto batch = model.getArgAttrOfType<StringAttr>(i, kBatchAttrName);
    if (!batch)
      continue;
    if (batch.getValue() == "sop_labels" || batch.getValue() == "token_types")
      dataset = plan::ModelArchitecture::BERT;
    else if (batch.getValue() == "decoder_tokens")
      dataset = plan::ModelArchitecture::T5;
  }
  return dataset;
}

} // namespace

plan::ModelArchitecture describeArchitecture(func::FuncOp model) {
  plan::ModelArchitecture a;
  a.set_positions(plan::ModelArchitecture::NO_POSITIONS);
  a.set_dataset(datasetOf(model));
  Value table;
  model.walk([&](Operation *op) {
    if (auto e = dyn_cast<EmbeddingOp>(op)) {
      table = e.getTable();
      a.set_hidden(dim(table, 1));
    } else if (auto p = dyn_cast<PositionEmbeddingOp>(op)) {
      a.set_positions(plan::ModelArchitecture::LEARNED);
      a.set_max_positions(dim(p.getTable(), 0));
    } else if (auto stack = dyn_cast<LayerStackOp>(op)) {
      if (!stack.getStacked().empty())
        a.set_layers(a.layers() + dim(stack.getStacked().front(), 0));
    }
  });
  for (Operation &op : model.getBody().front())
    if (auto stack = dyn_cast<LayerStackOp>(op))
      describeLayer(stack.getBody().front(), a);
  if (a.layers() == 0) // a model written without a layer stack
    describeLayer(model.getBody().front(), a);
  // Tied: the last linear before the loss multiplies by the embedding table.
  model.walk([&](CrossEntropyOp loss) {
    if (auto head = dyn_cast_or_null<LinearOp>(producer(loss.getLogits())))
      a.set_tied_embeddings(table && head.getWeight() == table);
  });
  return a;
}

} // namespace mt
