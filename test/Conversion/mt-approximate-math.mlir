// RUN: mt-opt %s -split-input-file --mt-approximate-math | FileCheck %s

// f32 exp, log, tanh and erf become inline arithmetic (a polynomial in
// fused multiply-adds, exponent bits set by integer ops); sin stays for libm.
// CHECK-LABEL: func.func @f32_ops
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: arith.bitcast
// CHECK: %[[S:.*]] = math.sin %[[X]] : f32
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]]
func.func @f32_ops(%x: f32) -> (f32, f32, f32, f32, f32) {
  %e = math.exp %x : f32
  %l = math.log %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  %s = math.sin %x : f32
  return %e, %l, %t, %r, %s : f32, f32, f32, f32, f32
}

// -----

// f64 (gradient checks) keeps libm's exactly rounded functions.
// CHECK-LABEL: func.func @f64_ops
// CHECK-SAME: (%[[X:.*]]: f64)
// CHECK: %[[E:.*]] = math.exp %[[X]] : f64
// CHECK: %[[T:.*]] = math.tanh %[[X]] : f64
// CHECK: return %[[E]], %[[T]]
func.func @f64_ops(%x: f64) -> (f64, f64) {
  %e = math.exp %x : f64
  %t = math.tanh %x : f64
  return %e, %t : f64, f64
}

// -----

// Vectors (emulated GPU kernels) are rewritten lane by lane, in vectors.
// CHECK-LABEL: func.func @vector_exp
// CHECK-NOT: math.exp
// CHECK: math.fma %{{.*}} : vector<4xf32>
func.func @vector_exp(%x: vector<4xf32>) -> vector<4xf32> {
  %e = math.exp %x : vector<4xf32>
  return %e : vector<4xf32>
}
