// RUN: mt-opt %s -split-input-file -mt-convert-contractions-to-blas | FileCheck %s

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// A linear layer's product x W^T: one GEMM call with transB.
// CHECK: func.func private @mt_blas_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: memref<8x4xf32>, %[[W:.*]]: memref<3x4xf32>, %[[Y:.*]]: memref<8x3xf32>)
// CHECK-DAG: %[[XA:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: %[[WA:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK-DAG: %[[YA:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-DAG: %[[NOTRANS:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[TRANS:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 4 : i64
// CHECK: call @mt_blas_gemm_f32(%[[NOTRANS]], %[[TRANS]], %[[M]], %[[N]], %[[K]], %{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// CHECK-NOT: linalg.generic
func.func @linear(%x: memref<8x4xf32>, %w: memref<3x4xf32>, %y: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4xf32>, memref<3x4xf32>) outs(%y : memref<8x3xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A batched product over contiguous matrices: one strided-batched call
// (strides in elements: 30, 42, 35; 2 products).
// CHECK: func.func private @mt_blas_gemm_batched_f64(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @batched
// CHECK-NOT: scf.for
// CHECK-DAG: %[[SA:.*]] = arith.constant 30 : i64
// CHECK-DAG: %[[SB:.*]] = arith.constant 42 : i64
// CHECK-DAG: %[[SC:.*]] = arith.constant 35 : i64
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 2 : i64
// CHECK: call @mt_blas_gemm_batched_f64(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA]], %{{.*}}, %{{.*}}, %[[SB]], %{{.*}}, %{{.*}}, %[[SC]], %[[COUNT]])
// CHECK-NOT: linalg.generic
func.func @batched(%x: memref<2x5x6xf64>, %w: memref<2x6x7xf64>, %y: memref<2x5x7xf64>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x5x6xf64>, memref<2x6x7xf64>) outs(%y : memref<2x5x7xf64>) {
  ^bb0(%in: f64, %in_0: f64, %out: f64):
    %0 = arith.mulf %in, %in_0 : f64
    %1 = arith.addf %out, %0 : f64
    linalg.yield %1 : f64
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>

// Batch dimensions that do not collapse into one stride (x is a slice of a
// wider buffer: its dim-0 stride 80 is not 2 x 30): a loop over them, one
// call per matrix.
// CHECK-LABEL: func.func @batched_strided
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.subview %{{.*}}[%[[I]], %[[J]], 0, 0] [1, 1, 5, 6] [1, 1, 1, 1]
// CHECK: call @mt_blas_gemm_f32(
func.func @batched_strided(%x: memref<2x2x5x6xf32, strided<[80, 30, 6, 1]>>, %w: memref<2x2x6x7xf32>, %y: memref<2x2x5x7xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x2x5x6xf32, strided<[80, 30, 6, 1]>>, memref<2x2x6x7xf32>) outs(%y : memref<2x2x5x7xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#m = affine_map<(d0, d1) -> (d0, d1)>

// Not a contraction: left alone.
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic
// CHECK-NOT: call
func.func @elementwise(%x: memref<8x4xf32>, %y: memref<8x4xf32>, %z: memref<8x4xf32>) {
  linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<8x4xf32>, memref<8x4xf32>) outs(%z : memref<8x4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// bf16 operands widened and summed in fp32 (--bf16's GEMMs): one bf16 GEMM
// call with an fp32 result; the bf16 operands' byte offsets use 2 bytes.
// CHECK: func.func private @mt_blas_gemm_bf16(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @linear_bf16
// CHECK: call @mt_blas_gemm_bf16(
// CHECK-NOT: linalg.generic
func.func @linear_bf16(%x: memref<8x4xbf16>, %w: memref<3x4xbf16>, %y: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4xbf16>, memref<3x4xbf16>) outs(%y : memref<8x3xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Only one operand widened: not a GEMM BLAS has; the loops stay.
// CHECK-LABEL: func.func @half_widened
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @half_widened(%x: memref<8x4xbf16>, %w: memref<3x4xf32>, %y: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4xbf16>, memref<3x4xf32>) outs(%y : memref<8x3xf32>) {
  ^bb0(%in: bf16, %in_0: f32, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %2 = arith.mulf %0, %in_0 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// fp16 operands summed in fp32 (--fp16): mt_blas_gemm_f16.
// CHECK-LABEL: func.func @linear_f16
// CHECK: call @mt_blas_gemm_f16(
func.func @linear_f16(%x: memref<8x4xf16>, %w: memref<3x4xf16>, %y: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4xf16>, memref<3x4xf16>) outs(%y : memref<8x3xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_0 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A bf16 product summed in fp32 into a fresh zero-filled buffer that is
// only rounded into a bf16 buffer: the GEMM writes the bf16 buffer itself
// (one rounding, as cuBLAS's bf16-output GEMM), and the fp32 temporary, its
// fill and the rounding loop are gone.
// CHECK: func.func private @mt_blas_gemm_bf16_into_bf16(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @rounded_bf16
// CHECK-SAME: (%[[X:.*]]: memref<8x4xbf16>, %[[W:.*]]: memref<3x4xbf16>, %[[Y:.*]]: memref<8x3xbf16>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: call @mt_blas_gemm_bf16_into_bf16(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @rounded_bf16(%x: memref<8x4xbf16>, %w: memref<3x4xbf16>, %y: memref<8x3xbf16>) {
  %t = memref.alloc() : memref<8x3xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<8x3xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4xbf16>, memref<3x4xbf16>) outs(%t : memref<8x3xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x3xf32>) outs(%y : memref<8x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// The fp32 product is read by something besides the rounding: it stays, and
// the GEMM writes it.
// CHECK-LABEL: func.func @rounded_and_read
// CHECK: memref.alloc
// CHECK: call @mt_blas_gemm_bf16(
// CHECK: linalg.generic
// CHECK: memref.copy
func.func @rounded_and_read(%x: memref<8x4xbf16>, %w: memref<3x4xbf16>, %y: memref<8x3xbf16>, %z: memref<8x3xf32>) {
  %t = memref.alloc() : memref<8x3xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<8x3xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4xbf16>, memref<3x4xbf16>) outs(%t : memref<8x3xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x3xf32>) outs(%y : memref<8x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.copy %t, %z : memref<8x3xf32> to memref<8x3xf32>
  return
}
