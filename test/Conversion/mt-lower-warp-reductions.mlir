// RUN: mt-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(mt-lower-warp-reductions))' | FileCheck %s

// A warp's sum: a butterfly of xor shuffles over offsets 1 to 16, every
// lane adding what its partner holds.
// CHECK-LABEL: gpu.func @row_sum
// CHECK-SAME: (%[[P:.+]]: f32)
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: %[[S1:.+]], %{{.+}} = gpu.shuffle xor %[[P]], %[[C1:.+]], %[[W:.+]] : f32
// CHECK: %[[A1:.+]] = arith.addf %[[P]], %[[S1]] : f32
// CHECK: %[[S2:.+]], %{{.+}} = gpu.shuffle xor %[[A1]],
// CHECK: %[[A2:.+]] = arith.addf %[[A1]], %[[S2]] : f32
// CHECK-COUNT-3: gpu.shuffle xor
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @row_sum(%p: f32) -> f32 {
    %t = gpu.subgroup_reduce add %p uniform : (f32) -> f32
    gpu.return %t : f32
  }
}

// -----

// A warp's maximum: the same butterfly with maximumf.
// CHECK-LABEL: gpu.func @row_max
// CHECK-COUNT-5: arith.maximumf
// CHECK-NOT: gpu.subgroup_reduce
gpu.module @kernels {
  gpu.func @row_max(%p: f32) -> f32 {
    %t = gpu.subgroup_reduce maximumf %p uniform : (f32) -> f32
    gpu.return %t : f32
  }
}

// -----

// 64-bit elements do not fit a 32-bit shuffle.
gpu.module @kernels {
  gpu.func @wide(%p: f64) -> f64 {
    // expected-error @+1 {{mt-lower-warp-reductions: cannot lower this warp reduction to shuffles}}
    %t = gpu.subgroup_reduce add %p uniform : (f64) -> f64
    gpu.return %t : f64
  }
}

// -----

// A maximum over clusters of 4 lanes (the quad holding one row of an MMA
// fragment): offsets 1 and 2 only.
// CHECK-LABEL: gpu.func @quad_max
// CHECK-SAME: (%[[P:.+]]: f32)
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: %[[S1:.+]], %{{.+}} = gpu.shuffle xor %[[P]], %{{.+}}, %{{.+}} : f32
// CHECK: %[[M1:.+]] = arith.maximumf %[[P]], %[[S1]] : f32
// CHECK: %[[S2:.+]], %{{.+}} = gpu.shuffle xor %[[M1]],
// CHECK: %[[M2:.+]] = arith.maximumf %[[M1]], %[[S2]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return %[[M2]]
gpu.module @kernels {
  gpu.func @quad_max(%p: f32) -> f32 {
    %t = gpu.subgroup_reduce maximumf %p uniform cluster(size = 4) : (f32) -> f32
    gpu.return %t : f32
  }
}
