// RUN: mt-opt %s -split-input-file -mt-lower-to-linalg | FileCheck %s
// mt.fused_attention and its gradient lower to row kernels that never hold
// a score-sized tensor ([2, 4, 16, 16] here): the scratch is [tile, rows]
// and [head_dim, rows].

// The forward: one loop over the 2*4*16 query rows, independent; inside, a
// loop over the key tiles the row sees (a causal row sees a number known
// only at run time), then the output written from the accumulator.
// CHECK-LABEL: func.func @forward
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK-DAG: %[[O:.*]] = tensor.empty() : tensor<2x16x32xf32>
// CHECK-DAG: %[[LSE:.*]] = tensor.empty() : tensor<2x4x16xf32>
// CHECK-DAG: %[[S:.*]] = tensor.empty() : tensor<4x128xf32>
// CHECK-DAG: %[[ACC:.*]] = tensor.empty() : tensor<8x128xf32>
// CHECK: %[[ROWS:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[O]], %{{.*}} = %[[LSE]], %{{.*}} = %[[S]], %{{.*}} = %[[ACC]])
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{[0-9]+}} step
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK: {mt.independent_iterations}
// CHECK: return %[[ROWS]]#0, %[[ROWS]]#1
func.func @forward(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %seed: tensor<i64>) -> (tensor<2x16x32xf32>, tensor<2x4x16xf32>) {
  %o, %lse = mt.fused_attention %q, %k, %v seed %seed : tensor<i64> {mask = #mt<mask causal>, scale = 0.35 : f64, rate = 0.1 : f64, stream = 1 : i64, block_keys = 4 : i64} : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x16x32xf32>, tensor<2x4x16xf32>
  return %o, %lse : tensor<2x16x32xf32>, tensor<2x4x16xf32>
}

// -----

// The gradient: K1 over the query rows (dq and each row's do . o), then K2
// over the 2*2*16 key rows (dk and dv), which reads K1's row sums.
// CHECK-LABEL: func.func @gradient
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK: %[[K1:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[D:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<2x4x16x8xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<8x128xf32>)
// CHECK: {mt.independent_iterations}
// CHECK: %[[K2:.*]]:6 = scf.for {{.*}} -> (tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK: tensor.extract %[[K1]]#1[
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK: {mt.independent_iterations}
// CHECK: return %[[K1]]#0, %[[K2]]#0, %[[K2]]#1
func.func @gradient(%do: tensor<2x4x16x8xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %o: tensor<2x4x16x8xf32>, %lse: tensor<2x4x16xf32>, %m: tensor<2x16xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) {
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse key_mask %m : tensor<2x16xi1> {scale = 0.35 : f64, block_keys = 4 : i64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4x16xf32>
  return %dq, %dk, %dv : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>
}
