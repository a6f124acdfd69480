// RUN: mt-opt %s --mt-store-dropout-masks | FileCheck %s

// Each dropout becomes its mask (the same key: seed, stream, layer, shard)
// and a masked scale by 1/(1 - rate). A rate of 0 is left alone.
// CHECK-LABEL: func.func @masks
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[S:.*]]: tensor<i64>, %[[I:.*]]: tensor<i64>)
// CHECK-NEXT: %[[M:.*]] = mt.dropout_mask seed %[[S]] : tensor<i64> shard %[[I]] : tensor<i64> {layer = 3 : i64, mt.layer = 3 : i64, rate = 2.000000e-01 : f64, shard_dim = 1 : i64, shard_parts = 2 : i64, stream = 1 : i64} : tensor<2x8xi1>
// CHECK-NEXT: %[[Y:.*]] = mt.masked_scale %[[X]], %[[M]] {mt.layer = 3 : i64, scale = 1.250000e+00 : f64} : tensor<2x8xf32>, tensor<2x8xi1>
// CHECK-NEXT: %[[Z:.*]] = mt.dropout %[[Y]] {rate = 0.000000e+00 : f64, stream = 2 : i64} : tensor<2x8xf32>
// CHECK-NEXT: return %[[Z]]
func.func @masks(%x: tensor<2x8xf32>, %seed: tensor<i64>, %i: tensor<i64>) -> tensor<2x8xf32> {
  %y = mt.dropout %x seed %seed : tensor<i64> shard %i : tensor<i64> {layer = 3 : i64, mt.layer = 3 : i64, rate = 0.2 : f64, shard_dim = 1 : i64, shard_parts = 2 : i64, stream = 1 : i64} : tensor<2x8xf32>
  %z = mt.dropout %y {rate = 0.0 : f64, stream = 2 : i64} : tensor<2x8xf32>
  return %z : tensor<2x8xf32>
}
