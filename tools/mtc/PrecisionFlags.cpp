//===- PrecisionFlags.cpp - mtc's mixed-precision flags --------------------===//
#include "PrecisionFlags.h"

using namespace llvm;

cl::OptionCategory &precisionCategory() {
  static cl::OptionCategory category("precision (stored in the plan)");
  return category;
}

static cl::opt<bool>
    bf16("bf16",
         cl::desc("mixed precision as Megatron's --bf16: activations and GEMM inputs in bf16, "
                  "fp32 accumulation, fp32 main parameters, gradients, optimizer and loss"),
         cl::init(false), cl::cat(precisionCategory()));

static cl::opt<bool> fp16(
    "fp16",
    cl::desc("mixed precision as Megatron's --fp16: activations and GEMM inputs in fp16, fp32 "
             "accumulation, main parameters, gradients and loss, with dynamic loss scaling (its "
             "knobs: --help-hidden)"),
    cl::init(false), cl::cat(precisionCategory()));

static cl::opt<bool> tpComm16Bit(
    "tp-comm-16bit",
    cl::desc("with --bf16/--fp16 and --tp: tensor- and sequence-parallel collectives move and sum "
             "the 16-bit activations, half the bytes, as Megatron does; each ring step then "
             "rounds its partial sum to 16 bits (default off: fp32)"),
    cl::init(false), cl::cat(precisionCategory()));

bool tpComm16BitGiven() { return tpComm16Bit.getNumOccurrences() > 0; }

mt::ActivationType activationTypeFromFlags() {
  return bf16 ? mt::ActivationType::BF16 : fp16 ? mt::ActivationType::F16 : mt::ActivationType::F32;
}

static cl::opt<double>
    lossScale("loss-scale", cl::desc("--fp16: a constant loss scale instead of the dynamic one"),
              cl::init(0.0), cl::cat(precisionCategory()), cl::Hidden);

static cl::opt<double>
    initialLossScale("initial-loss-scale",
                     cl::desc("--fp16: the dynamic loss scale to start from (2^32)"),
                     cl::init(4294967296.0), cl::cat(precisionCategory()), cl::Hidden);

static cl::opt<double> minLossScale("min-loss-scale",
                                    cl::desc("--fp16: the dynamic loss scale's floor (1)"),
                                    cl::init(1.0), cl::cat(precisionCategory()), cl::Hidden);

static cl::opt<int64_t>
    lossScaleWindow("loss-scale-window",
                    cl::desc("--fp16: steps without overflow before the loss scale doubles (1000)"),
                    cl::init(1000), cl::cat(precisionCategory()), cl::Hidden);

static cl::opt<int64_t> hysteresis("hysteresis",
                                   cl::desc("--fp16: overflows before the loss scale halves (2)"),
                                   cl::init(2), cl::cat(precisionCategory()), cl::Hidden);

bool applyPrecisionFlags(mt::CompileSettings &settings, std::string &error) {
  if (bf16 && fp16) {
    error = "--bf16 and --fp16 choose different 16-bit types: give one";
    return false;
  }
  settings.activationType = activationTypeFromFlags();
  if (tpComm16Bit && !bf16 && !fp16) {
    error = "--tp-comm-16bit moves 16-bit activations: it needs --bf16 or --fp16";
    return false;
  }
  settings.tpComm16Bit = tpComm16Bit;
  bool scaleFlags = lossScale.getNumOccurrences() || initialLossScale.getNumOccurrences() ||
                    minLossScale.getNumOccurrences() || lossScaleWindow.getNumOccurrences() ||
                    hysteresis.getNumOccurrences();
  if (scaleFlags && !fp16)
    error = "--loss-scale, --initial-loss-scale, --min-loss-scale, --loss-scale-window and "
            "--hysteresis scale fp16's loss: they need --fp16";
  else if (fp16 && (lossScale < 0 || !(initialLossScale > 0) || !(minLossScale > 0) ||
                    minLossScale > initialLossScale || lossScaleWindow < 1 || hysteresis < 1))
    error = "--fp16's loss scaling needs --loss-scale >= 0, --initial-loss-scale >= "
            "--min-loss-scale > 0, --loss-scale-window >= 1 and --hysteresis >= 1";
  return error.empty();
}

void lossScalingConfig(mt::plan::Config &config) {
  if (!fp16)
    return;
  mt::plan::LossScaling &ls = *config.mutable_loss_scaling();
  bool constant = lossScale > 0;
  ls.set_initial_scale(constant ? lossScale : initialLossScale);
  ls.set_min_scale(constant ? lossScale : minLossScale);
  ls.set_window(constant ? 0 : lossScaleWindow);
  ls.set_hysteresis(hysteresis);
}
