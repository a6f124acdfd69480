//===- MTOptimizerOps.td - optimizer updates ------------------------------===//
#ifndef MT_OPTIMIZER_OPS_TD
#define MT_OPTIMIZER_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MT_AdamWOp : MT_Op<"adamw", [Pure,
    AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq",
                   "new_param", "new_exp_avg", "new_exp_avg_sq"]>]> {
  let summary = "one AdamW step of a parameter and its moments";
  let description = [{
    With `hyper = [lr, beta1, beta2, eps, weight_decay, bias_correction1,
    bias_correction2, grad_scale]` (the host computes the learning-rate
    schedule, `1 - beta^step` and the clipping factor):

    ```
    g  = grad * grad_scale
    m' = beta1 * m + (1 - beta1) * g
    v' = beta2 * v + (1 - beta2) * g^2
    p' = p * (1 - lr * weight_decay)         (only with `decay`)
    p' = p' - lr * (m' / bias_correction1) / (sqrt(v' / bias_correction2) + eps)
    ```

    which is PyTorch's `torch.optim.AdamW` and Megatron's Adam in AdamW mode.
    Without `decay` (biases and norms, as Megatron does) the weight-decay
    term is skipped.

    ```mlir
    %p2, %m2, %v2 = mt.adamw %p, %g, %m, %v, %hyper {decay} : tensor<768x768xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$param, AnyRankedTensor:$grad,
                       AnyRankedTensor:$exp_avg, AnyRankedTensor:$exp_avg_sq,
                       AnyRankedTensor:$hyper, UnitAttr:$decay);
  let results = (outs AnyRankedTensor:$new_param, AnyRankedTensor:$new_exp_avg,
                      AnyRankedTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $hyper attr-dict `:` type($param) `,` type($hyper)
  }];
  let hasVerifier = 1;
}

#endif // MT_OPTIMIZER_OPS_TD
