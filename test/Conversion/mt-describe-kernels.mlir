// RUN: mt-opt %s -split-input-file --mt-describe-kernels | FileCheck %s
// RUN: mt-opt %s -split-input-file --mt-describe-kernels --mt-describe-kernels | FileCheck %s --check-prefix=TWICE

// Kernels are renamed after the op their location names (a second one of
// the same op gets a number), launches follow, and a kernel without such a
// name keeps its own. Bytes: each buffer read plus each written, whole (read
// and written: twice); a buffer reached only at indices computed from
// loaded values is left out and marks the kernel indirect.
// CHECK-LABEL: module attributes
// CHECK-SAME: mt.kernels = {
// CHECK-SAME: embedding = {bytes = 96 : i64, indirect}
// CHECK-SAME: f_kernel = {bytes = 64 : i64}
// CHECK-SAME: softmax = {bytes = 64 : i64}
// CHECK-SAME: softmax_1 = {bytes = 64 : i64}
// CHECK: gpu.module @mt_kernels
// CHECK: gpu.func @[[$S0:softmax]](
// CHECK: gpu.func @[[$S1:softmax_1]](
// CHECK: gpu.func @[[$E:embedding]](
// CHECK: gpu.func @[[$K:f_kernel]](
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @mt_kernels::@[[$S0]]
// CHECK: gpu.launch_func @mt_kernels::@[[$S1]]
// CHECK: gpu.launch_func @mt_kernels::@[[$E]]
// CHECK: gpu.launch_func @mt_kernels::@[[$K]]
// TWICE: gpu.func @softmax(
// TWICE: gpu.func @softmax_1(
module attributes {gpu.container_module} {
  gpu.module @mt_kernels {
    // Reads x (32 bytes), writes y (32 bytes).
    gpu.func @f_kernel_0(%x: memref<8xf32>, %y: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xf32>
      memref.store %v, %y[%i] : memref<8xf32>
      gpu.return
    } loc("softmax"("model.mlir":3:5))
    // Updates x in place (read and written: 64 bytes).
    gpu.func @f_kernel_1(%x: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<8xf32>
      gpu.return
    } loc("softmax"("model.mlir":4:5))
    // Gathers rows of the table by id: the ids (32) and the output (64) count.
    gpu.func @f_kernel_2(%ids: memref<8xi32>, %table: memref<100x2xf32>, %out: memref<8x2xf32>) kernel {
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %id = memref.load %ids[%i] : memref<8xi32>
      %row = arith.index_cast %id : i32 to index
      %v = memref.load %table[%row, %j] : memref<100x2xf32>
      memref.store %v, %out[%i, %j] : memref<8x2xf32>
      gpu.return
    } loc("embedding"("model.mlir":5:5))
    // No name: kept. A view of x counts as x (32 read, 32 written).
    gpu.func @f_kernel(%x: memref<4x2xf32>, %y: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %flat = memref.collapse_shape %x [[0, 1]] : memref<4x2xf32> into memref<8xf32>
      %v = memref.load %flat[%i] : memref<8xf32>
      memref.store %v, %y[%i] : memref<8xf32>
      gpu.return
    }
  }
  func.func @f(%x: memref<8xf32>, %y: memref<8xf32>, %ids: memref<8xi32>, %t: memref<100x2xf32>,
               %o: memref<8x2xf32>, %m: memref<4x2xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @mt_kernels::@f_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %y : memref<8xf32>)
    gpu.launch_func @mt_kernels::@f_kernel_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    gpu.launch_func @mt_kernels::@f_kernel_2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%ids : memref<8xi32>, %t : memref<100x2xf32>, %o : memref<8x2xf32>)
    gpu.launch_func @mt_kernels::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x2xf32>, %y : memref<8xf32>)
    return
  }
}
