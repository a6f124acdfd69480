//===- MTOps.td - all ops of the mt dialect --------------------------------===//
//
// The ops are split by role, one file each:
//   MTStructureOps.td   mesh, sharding annotations, the layer stack
//   MTNNOps.td          embeddings, linear algebra, norms, activations, loss
//   MTAttentionOps.td   head split/merge, scores, context, positions
//   MTCollectiveOps.td  all_reduce, all_gather, reduce_scatter, send, recv
//   MTShardOps.td       axis_index, vary, shard_slice: a rank's piece, no data moved
//   MTTensorOps.td      zeros, reshape, concat, sum_to, layer slicing
//   MTGradOps.td        backward ops the autodiff pass emits
//   MTOptimizerOps.td   optimizer updates
//   MTGpuOps.td         lanes and tensor-core products of generated GPU kernels
//
//===----------------------------------------------------------------------===//
#ifndef MT_OPS_TD
#define MT_OPS_TD

include "mt/Dialect/MT/IR/MTStructureOps.td"
include "mt/Dialect/MT/IR/MTNNOps.td"
include "mt/Dialect/MT/IR/MTActivationOps.td"
include "mt/Dialect/MT/IR/MTLossOps.td"
include "mt/Dialect/MT/IR/MTAttentionOps.td"
include "mt/Dialect/MT/IR/MTCollectiveOps.td"
include "mt/Dialect/MT/IR/MTShardOps.td"
include "mt/Dialect/MT/IR/MTTensorOps.td"
include "mt/Dialect/MT/IR/MTGradOps.td"
include "mt/Dialect/MT/IR/MTOptimizerOps.td"
include "mt/Dialect/MT/IR/MTGpuOps.td"

#endif // MT_OPS_TD
