// RUN: mt-opt %s -split-input-file --mt-lower-to-linalg=mma-attention | FileCheck %s
// RUN: mt-opt %s -split-input-file --mt-lower-to-linalg=mma-attention --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --mt-map-to-gpu | FileCheck %s --check-prefix=MAP

// A bf16 attention the tensor cores take (head dim 16, 32 positions): one
// loop of warp tasks (2 heads x 2 tiles of 16 query rows) written per lane.
// Q's fragment is loaded once; the tile loop over 32 keys holds S = Q K^T
// (4 n-tiles of 8 keys, one k-step) and O += P V (2 k-steps of 16 keys, 2
// n-tiles of 8 columns) as mt.warp_mma, and the rows' maxima and sums over
// the lane's quad; the exponentials are exp2 of scores in base-2 units.
// Nothing score-sized is made. Loads are whole groups: V is copied
// transposed before the tasks, and a lane reads its k-columns of a step (Q
// and K rows, one step at head dim 16: 4 elements) or of two steps (V^T
// rows over 32 keys: 8 elements) in one vector read, which mt-map-to-gpu
// makes an aligned vector.load.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[V:[^:]+]]: tensor<1x2x32x16xbf16>) ->
// CHECK-NOT: tensor<1x2x32x32x
// CHECK: %[[VT:.+]] = linalg.generic {{.*}} ins(%[[V]] : tensor<1x2x32x16xbf16>) outs(%{{.+}} : tensor<1x2x16x32xbf16>)
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: scf.for %[[TASK:.+]] = %{{.+}} to %[[C4]] step %{{.+}} iter_args
// CHECK: %[[LANE:.+]] = mt.lane_id %[[TASK]]
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<1x2x32x16xbf16>, vector<4xbf16>
// CHECK: vector.from_elements {{.*}} : vector<8xbf16>
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, f32, f32, f32, f32)
// CHECK-COUNT-4: mt.warp_mma %{{.+}}, %{{.+}}, %{{.+}} {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
// CHECK: gpu.subgroup_reduce maximumf %{{.+}} uniform cluster(size = 4) : (f32) -> f32
// CHECK: gpu.subgroup_reduce maximumf %{{.+}} uniform cluster(size = 4) : (f32) -> f32
// CHECK: math.exp2
// CHECK: gpu.subgroup_reduce add %{{.+}} uniform cluster(size = 4) : (f32) -> f32
// CHECK: gpu.subgroup_reduce add %{{.+}} uniform cluster(size = 4) : (f32) -> f32
// CHECK: vector.transfer_read %[[VT]]{{.*}} {in_bounds = [true]} : tensor<1x2x16x32xbf16>, vector<8xbf16>
// CHECK-COUNT-4: mt.warp_mma
// CHECK-NOT: mt.warp_mma
// CHECK: } {mt.warp_tasks = 4 : i64}
// CHECK-NOT: tensor<1x2x32x32x
// MAP-LABEL: func.func @forward
// MAP-NOT: mt.lane_id
// MAP: scf.parallel (%[[BLOCK:.+]]) = (%{{.+}}) to (%{{.+}}) step (%{{.+}})
// MAP: scf.parallel (%[[WARP:.+]], %[[L:.+]]) =
// MAP: %[[T:.+]] = arith.addi %[[BLOCK]], %[[WARP]] : index
// MAP: arith.divui %[[L]],
// MAP: vector.load {{.*}} {alignment = 8 : i64} : memref<1x2x32x16xbf16>, vector<4xbf16>
// MAP: mt.warp_mma
// MAP: vector.load {{.*}} {alignment = 16 : i64} : memref<1x2x16x32xbf16>, vector<8xbf16>
// MAP: {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// MAP: {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// MAP-NOT: mt.lane_id
func.func @forward(%q: tensor<1x2x32x16xbf16>, %k: tensor<1x2x32x16xbf16>, %v: tensor<1x2x32x16xbf16>) -> (tensor<1x32x32xbf16>, tensor<1x2x32xf32>) {
  %o, %lse = mt.fused_attention %q, %k, %v {scale = 0.25 : f64, mask = #mt<mask causal>, block_keys = 64 : i64} : tensor<1x2x32x16xbf16>, tensor<1x2x32x16xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x32x32xbf16>, tensor<1x2x32xf32>
  return %o, %lse : tensor<1x32x32xbf16>, tensor<1x2x32xf32>
}

// -----

// A head dim of 8 is no MMA shape: the row kernel, a thread per query row.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: mt.warp_mma
// CHECK: } {mt.independent_iterations}
// CHECK-NOT: mt.warp_tasks
// MAP-LABEL: func.func @narrow
// MAP-NOT: mt.warp_mma
func.func @narrow(%q: tensor<1x2x32x8xbf16>, %k: tensor<1x2x32x8xbf16>, %v: tensor<1x2x32x8xbf16>) -> (tensor<1x2x32x8xbf16>, tensor<1x2x32xf32>) {
  %o, %lse = mt.fused_attention %q, %k, %v {scale = 0.35 : f64, mask = #mt<mask none>, block_keys = 64 : i64} : tensor<1x2x32x8xbf16>, tensor<1x2x32x8xbf16>, tensor<1x2x32x8xbf16> -> tensor<1x2x32x8xbf16>, tensor<1x2x32xf32>
  return %o, %lse : tensor<1x2x32x8xbf16>, tensor<1x2x32xf32>
}
