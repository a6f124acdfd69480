//===- VerifyPlanTest.cpp - what every plan must satisfy -------------------===//
#include "mt/Plan/VerifyPlan.h"
#include "mt/Plan/PlanEnums.h"

#include <gtest/gtest.h>

namespace {

/// A small consistent plan: one stage, one stacked and one plain parameter,
/// a train step and an optimizer in one code object.
mt::plan::Plan validPlan() {
  mt::plan::Plan plan;
  mt::plan::Config &c = *plan.mutable_config();
  c.set_micro_batch_size(2);
  c.set_seq_length(8);
  c.set_global_batch_size(4);
  c.set_train_iters(10);
  c.set_vocab_size(50);
  c.set_padded_vocab_size(64);
  mt::plan::Parameter &w = *plan.add_parameters();
  w.set_name("h.weight");
  w.add_shape(2);
  w.add_shape(16);
  w.set_dtype(mt::plan::F32);
  w.set_stacked_layers(2);
  mt::plan::Parameter &e = *plan.add_parameters();
  e.set_name("wte");
  e.add_shape(64);
  e.add_shape(16);
  e.set_dtype(mt::plan::F32);
  e.set_unpadded_rows(50);
  plan.add_code()->set_name("native");
  for (auto role : {mt::plan::Function::TRAIN_STEP, mt::plan::Function::OPTIMIZER}) {
    mt::plan::Function &f = *plan.add_functions();
    f.set_name(std::string(mt::nameOf(role)) + "_fn");
    f.set_role(role);
    f.set_code_object("native");
    mt::plan::TensorSpec &in = *f.add_inputs();
    in.set_name("batch:loss_mask");
    in.add_shape(2);
    in.add_shape(8);
    in.set_dtype(mt::plan::F32);
  }
  return plan;
}

std::string failure(const mt::plan::Plan &plan) {
  llvm::Error e = mt::verifyPlan(plan);
  return e ? llvm::toString(std::move(e)) : "";
}

TEST(VerifyPlan, AcceptsAConsistentPlan) { EXPECT_EQ(failure(validPlan()), ""); }

TEST(VerifyPlan, AcceptsAFunctionRunningAnothersCode) {
  mt::plan::Plan plan = validPlan();
  mt::plan::Function &shared = *plan.mutable_functions(0);
  mt::plan::TensorSpec &offset = *shared.add_inputs();
  offset.set_name("layer_offset");
  offset.set_dtype(mt::plan::I64);
  mt::plan::Function &caller = *plan.add_functions();
  caller = plan.functions(0);
  caller.set_name("train_step_copy");
  caller.set_entry("train_step_fn");
  caller.set_layer_offset(4);
  EXPECT_EQ(failure(plan), "");
}

/// Each corruption, and words the error must contain.
struct Corruption {
  const char *what;
  void (*apply)(mt::plan::Plan &);
  const char *expected;
};

const Corruption kCorruptions[] = {
    {"negative tensor-parallel size",
     [](mt::plan::Plan &p) {
       p.mutable_config()->mutable_parallel()->set_tensor_parallel_size(-2);
     },
     "tensor-parallel size is -2"},
    {"a million pipeline stages",
     [](mt::plan::Plan &p) {
       p.mutable_config()->mutable_parallel()->set_pipeline_parallel_size(1 << 16);
       p.mutable_config()->mutable_parallel()->set_data_parallel_size(1 << 16);
     },
     "ranks"},
    {"pipelined layout, one stage",
     [](mt::plan::Plan &p) {
       p.mutable_config()->mutable_parallel()->set_pipeline_parallel_size(2);
     },
     "1 pipeline stages but its layout asks for 2 x 1"},
    {"global batch not a multiple of the micro-batch",
     [](mt::plan::Plan &p) { p.mutable_config()->set_global_batch_size(5); },
     "batch configuration is inconsistent"},
    {"padding smaller than the vocabulary",
     [](mt::plan::Plan &p) { p.mutable_config()->set_padded_vocab_size(10); },
     "vocabulary of 50 is padded to 10 rows"},
    {"parameter named twice",
     [](mt::plan::Plan &p) { p.mutable_parameters(1)->set_name("h.weight"); }, "named twice"},
    {"16-bit parameter",
     [](mt::plan::Plan &p) { p.mutable_parameters(0)->set_dtype(mt::plan::BF16); },
     "stored in BF16"},
    {"zero-sized dimension", [](mt::plan::Plan &p) { p.mutable_parameters(0)->set_shape(1, 0); },
     "dimension of size 0"},
    {"overflowing element count",
     [](mt::plan::Plan &p) {
       p.mutable_parameters(0)->set_shape(1, int64_t(1) << 40);
       p.mutable_parameters(0)->add_shape(int64_t(1) << 20);
     },
     "more than 2^48 elements"},
    {"stacking more layers than the shape has",
     [](mt::plan::Plan &p) { p.mutable_parameters(0)->set_stacked_layers(3); }, "stacks 3 layers"},
    {"split along a dimension the tensor lacks",
     [](mt::plan::Plan &p) { p.mutable_parameters(0)->mutable_tp_shard()->set_dim(5); },
     "split along dimension 5"},
    {"more unpadded rows than rows",
     [](mt::plan::Plan &p) { p.mutable_parameters(1)->set_unpadded_rows(65); }, "65 unpadded rows"},
    {"unknown function role",
     [](mt::plan::Plan &p) {
       p.mutable_functions(0)->set_role(static_cast<mt::plan::Function::Role>(99));
     },
     "unknown role 99"},
    {"function of a stage that does not exist",
     [](mt::plan::Plan &p) { p.mutable_functions(0)->set_stage(1); }, "belongs to stage 1 of 1"},
    {"missing code object",
     [](mt::plan::Plan &p) { p.mutable_functions(1)->set_code_object("elsewhere"); },
     "code object 'elsewhere'"},
    {"tensor without an element type",
     [](mt::plan::Plan &p) {
       p.mutable_functions(0)->mutable_inputs(0)->set_dtype(mt::plan::DTYPE_UNSPECIFIED);
     },
     "no element type"},
    {"integer loss mask",
     [](mt::plan::Plan &p) { p.mutable_functions(0)->mutable_inputs(0)->set_dtype(mt::plan::I32); },
     "loss mask in I32"},
    {"stage holding an unknown parameter",
     [](mt::plan::Plan &p) {
       mt::plan::Stage &s = *p.add_stages();
       s.add_parameters()->set_name("ghost");
     },
     "'ghost', which the plan does not have"},
    {"stage holding layers beyond the stack",
     [](mt::plan::Plan &p) {
       mt::plan::StageParameter &sp = *p.add_stages()->add_parameters();
       sp.set_name("h.weight");
       sp.set_layer_end(3);
     },
     "layers [0, 3) of 'h.weight', which has 2"},
    {"a function running code that is not there",
     [](mt::plan::Plan &p) { p.mutable_functions(0)->set_entry("ghost_fn"); },
     "runs the code of 'ghost_fn'"},
    {"a function running code compiled for other shapes",
     [](mt::plan::Plan &p) {
       mt::plan::Function &copy = *p.add_functions();
       copy = p.functions(0);
       copy.set_name("train_step_copy");
       copy.set_entry("train_step_fn");
       copy.mutable_inputs(0)->set_name("s1/loss_mask");
       copy.mutable_inputs(0)->set_shape(1, 16);
     },
     "differs from it"},
    {"a final gradient slice outside its buffer",
     [](mt::plan::Plan &p) {
       mt::plan::GradientSlice &g = *p.mutable_functions(0)->add_gradients_ready();
       g.set_accumulator("batch:loss_mask");
       g.set_offset(10);
       g.set_count(8);
     },
     "elements [10, +8) of 'batch:loss_mask'"},
    {"a layer offset without an input to take it",
     [](mt::plan::Plan &p) { p.mutable_functions(0)->set_layer_offset(3); },
     "layer offset 3 but no input"},
    {"loss scaling without a loss-scale input",
     [](mt::plan::Plan &p) { p.mutable_config()->mutable_loss_scaling()->set_initial_scale(1024); },
     "loss scaling"},
};

TEST(VerifyPlan, RefusesEachCorruptionWithWhatIsWrong) {
  for (const Corruption &c : kCorruptions) {
    mt::plan::Plan plan = validPlan();
    c.apply(plan);
    std::string error = failure(plan);
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.what << ": got '" << error << "'";
  }
}

} // namespace
