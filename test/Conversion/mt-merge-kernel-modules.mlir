// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-merge-kernel-modules | FileCheck %s

// Two outlined kernels with the same name: one module, the second renamed,
// each launch pointed at its kernel.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @mt_kernels {
// CHECK: gpu.func @[[$FIRST:k]](%{{.*}}: memref<4xf32>) kernel
// CHECK: arith.addf
// CHECK: gpu.func @[[$SECOND:k_[0-9]+]](%{{.*}}: memref<4xf32>) kernel
// CHECK: arith.mulf
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @step
// CHECK: gpu.launch_func @mt_kernels::@[[$FIRST]]
// CHECK: gpu.launch_func @mt_kernels::@[[$SECOND]]
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @k(%m: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @k(%m: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<4xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
  func.func @step(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @b::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}

// -----

// Targets are attached to the merged module, not before.
module attributes {gpu.container_module} {
  // expected-error @+1 {{mt-merge-kernel-modules: run it before targets are attached}}
  gpu.module @a [#nvvm.target<chip = "sm_90">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
