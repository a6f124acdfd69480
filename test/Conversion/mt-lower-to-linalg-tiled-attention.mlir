// RUN: mt-opt %s -split-input-file -mt-lower-to-linalg=tiled-attention=true | FileCheck %s
// RUN: mt-opt %s -split-input-file -mt-bufferize | FileCheck %s --check-prefix=BLAS
// The CPU's form of mt.fused_attention and its gradient: tiles of query rows
// against tiles of keys (block_keys 4 here), their products matrix products,
// and no score-sized tensor ([2, 4, 16, 16]). The outer loop is over tasks
// (mt.parallel_tasks: each iteration writes its own heads, with scratch of
// its own, a [tasks, ...] slot carried through the loops).

// The forward: a task per (batch, head) (2 * 4), its 4 query tiles in order,
// and for each the key tiles it sees (causal: a number known only at run
// time); the output and log-sum-exp written a tile at a time.
// CHECK-LABEL: func.func @forward
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK-DAG: %[[O:.*]] = tensor.empty() : tensor<2x16x32xf32>
// CHECK-DAG: %[[LSE:.*]] = tensor.empty() : tensor<2x4x16xf32>
// CHECK-DAG: %[[S:.*]] = tensor.empty() : tensor<8x4x4xf32>
// CHECK-DAG: %[[ACC:.*]] = tensor.empty() : tensor<8x4x8xf32>
// CHECK: %[[TASKS:.*]]:8 = scf.for %[[N:[^ ]+]] = %{{.*}} to %c8 step %{{.*}} iter_args(%[[OI:[^ ]+]] = %[[O]], %[[LI:[^ ]+]] = %[[LSE]], %[[SI:[^ ]+]] = %[[S]], %{{[^ ]+}} = %[[ACC]],
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[SI]][%[[N]], %{{.*}}, %{{.*}}] [1, 4, 4] [1, 1, 1] : tensor<8x4x4xf32> to tensor<4x4xf32>
// CHECK: %[[ROWS:.*]]:8 = scf.for %{{.*}} = %{{.*}} to %c4{{.*}} iter_args(%[[OQ:[^ ]+]] = %[[OI]], %[[LQ:[^ ]+]] = %[[LI]], %{{[^ ]+}} = %[[SLOT]],
// CHECK: %[[Q:.*]] = tensor.extract_slice %arg0[{{.*}}] [1, 1, 4, 8] [1, 1, 1, 1] : tensor<2x4x16x8xf32> to tensor<4x8xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{[^ ]+}} step
// CHECK: %[[K:.*]] = tensor.extract_slice %arg1[{{.*}}] [1, 1, 4, 8] [1, 1, 1, 1] : tensor<2x2x16x8xf32> to tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[K]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[OQ]]{{.*}} [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<2x16x32xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[LQ]]{{.*}} [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<2x4x16xf32>
// CHECK: tensor.insert_slice %[[ROWS]]#2 into %[[SI]][%[[N]], {{.*}}] [1, 4, 4]
// CHECK: } {mt.parallel_tasks}
// CHECK: return %[[TASKS]]#0, %[[TASKS]]#1
// The products of tiles become BLAS calls, and nothing is allocated in a loop.
// BLAS-LABEL: func.func @forward
// BLAS-NOT: memref.alloc
// BLAS: scf.for
// BLAS-COUNT-2: call @mt_blas_gemm_f32
// BLAS-NOT: memref.alloc
// BLAS: mt.parallel_tasks
// BLAS: return
func.func @forward(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %seed: tensor<i64>) -> (tensor<2x16x32xf32>, tensor<2x4x16xf32>) {
  %o, %lse = mt.fused_attention %q, %k, %v seed %seed : tensor<i64> {mask = #mt<mask causal>, scale = 0.35 : f64, rate = 0.1 : f64, stream = 1 : i64, block_keys = 4 : i64} : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x16x32xf32>, tensor<2x4x16xf32>
  return %o, %lse : tensor<2x16x32xf32>, tensor<2x4x16xf32>
}

// -----

// The gradient: each row's do . o first, then a task per (batch, key head)
// (2 * 2), its 4 key tiles in order; inside, the group's query heads and the
// query tiles, dq summed into its tile (the task alone writes its heads'
// dq), dk and dv into the key tile's scratch and written once.
// CHECK-LABEL: func.func @gradient
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%arg0, %arg4 : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%{{.*}} : tensor<2x4x16xf32>)
// CHECK: %[[TASKS:.*]]:8 = scf.for %{{.*}} = %{{.*}} to %c4 step %{{.*}} iter_args(%{{[^ ]+}} = %{{[^ ]+}}, %[[DK:[^ ]+]] = %{{[^ ]+}}, %[[DV:[^ ]+]] = %{{[^ ]+}},
// CHECK: %[[KEYS:.*]]:8 = scf.for %{{.*}} = %{{.*}} to %c4{{.*}} iter_args(%{{[^ ]+}} = %{{[^ ]+}}, %[[DKT:[^ ]+]] = %[[DK]], %[[DVT:[^ ]+]] = %[[DV]],
// CHECK: %[[GROUP:.*]]:6 = scf.for %{{.*}} = %{{.*}} to %c2
// CHECK: scf.for
// CHECK: tensor.extract_slice %[[D]]
// CHECK-NOT: tensor<2x4x16x16xf32>
// CHECK: tensor.insert_slice %[[GROUP]]#4 into %[[DKT]]
// CHECK: tensor.insert_slice %[[GROUP]]#5 into %[[DVT]]
// CHECK: } {mt.parallel_tasks}
// CHECK: return %[[TASKS]]#0, %[[TASKS]]#1, %[[TASKS]]#2
// BLAS-LABEL: func.func @gradient
// BLAS-NOT: memref.alloc
// BLAS: scf.for
// BLAS-COUNT-5: call @mt_blas_gemm_f32
// BLAS-NOT: memref.alloc
// BLAS: mt.parallel_tasks
// BLAS: return
func.func @gradient(%do: tensor<2x4x16x8xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %o: tensor<2x4x16x8xf32>, %lse: tensor<2x4x16xf32>, %m: tensor<2x16xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) {
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse key_mask %m : tensor<2x16xi1> {scale = 0.35 : f64, block_keys = 4 : i64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4x16xf32>
  return %dq, %dk, %dv : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>
}
