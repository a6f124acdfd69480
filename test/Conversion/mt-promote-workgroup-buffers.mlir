// RUN: mt-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(mt-promote-workgroup-buffers))" | FileCheck %s

// A kernel's workgroup alloca becomes a workgroup attribution aligned to 16
// bytes, its uses the attribution's.
// CHECK-LABEL: gpu.func @tile
// CHECK-SAME: workgroup(%[[TILE:.+]] : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-NOT: memref.alloca
// CHECK: memref.store %{{.+}}, %[[TILE]][%{{.+}}]
// CHECK: gpu.barrier
// CHECK: memref.load %[[TILE]][%{{.+}}]
gpu.module @kernels {
  gpu.func @tile(%out: memref<64xf32>) kernel {
    %tile = memref.alloca() : memref<64xf32, #gpu.address_space<workgroup>>
    %t = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    memref.store %one, %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %x = memref.load %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%t] : memref<64xf32>
    gpu.return
  }
}

// -----

// Made in a loop, it would be one buffer made many times.
gpu.module @kernels {
  gpu.func @in_loop(%out: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      // expected-error @+1 {{mt-promote-workgroup-buffers: a workgroup buffer must be made at the kernel's top level, with a static shape}}
      %tile = memref.alloca() : memref<64xf32, #gpu.address_space<workgroup>>
      %t = gpu.thread_id x
      %x = memref.load %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %out[%t] : memref<64xf32>
    }
    gpu.return
  }
}
