// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu | FileCheck %s
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu=warp-rows-per-block=0 | FileCheck %s --check-prefix=THREAD
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu=vector-bytes=0 | FileCheck %s --check-prefix=SCALAR
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu=column-reductions=false | FileCheck %s --check-prefix=LOOPS
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu=sibling-kernels=false | FileCheck %s --check-prefix=SIBLINGS
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu=row-registers=0 | FileCheck %s --check-prefix=REGISTERS
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-map-to-gpu --mlir-print-debuginfo | FileCheck %s --check-prefix=NAMES
// RUN: not mt-opt %s -split-input-file --mt-map-to-gpu=warp-rows-per-block=33 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: mt-map-to-gpu: warp-rows-per-block must be 0 to 32

// An elementwise op: one dimension, tiles of 256 on blocks, elements on
// threads, guarded where the last tile runs past the end.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: memref.store
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @transpose(%a: memref<8x4xf32>, %b: memref<4x8xf32>) {
  linalg.transpose ins(%a : memref<8x4xf32>) outs(%b : memref<4x8xf32>) permutation = [1, 0]
  return
}

// -----

// A sum of everything: one warp, lane l adding elements l, l + 32, ... in
// order, the lanes combined by a warp reduction, lane 0 adding the total to
// the output. THREAD (no warps): in order, on one thread.
// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[A:.+]]: memref<8x4xf32>, %[[OUT:.+]]: memref<f32>)
// CHECK: scf.parallel (%[[W:.+]], %[[LANE:.+]]) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %{{.+}}) step
// CHECK: %[[PART:.+]] = scf.for %[[I:.+]] = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// CHECK: memref.load %[[A]]
// CHECK: %[[TOTAL:.+]] = gpu.subgroup_reduce add %[[PART]] uniform : (f32) -> f32
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}}
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[OLD:.+]] = memref.load %[[OUT]][]
// CHECK: %[[NEW:.+]] = arith.addf %[[OLD]], %[[TOTAL]]
// CHECK: memref.store %[[NEW]], %[[OUT]][]
// CHECK: processor = thread_y
// CHECK-SAME: processor = thread_x
// THREAD-LABEL: func.func @sum
// THREAD: gpu.launch
// THREAD: scf.for
// THREAD: scf.for
// THREAD: gpu.terminator
func.func @sum(%a: memref<8x4xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
    ins(%a : memref<8x4xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row kernel's loop over rows: the rows run in parallel.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: scf.for
// CHECK: scf.parallel
// CHECK: memref.store
// CHECK: thread_x
func.func @rows(%a: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8x4xf32>) {
    %v = memref.load %a[%i, %c0] : memref<8x4xf32>
    memref.store %v, %o[%i, %c0] : memref<8x4xf32>
    scf.yield %o : memref<8x4xf32>
  } {mt.independent_iterations}
  return
}

// -----

// A hyperparameter read from a buffer nothing writes: each kernel reads it
// itself; nothing is left on the host.
// CHECK-LABEL: func.func @invariant_scalar
// CHECK-NOT: memref.load
// CHECK: scf.parallel
// CHECK: memref.load %[[HYPER:.+]][%{{.+}}] : memref<2xf32>
// CHECK: arith.mulf
// CHECK: thread_x
func.func @invariant_scalar(%hyper: memref<2xf32>, %a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %lr = memref.load %hyper[%c0] : memref<2xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.mulf %x, %lr : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A sum kept in a value, then used by a later kernel: the sum runs on one
// thread and passes its result through a 0-d buffer.
// CHECK-LABEL: func.func @scalar_between_kernels
// CHECK: %[[STASH:.+]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: memref.store %{{.+}}, %[[STASH]][] : memref<f32>
// CHECK: gpu.terminator
// CHECK: scf.parallel
// CHECK: memref.load %[[STASH]][] : memref<f32>
// CHECK: arith.divf
func.func @scalar_between_kernels(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %a[%i] : memref<8xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.divf %x, %sum : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A constant scalar global (cross-entropy's 1.0 after bufferization) folds:
// globals are host memory.
// CHECK-LABEL: func.func @constant_global
// CHECK-NOT: memref.get_global
// CHECK: arith.constant 1.000000e+00 : f32
memref.global "private" constant @one : memref<f32> = dense<1.0>
func.func @constant_global(%out: memref<f32>) {
  %g = memref.get_global @one : memref<f32>
  %v = memref.load %g[] : memref<f32>
  memref.store %v, %out[] : memref<f32>
  return
}

// -----

// The host cannot have what the GPU computes.
func.func private @library(f32)
func.func @host_needs_device_value(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<8xf32>
  memref.store %v, %a[%c0] : memref<8xf32>
  // expected-error @+1 {{mt-map-to-gpu: a library call would need a value the GPU computes}}
  func.call @library(%v) : (f32) -> ()
  return
}

// -----

// A bias gradient (a sum over rows per column): a thread per chunk of 4
// columns keeps their sums in a vector, starting from the output's value,
// and adds 8 rows at a time, their loads first, in row order; one store.
// LOOPS (column-reductions=false): a thread per column, each summing its
// rows in order through the output buffer.
// CHECK-LABEL: func.func @column_sums
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[INIT:.*]] = vector.load %[[OUT]][%[[COL]]] {alignment = 16 : i64} : memref<4xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf32>)
// CHECK: %[[R0:.*]] = vector.load %[[A]][%[[ROW]], %[[COL]]]
// CHECK-COUNT-7: vector.load %[[A]]
// CHECK: %[[S0:.*]] = arith.addf %[[R0]], %[[ACC]] : vector<4xf32>
// CHECK-COUNT-7: arith.addf
// CHECK: vector.store %[[SUM]], %[[OUT]][%[[COL]]]
// CHECK: thread_x
// LOOPS-LABEL: func.func @column_sums
// LOOPS-NOT: gpu.launch
// LOOPS: scf.parallel
// LOOPS: scf.for
// LOOPS: memref.load
// LOOPS: arith.addf
// LOOPS: thread_x
func.func @column_sums(%a: memref<8x4xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%a : memref<8x4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A bf16 bias gradient as mt-lower-to-linalg leaves it: partial sums over 2
// blocks of 4 rows, their sum, rounded to bf16 and widened back, added into
// the f32 accumulator. Two kernels: the partials (8 bf16 columns a thread,
// 4 rows loaded at a time, the fill folded into the sums' start), then the
// sum with the rounding and the add on its registers; the rounded and the
// widened values are not stored (nothing else reads them) and their
// buffers are gone.
// CHECK-LABEL: func.func @bias_gradient
// CHECK-SAME: (%[[DY:.*]]: memref<2x4x16xbf16>, %[[ACC:.*]]: memref<16xf32>)
// CHECK: %[[PARTIAL:.*]] = memref.alloc() : memref<2x16xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel
// CHECK: %[[ZEROS:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]]) -> (vector<8xf32>)
// CHECK-COUNT-4: vector.load %[[DY]]
// CHECK: vector.store %{{.*}}, %[[PARTIAL]]
// CHECK: scf.parallel
// CHECK: %[[TOTAL:.*]] = scf.for {{.*}} -> (vector<4xf32>)
// CHECK: %[[ROUNDED:.*]] = arith.truncf %[[TOTAL]] : vector<4xf32> to vector<4xbf16>
// CHECK: %[[WIDE:.*]] = arith.extf %[[ROUNDED]] : vector<4xbf16> to vector<4xf32>
// CHECK: %[[OLD:.*]] = vector.load %[[ACC]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[WIDE]] : vector<4xf32>
// CHECK-NOT: vector.store
// CHECK: vector.store %[[NEW]], %[[ACC]]
// CHECK-NOT: vector.store
// CHECK: return
func.func @bias_gradient(%dy: memref<2x4x16xbf16>, %acc: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %partial = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%zero : f32) outs(%partial : memref<2x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
    ins(%dy : memref<2x4x16xbf16>) outs(%partial : memref<2x16xf32>) {
  ^bb0(%x: bf16, %s: f32):
    %w = arith.extf %x : bf16 to f32
    %t = arith.addf %s, %w : f32
    linalg.yield %t : f32
  }
  %sum = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%partial : memref<2x16xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  %rounded = memref.alloc() : memref<16xbf16>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%sum : memref<16xf32>) outs(%rounded : memref<16xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %wide = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%rounded : memref<16xbf16>) outs(%wide : memref<16xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%wide : memref<16xf32>) outs(%acc : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A result read after the chain (the bf16 gradient also returned) is
// stored where it is made; the chain stops at an op that reads something
// the group wrote other than its latest result.
// CHECK-LABEL: func.func @bias_gradient_kept
// CHECK-SAME: (%[[DY:.*]]: memref<8x16xf32>, %[[OUT:.*]]: memref<16xbf16>, %[[ACC:.*]]: memref<16xf32>)
// CHECK: scf.parallel
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: %[[ROUNDED:.*]] = arith.truncf %[[SUM]]
// CHECK: vector.store %[[ROUNDED]], %[[OUT]]
// CHECK: %[[WIDE:.*]] = arith.extf %[[ROUNDED]]
// CHECK: vector.store %[[WIDE]]
// CHECK-NOT: arith.addf
// CHECK: thread_x
func.func @bias_gradient_kept(%dy: memref<8x16xf32>, %out: memref<16xbf16>, %acc: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%sum : memref<16xf32>) outs(%out : memref<16xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  %wide = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%out : memref<16xbf16>) outs(%wide : memref<16xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  // Reads the sum again, not only the latest result: not folded in.
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%wide, %sum : memref<16xf32>, memref<16xf32>) outs(%acc : memref<16xf32>) {
  ^bb0(%x: f32, %z: f32, %y: f32):
    %t = arith.addf %x, %z : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A norm's two column sums, then each one's add into its layer's row of a
// stacked accumulator (a slice at a position known when the code runs, in
// steps of 16 elements: aligned). Each add joins its own sum's kernel, the
// first one brought forward over the second sum, which touches neither.
// CHECK-LABEL: func.func @two_sums_into_layer_rows
// CHECK-SAME: (%[[DG:.*]]: memref<8x16xf32>, %[[DB:.*]]: memref<8x16xf32>, %[[AG:.*]]: memref<4x16xf32>, %[[AB:.*]]: memref<4x16xf32>, %[[L:.*]]: index)
// CHECK: %[[RG:.*]] = memref.subview %[[AG]][%[[L]], 0]
// CHECK: scf.parallel
// CHECK: vector.load %[[DG]]
// CHECK: vector.load %[[RG]]
// CHECK: vector.store %{{.*}}, %[[RG]]
// CHECK: %[[RB:.*]] = memref.subview %[[AB]][%[[L]], 0]
// CHECK: scf.parallel
// CHECK: vector.load %[[DB]]
// CHECK: vector.load %[[RB]]
// CHECK: vector.store %{{.*}}, %[[RB]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @two_sums_into_layer_rows(%dg: memref<8x16xf32>, %db: memref<8x16xf32>, %ag: memref<4x16xf32>, %ab: memref<4x16xf32>, %l: index) {
  %zero = arith.constant 0.0 : f32
  %g = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dg : memref<8x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  %b = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%db : memref<8x16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  %rg = memref.subview %ag[%l, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%g : memref<16xf32>) outs(%rg : memref<16xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  %rb = memref.subview %ab[%l, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%b : memref<16xf32>) outs(%rb : memref<16xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// An op between the sum and its add that writes what the add reads (the
// accumulator) keeps the add where it is: three kernels, in order.
// CHECK-LABEL: func.func @sum_not_moved_over_a_writer
// CHECK-SAME: (%[[D:.*]]: memref<8x16xf32>, %[[ACC:.*]]: memref<16xf32>)
// CHECK: scf.parallel
// CHECK-NOT: vector.load %[[ACC]]
// CHECK: scf.parallel
// CHECK: arith.mulf
// CHECK: vector.store %{{.*}}, %[[ACC]]
// CHECK: scf.parallel
// CHECK: vector.load %[[ACC]]
// CHECK: arith.addf
// CHECK: vector.store %{{.*}}, %[[ACC]]
func.func @sum_not_moved_over_a_writer(%d: memref<8x16xf32>, %acc: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %g = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%d : memref<8x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%acc : memref<16xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%g : memref<16xf32>) outs(%acc : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Copies and transposes that keep the innermost dimension (a head split out
// of the QKV rows, a merge of heads) run 16-byte chunks like elementwise
// ops; one that moves the innermost dimension keeps a thread per element.
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[QKV:.*]]: memref<4x48xbf16>, %[[Q:.*]]: memref<4x16xbf16>, %[[H:.*]]: memref<2x4x8xf32>, %[[M:.*]]: memref<4x2x8xf32>, %[[T:.*]]: memref<8x4xf32>)
// CHECK: %[[V:.*]] = memref.subview %[[QKV]]
// CHECK: scf.parallel
// CHECK: %[[C:.*]] = vector.load %[[V]][{{.*}}] {alignment = 16 : i64} : memref<4x16xbf16, strided<[48, 1], offset: 16>>, vector<8xbf16>
// CHECK: vector.store %[[C]], %[[Q]]
// CHECK: scf.parallel
// CHECK: %[[R:.*]] = vector.load %[[H]]{{.*}} : memref<2x4x8xf32>, vector<4xf32>
// CHECK: vector.store %[[R]], %[[M]]
// CHECK: %[[H0:.*]] = memref.subview %[[H]]
// CHECK: scf.parallel
// CHECK: memref.load %[[H0]]
// CHECK: memref.store %{{.*}}, %[[T]]
func.func @copies(%qkv: memref<4x48xbf16>, %q: memref<4x16xbf16>, %h: memref<2x4x8xf32>, %m: memref<4x2x8xf32>, %t: memref<8x4xf32>) {
  %k = memref.subview %qkv[0, 16] [4, 16] [1, 1] : memref<4x48xbf16> to memref<4x16xbf16, strided<[48, 1], offset: 16>>
  memref.copy %k, %q : memref<4x16xbf16, strided<[48, 1], offset: 16>> to memref<4x16xbf16>
  linalg.transpose ins(%h : memref<2x4x8xf32>) outs(%m : memref<4x2x8xf32>) permutation = [1, 0, 2]
  %h0 = memref.subview %h[0, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.transpose ins(%h0 : memref<4x8xf32, strided<[8, 1]>>) outs(%t : memref<8x4xf32>) permutation = [1, 0]
  return
}

// -----

// A softmax's rows (six, width 40): a warp per row, four rows per block;
// each lane takes 4 neighbouring columns at a time (one 16-byte load),
// columns 4l to 4l + 3, then 128 further; the row's maximum and sum are
// kept per vector element, combined in order, then across the warp; the
// last block's spare warps skip. SCALAR (vector-bytes=0): lane l takes
// columns l, l + 32.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[C32:.+]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[BLOCK:.+]]) = (%[[Z:.+]]) to (%[[C6]]) step (%[[C4]])
// CHECK: scf.parallel (%[[WARP:.+]], %[[LANE:.+]]) = (%[[Z]], %[[Z]]) to (%[[C4]], %[[C32]])
// CHECK: %[[ROW:.+]] = arith.addi %[[BLOCK]], %[[WARP]] : index
// CHECK: scf.if
// CHECK: %[[FIRST:.+]] = arith.muli %[[LANE]], %{{.+}} : index
// CHECK: %[[NINF:.+]] = vector.broadcast %{{.+}} : f32 to vector<4xf32>
// CHECK: %[[C128:.+]] = arith.constant 128 : index
// CHECK: %[[VMAX:.+]] = scf.for %[[J:.+]] = %[[FIRST]] to %{{.+}} step %[[C128]] iter_args(%[[M:.+]] = %[[NINF]]) -> (vector<4xf32>)
// CHECK: %[[V:.+]] = vector.load %{{.+}}[%[[ROW]], %[[J]]] {alignment = 16 : i64} : memref<6x40xf32>, vector<4xf32>
// CHECK: arith.maximumf %[[M]], %[[V]] : vector<4xf32>
// CHECK: %[[E0:.+]] = vector.extract %[[VMAX]][0]
// CHECK: %[[E1:.+]] = vector.extract %[[VMAX]][1]
// CHECK: arith.maximumf %[[E0]], %[[E1]] : f32
// CHECK: vector.extract %[[VMAX]][3]
// CHECK: %[[LANEMAX:.+]] = arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK: %[[MAX:.+]] = gpu.subgroup_reduce maximumf %[[LANEMAX]] uniform : (f32) -> f32
// CHECK: %[[PART:.+]]:2 = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (memref<6x40xf32>, vector<4xf32>)
// CHECK: arith.subf %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK: math.exp %{{.+}} : vector<4xf32>
// CHECK: vector.store %{{.+}}, %{{.+}}[%[[ROW]], %[[K]]] {alignment = 16 : i64}
// CHECK: vector.extract %[[PART]]#1[3]
// CHECK: %[[LANESUM:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: %[[SUM:.+]] = gpu.subgroup_reduce add %[[LANESUM]] uniform : (f32) -> f32
// CHECK: scf.for
// CHECK: arith.divf %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK: processor = thread_y
// CHECK-SAME: processor = thread_x
// CHECK: processor = block_x
// SCALAR-LABEL: func.func @softmax_rows
// SCALAR-NOT: mt.independent_iterations
// SCALAR: %[[C6:.+]] = arith.constant 6 : index
// SCALAR: %[[C4:.+]] = arith.constant 4 : index
// SCALAR: %[[C32:.+]] = arith.constant 32 : index
// SCALAR: scf.parallel (%[[BLOCK:.+]]) = (%[[Z:.+]]) to (%[[C6]]) step (%[[C4]])
// SCALAR: scf.parallel (%[[WARP:.+]], %[[LANE:.+]]) = (%[[Z]], %[[Z]]) to (%[[C4]], %[[C32]])
// SCALAR: %[[ROW:.+]] = arith.addi %[[BLOCK]], %[[WARP]] : index
// SCALAR: %[[IN:.+]] = arith.cmpi ult, %[[ROW]], %[[C6]] : index
// SCALAR: scf.if %[[IN]]
// SCALAR: %[[PMAX:.+]] = scf.for %[[J:.+]] = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// SCALAR: memref.load %{{.+}}[%[[ROW]], %[[J]]]
// SCALAR: arith.maximumf
// SCALAR: %[[MAX:.+]] = gpu.subgroup_reduce maximumf %[[PMAX]] uniform : (f32) -> f32
// SCALAR: %[[PART:.+]]:2 = scf.for %[[K:.+]] = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// SCALAR: arith.subf %{{.+}}, %[[MAX]]
// SCALAR: memref.store %{{.+}}, %{{.+}}[%[[ROW]], %[[K]]]
// SCALAR: %[[SUM:.+]] = gpu.subgroup_reduce add %[[PART]]#1 uniform : (f32) -> f32
// SCALAR: scf.for %[[M:.+]] = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// SCALAR: arith.divf %{{.+}}, %[[SUM]]
// SCALAR: processor = thread_y
// SCALAR-SAME: processor = thread_x
// SCALAR: processor = block_x
// THREAD-LABEL: func.func @softmax_rows
// THREAD-NOT: gpu.subgroup_reduce
// THREAD: scf.parallel
// THREAD: scf.for
func.func @softmax_rows(%a: memref<6x40xf32>, %out: memref<6x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c40 = arith.constant 40 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%o = %out) -> (memref<6x40xf32>) {
    %max = scf.for %j = %c0 to %c40 step %c1 iter_args(%m = %ninf) -> (f32) {
      %v = memref.load %a[%i, %j] : memref<6x40xf32>
      %n = arith.maximumf %m, %v : f32
      scf.yield %n : f32
    } {mt.along_row}
    %e:2 = scf.for %k = %c0 to %c40 step %c1 iter_args(%o2 = %o, %s = %zero) -> (memref<6x40xf32>, f32) {
      %v = memref.load %a[%i, %k] : memref<6x40xf32>
      %d = arith.subf %v, %max : f32
      %x = math.exp %d : f32
      memref.store %x, %o2[%i, %k] : memref<6x40xf32>
      %n = arith.addf %s, %x : f32
      scf.yield %o2, %n : memref<6x40xf32>, f32
    } {mt.along_row}
    %w = scf.for %m = %c0 to %c40 step %c1 iter_args(%o3 = %e#0) -> (memref<6x40xf32>) {
      %x = memref.load %o3[%i, %m] : memref<6x40xf32>
      %y = arith.divf %x, %e#1 : f32
      memref.store %y, %o3[%i, %m] : memref<6x40xf32>
      scf.yield %o3 : memref<6x40xf32>
    } {mt.along_row}
    scf.yield %w : memref<6x40xf32>
  } {mt.independent_iterations}
  return
}

// -----

// The column itself in arithmetic (a loss picking its label's logit): the
// lane's 4 column indices as a vector. A width that is not a multiple of 4
// keeps one column at a time.
// CHECK-LABEL: func.func @label_pick
// CHECK: %[[LABEL:.+]] = memref.load %{{.+}}[%[[ROW:.+]]] : memref<8xindex>
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (vector<4xf32>)
// CHECK: %[[FIRST:.+]] = vector.broadcast %[[J]] : index to vector<4xindex>
// CHECK: %[[STEP:.+]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK: %[[COLS:.+]] = arith.addi %[[FIRST]], %[[STEP]] : vector<4xindex>
// CHECK: %[[L:.+]] = vector.broadcast %[[LABEL]] : index to vector<4xindex>
// CHECK: arith.cmpi eq, %[[COLS]], %[[L]] : vector<4xindex>
// CHECK: gpu.subgroup_reduce add
// CHECK-LABEL: func.func @odd_width
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (f32)
// CHECK: memref.load %{{.+}} : memref<8x42xf32>
func.func @label_pick(%x: memref<8x64xf32>, %labels: memref<8xindex>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8xf32>) {
    %label = memref.load %labels[%i] : memref<8xindex>
    %picked = scf.for %j = %c0 to %c64 step %c1 iter_args(%s = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<8x64xf32>
      %is = arith.cmpi eq, %j, %label : index
      %p = arith.select %is, %v, %zero : f32
      %n = arith.addf %s, %p : f32
      scf.yield %n : f32
    } {mt.along_row}
    memref.store %picked, %o[%i] : memref<8xf32>
    scf.yield %o : memref<8xf32>
  } {mt.independent_iterations}
  return
}
func.func @odd_width(%x: memref<8x42xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c42 = arith.constant 42 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8xf32>) {
    %sum = scf.for %j = %c0 to %c42 step %c1 iter_args(%s = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<8x42xf32>
      %n = arith.addf %s, %v : f32
      scf.yield %n : f32
    } {mt.along_row}
    memref.store %sum, %o[%i] : memref<8xf32>
    scf.yield %o : memref<8xf32>
  } {mt.independent_iterations}
  return
}

// -----

// The embedding gradient's walk (mt-lower-to-linalg): a row writes the
// table's row of its id, not its own, but only at the lane's own column, and
// reads it there: rows on warps, the columns from the lane by 32; rows that
// do not walk run no columns.
// CHECK-LABEL: func.func @embedding_walk
// CHECK-SAME: %[[G:[^:]*]]: memref<2x64xf32>, %[[IDS:[^:]*]]: memref<2xi32>, %[[NEXT:[^:]*]]: memref<2xi32>, %[[TABLE:[^:]*]]: memref<16x64xf32>)
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[BLOCK:.*]]) =
// CHECK: scf.parallel (%[[WARP:.*]], %[[LANE:.*]]) =
// CHECK: %[[ROW:.*]] = arith.addi %[[BLOCK]], %[[WARP]]
// CHECK: %[[ID:.*]] = memref.load %[[IDS]][%[[ROW]]]
// CHECK: %[[COLS:.*]] = arith.select
// CHECK: scf.for %[[C:.*]] = %[[LANE]] to %[[COLS]] step %[[C32]]
// CHECK: scf.while
// CHECK: memref.load %[[G]][%{{.*}}, %[[C]]]
// CHECK: memref.load %[[NEXT]]
// CHECK: memref.store %{{.*}}, %[[TABLE]][%{{.*}}, %[[C]]]
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_y{{.*}}#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
// THREAD-LABEL: func.func @embedding_walk
// THREAD-NOT: thread_y
func.func @embedding_walk(%g: memref<2x64xf32>, %ids: memref<2xi32>, %next: memref<2xi32>, %table: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  scf.for %r = %c0 to %c2 step %c1 {
    %raw = memref.load %ids[%r] : memref<2xi32>
    %id = arith.index_cast %raw : i32 to index
    %walks = arith.cmpi sge, %raw, %zero : i32
    %cols = arith.select %walks, %c64, %c0 : index
    scf.for %c = %c0 to %cols step %c1 {
      %start = memref.load %table[%id, %c] : memref<16x64xf32>
      %sum:2 = scf.while (%t = %r, %acc = %start) : (index, f32) -> (index, f32) {
        %more = arith.cmpi slt, %t, %c2 : index
        scf.condition(%more) %t, %acc : index, f32
      } do {
      ^bb0(%t: index, %acc: f32):
        %v = memref.load %g[%t, %c] : memref<2x64xf32>
        %a = arith.addf %acc, %v : f32
        %n = memref.load %next[%t] : memref<2xi32>
        %ni = arith.index_cast %n : i32 to index
        scf.yield %ni, %a : index, f32
      }
      memref.store %sum#1, %table[%id, %c] : memref<16x64xf32>
    } {mt.along_row}
  } {mt.independent_iterations}
  return
}

// -----

// A row that reads back a neighbour's column of what it wrote: on a warp
// that column belongs to another lane, so the row stays on one thread.
// CHECK-LABEL: func.func @reads_neighbour
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: thread_x
func.func @reads_neighbour(%a: memref<8x4xf32>, %out: memref<8x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8x5xf32>) {
    %w = scf.for %j = %c0 to %c4 step %c1 iter_args(%o2 = %o) -> (memref<8x5xf32>) {
      %v = memref.load %a[%i, %j] : memref<8x4xf32>
      memref.store %v, %o2[%i, %j] : memref<8x5xf32>
      %j1 = arith.addi %j, %c1 : index
      %u = memref.load %o2[%i, %j1] : memref<8x5xf32>
      memref.store %u, %o2[%i, %j] : memref<8x5xf32>
      scf.yield %o2 : memref<8x5xf32>
    } {mt.along_row}
    scf.yield %w : memref<8x5xf32>
  } {mt.independent_iterations}
  return
}

// -----

// A carried value that is neither a sum nor a maximum from its identity (a
// running product): the row stays on one thread.
// CHECK-LABEL: func.func @row_product
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: scf.parallel
// CHECK: scf.for
func.func @row_product(%a: memref<8x4xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8xf32>) {
    %p = scf.for %j = %c0 to %c4 step %c1 iter_args(%q = %one) -> (f32) {
      %v = memref.load %a[%i, %j] : memref<8x4xf32>
      %n = arith.mulf %q, %v : f32
      scf.yield %n : f32
    } {mt.along_row}
    memref.store %p, %o[%i] : memref<8xf32>
    scf.yield %o : memref<8xf32>
  } {mt.independent_iterations}
  return
}

// -----

// An elementwise bias add: chunks of four f32 per thread, one aligned
// 16-byte load of x, one of the bias (j is a multiple of four), a vector
// add and one 16-byte store; the chunks are tiled on blocks and threads.
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: %[[XV:.*]] = vector.load %[[X]][%[[I:.*]], %[[J:.*]]] {alignment = 16 : i64} : memref<8x16xf32>, vector<4xf32>
// CHECK: %[[BV:.*]] = vector.load %[[B]][%[[J]]] {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[XV]], %[[BV]] : vector<4xf32>
// CHECK: vector.store %[[S]], %[[Y]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<8x16xf32>, vector<4xf32>
// CHECK: thread_x
// CHECK: block_x
// SCALAR-LABEL: func.func @bias_add
// SCALAR-NOT: vector.
// SCALAR: memref.load
func.func @bias_add(%x: memref<8x16xf32>, %b: memref<16xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%x, %b : memref<8x16xf32>, memref<16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// bf16 storage, fp32 arithmetic: the widest element is f32, so chunks of
// four (8-byte bf16 accesses, 16-byte f32 ones); a per-row scale is loaded
// once and broadcast; a constant becomes a splat.
// CHECK-LABEL: func.func @mixed_widths
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<4x8xbf16>, vector<4xbf16>
// CHECK: %[[R:.*]] = memref.load %{{.*}} : memref<4xf32>
// CHECK: vector.broadcast %[[R]] : f32 to vector<4xf32>
// CHECK: arith.constant dense<2.000000e+00> : vector<4xf32>
// CHECK: arith.extf %{{.*}} : vector<4xbf16> to vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<4x8xf32>, vector<4xf32>
func.func @mixed_widths(%x: memref<4x8xbf16>, %r: memref<4xf32>, %y: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%x, %r : memref<4x8xbf16>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: bf16, %s: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %w = arith.extf %a : bf16 to f32
    %m = arith.mulf %w, %s : f32
    %n = arith.mulf %m, %two : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A body that reads its element's position (a dropout mask keyed by it):
// along the innermost loop the chunk's four positions are its first one plus
// a constant 0..3, along the others the chunk's one, broadcast.
// CHECK-LABEL: func.func @keyed_by_position
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK: %[[XV:.*]] = vector.load %[[X]][%[[I:.*]], %[[J:.*]]] {alignment = 16 : i64}
// CHECK-DAG: %[[STEP:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK-DAG: %[[FIRST:.*]] = vector.broadcast %[[J]] : index to vector<4xindex>
// CHECK: %[[COLS:.*]] = arith.addi %[[FIRST]], %[[STEP]] : vector<4xindex>
// CHECK: %[[ROWS:.*]] = vector.broadcast %[[I]] : index to vector<4xindex>
// CHECK: %[[KEEP:.*]] = arith.cmpi ule, %[[COLS]], %[[ROWS]] : vector<4xindex>
// CHECK: %[[V:.*]] = arith.select %[[KEEP]], %[[XV]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: vector.store %[[V]], %[[Y]][%[[I]], %[[J]]] {alignment = 16 : i64}
// SCALAR-LABEL: func.func @keyed_by_position
// SCALAR-NOT: vector.
func.func @keyed_by_position(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %i = linalg.index 0 : index
    %keep = arith.cmpi ule, %j, %i : index
    %zero = arith.constant 0.0 : f32
    %v = arith.select %keep, %a, %zero : f32
    linalg.yield %v : f32
  }
  return
}

// -----

// An innermost size that is not a multiple of four, and a view whose
// offset breaks the alignment: one element per thread.
// CHECK-LABEL: func.func @not_vectorizable
// CHECK-NOT: vector.
// CHECK: memref.load
func.func @not_vectorizable(%x: memref<8x6xf32>, %y: memref<8x6xf32>, %z: memref<16xf32, strided<[1], offset: 2>>, %w: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%x : memref<8x6xf32>) outs(%y : memref<8x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%z : memref<16xf32, strided<[1], offset: 2>>) outs(%w : memref<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row read together with an i1 mask (a padding mask) stays scalar: i1 is a
// byte in memory but a bit in a vector, so a vector load would read packed
// bits.
// CHECK-LABEL: func.func @masked_rows
// CHECK-NOT: vector.load
// CHECK: memref.load %{{.+}} : memref<6x40xi1>
// CHECK: gpu.subgroup_reduce maximumf
func.func @masked_rows(%a: memref<6x40xf32>, %keep: memref<6x40xi1>, %out: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c40 = arith.constant 40 : index
  %ninf = arith.constant 0xFF800000 : f32
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%o = %out) -> (memref<6xf32>) {
    %max = scf.for %j = %c0 to %c40 step %c1 iter_args(%m = %ninf) -> (f32) {
      %v = memref.load %a[%i, %j] : memref<6x40xf32>
      %k = memref.load %keep[%i, %j] : memref<6x40xi1>
      %s = arith.select %k, %v, %ninf : f32
      %n = arith.maximumf %m, %s : f32
      scf.yield %n : f32
    } {mt.along_row}
    memref.store %max, %o[%i] : memref<6xf32>
    scf.yield %o : memref<6xf32>
  } {mt.independent_iterations}
  return
}

// -----

// Two column sums over the same rows into byte ranges of one arena that do
// not overlap (a norm's weight and bias gradients), each added into a
// buffer of its own: one launch, the second sum's body after the first's
// (`sibling-kernels=false`: a launch each).
// CHECK-LABEL: func.func @sibling_sums
// CHECK-SAME: (%[[DY:.*]]: memref<8x16xf32> {llvm.noalias}, %[[ARENA:.*]]: memref<256xi8> {llvm.noalias}, %[[AG:.*]]: memref<16xf32> {llvm.noalias}, %[[AB:.*]]: memref<16xf32> {llvm.noalias})
// CHECK: scf.parallel
// CHECK: vector.store %{{.*}}, %[[AG]]
// CHECK: vector.store %{{.*}}, %[[AB]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
// SIBLINGS-LABEL: func.func @sibling_sums
// SIBLINGS-COUNT-2: } {mapping = [#gpu.loop_dim_map<processor = block_x
// SIBLINGS-NOT: mapping
// SIBLINGS: return
func.func @sibling_sums(%dy: memref<8x16xf32> {llvm.noalias}, %arena: memref<256xi8> {llvm.noalias}, %ag: memref<16xf32> {llvm.noalias}, %ab: memref<16xf32> {llvm.noalias}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %g = memref.view %arena[%c0][] : memref<256xi8> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %m = arith.mulf %x, %x : f32
    %t = arith.addf %s, %m : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%g : memref<16xf32>) outs(%ag : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  %c64 = arith.constant 64 : index
  %b = memref.view %arena[%c64][] : memref<256xi8> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%b : memref<16xf32>) outs(%ab : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// The same sums, the second one's partial sums stored over the first's
// bytes (offsets 0 and 32 of the arena): a launch each, in order.
// CHECK-LABEL: func.func @overlapping_sums
// CHECK: scf.parallel
// CHECK: vector.store %{{.*}}, %[[AG:.*]][
// CHECK: scf.parallel
// CHECK: vector.store %{{.*}}, %[[AB:.*]][
func.func @overlapping_sums(%dy: memref<8x16xf32> {llvm.noalias}, %arena: memref<256xi8> {llvm.noalias}, %ag: memref<16xf32> {llvm.noalias}, %ab: memref<16xf32> {llvm.noalias}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %g = memref.view %arena[%c0][] : memref<256xi8> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%g : memref<16xf32>) outs(%ag : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  %c32 = arith.constant 32 : index
  %b = memref.view %arena[%c32][] : memref<256xi8> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%b : memref<16xf32>) outs(%ab : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Two optimizer updates of different sizes on different buffers of the plan
// (mt.buffer names them): one launch over the larger, the smaller body
// guarded by its own size.
// CHECK-LABEL: func.func @updates_of_two_sizes
// CHECK-SAME: (%[[A:.*]]: memref<64xf32> {{.*}}, %[[B:.*]]: memref<16xf32> {{.*}})
// CHECK: scf.parallel
// CHECK: vector.store %{{.*}}, %[[A]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[IN]]
// CHECK: vector.store %{{.*}}, %[[B]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @updates_of_two_sizes(%a: memref<64xf32> {mt.buffer = #mt.buffer<param, "a">}, %b: memref<16xf32> {mt.buffer = #mt.buffer<param, "b">}) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%a : memref<64xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%b : memref<16xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// The same updates on two arguments that name one buffer of the plan (an
// optimizer's parameter in and out), or nothing: they may be one buffer, so
// a launch each.
// CHECK-LABEL: func.func @same_buffer_twice
// CHECK-COUNT-2: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-LABEL: func.func @unnamed_arguments
// CHECK-COUNT-2: } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @same_buffer_twice(%a: memref<64xf32> {mt.buffer = #mt.buffer<param, "a">}, %b: memref<64xf32> {mt.buffer = #mt.buffer<param, "a">}) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%a : memref<64xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%b : memref<64xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  return
}
func.func @unnamed_arguments(%a: memref<64xf32>, %b: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%a : memref<64xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    outs(%b : memref<64xf32>) {
  ^bb0(%y: f32):
    %t = arith.mulf %y, %y : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A row loop writes rows of %t through the buffer it carries; a later
// kernel reading %t does not join it (the carried buffer is %t), one
// reading only %u does.
// CHECK-LABEL: func.func @carried_buffer
// CHECK-SAME: (%[[X:.*]]: memref<8x4xf32> {{.*}}, %[[T:.*]]: memref<8x4xf32> {{.*}}, %[[U:.*]]: memref<8x4xf32> {{.*}}, %[[V:.*]]: memref<8x4xf32> {{.*}})
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} iter_args(%[[O:.*]] = %[[T]])
// CHECK: memref.store %{{.*}}, %[[O]][
// CHECK: vector.load %[[U]]
// CHECK: scf.parallel
// CHECK: vector.load %[[T]]
// CHECK: vector.store %{{.*}}, %[[V]]
func.func @carried_buffer(%x: memref<8x4xf32> {llvm.noalias}, %t: memref<8x4xf32> {llvm.noalias}, %u: memref<8x4xf32> {llvm.noalias}, %v: memref<8x4xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%out = %t) -> (memref<8x4xf32>) {
    %w = scf.for %j = %c0 to %c4 step %c1 iter_args(%o = %out) -> (memref<8x4xf32>) {
      %e = memref.load %x[%i, %j] : memref<8x4xf32>
      memref.store %e, %o[%i, %j] : memref<8x4xf32>
      scf.yield %o : memref<8x4xf32>
    }
    scf.yield %w : memref<8x4xf32>
  } {mt.independent_iterations}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%t : memref<8x4xf32>) outs(%v : memref<8x4xf32>) {
  ^bb0(%a: f32, %y: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    outs(%u : memref<8x4xf32>) {
  ^bb0(%y: f32):
    %s = arith.mulf %y, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A softmax over rows of 256 f32: a lane takes two 16-byte chunks of its
// row, so each pass is unrolled and the row is loaded once; the third pass
// divides the exponentials the second one stored, without loading them
// (`row-registers=0`: a loop per pass, three loads a chunk).
// CHECK-LABEL: func.func @softmax_in_registers
// CHECK-SAME: (%[[A:.*]]: memref<4x256xf32>, %[[OUT:.*]]: memref<4x256xf32>)
// CHECK-NOT: scf.for
// CHECK-COUNT-2: vector.load %[[A]]
// CHECK-NOT: vector.load
// CHECK: gpu.subgroup_reduce maximumf
// CHECK: math.exp
// CHECK: vector.store %[[E0:.*]], %[[OUT]]
// CHECK: math.exp
// CHECK: vector.store %[[E1:.*]], %[[OUT]]
// CHECK: gpu.subgroup_reduce add
// CHECK-NOT: vector.load
// CHECK: arith.divf %[[E0]]
// CHECK: vector.store %{{.*}}, %[[OUT]]
// CHECK: arith.divf %[[E1]]
// CHECK: vector.store %{{.*}}, %[[OUT]]
// CHECK: scf.reduce
// REGISTERS-LABEL: func.func @softmax_in_registers
// REGISTERS-COUNT-3: scf.for
func.func @softmax_in_registers(%a: memref<4x256xf32>, %out: memref<4x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%o = %out) -> (memref<4x256xf32>) {
    %max = scf.for %j = %c0 to %c256 step %c1 iter_args(%m = %ninf) -> (f32) {
      %v = memref.load %a[%i, %j] : memref<4x256xf32>
      %n = arith.maximumf %m, %v : f32
      scf.yield %n : f32
    } {mt.along_row}
    %e:2 = scf.for %k = %c0 to %c256 step %c1 iter_args(%o2 = %o, %s = %zero) -> (memref<4x256xf32>, f32) {
      %v = memref.load %a[%i, %k] : memref<4x256xf32>
      %d = arith.subf %v, %max : f32
      %x = math.exp %d : f32
      memref.store %x, %o2[%i, %k] : memref<4x256xf32>
      %n = arith.addf %s, %x : f32
      scf.yield %o2, %n : memref<4x256xf32>, f32
    } {mt.along_row}
    %w = scf.for %m = %c0 to %c256 step %c1 iter_args(%o3 = %e#0) -> (memref<4x256xf32>) {
      %x = memref.load %o3[%i, %m] : memref<4x256xf32>
      %y = arith.divf %x, %e#1 : f32
      memref.store %y, %o3[%i, %m] : memref<4x256xf32>
      scf.yield %o3 : memref<4x256xf32>
    } {mt.along_row}
    scf.yield %w : memref<4x256xf32>
  } {mt.independent_iterations}
  return
}

// -----

// Kernels of two ops sharing a launch: its location names both, so the
// kernel is named after both (mt-describe-kernels) and a profile shows
// everything the launch runs. The second layer-norm sum adds no name.
// CHECK-LABEL: func.func @named_siblings
// NAMES: loc("sum_to__layer_norm_grad"(
// NAMES-NOT: __layer_norm_grad__layer_norm_grad
func.func @named_siblings(%dy: memref<8x16xf32> {llvm.noalias}, %a: memref<16xf32> {llvm.noalias}, %b: memref<16xf32> {llvm.noalias}, %c: memref<16xf32> {llvm.noalias}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%a : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  } loc("sum_to"("model.mlir":1:1))
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %m = arith.mulf %x, %x : f32
    %t = arith.addf %s, %m : f32
    linalg.yield %t : f32
  } loc("layer_norm_grad"("model.mlir":2:1))
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%dy : memref<8x16xf32>) outs(%c : memref<16xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.maximumf %s, %x : f32
    linalg.yield %t : f32
  } loc("layer_norm_grad"("model.mlir":3:1))
  return
}

// -----

// A row kernel reading a layer's slice of a stacked weight at a layer
// known only when the code runs (a layer norm's gamma in an outlined
// layer): the slice starts a whole row of 64 elements from the stack's
// start, so its chunks are aligned and load as vectors.
// CHECK-LABEL: func.func @stacked_weight_row
// CHECK: %[[G:.*]] = memref.subview
// CHECK: scf.parallel
// CHECK: vector.load %[[G]][%{{.*}}] {alignment = 16 : i64} : memref<64xf32, strided<[1], offset: ?>>, vector<4xf32>
// CHECK-NOT: memref.load %[[G]]
// CHECK: return
func.func @stacked_weight_row(%x: memref<8x64xf32>, %stack: memref<12x64xf32>, %layer: index, %out: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %g = memref.subview %stack[%layer, 0] [1, 64] [1, 1] : memref<12x64xf32> to memref<64xf32, strided<[1], offset: ?>>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8x64xf32>) {
    %s = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<8x64xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    } {mt.along_row}
    %w = scf.for %j = %c0 to %c64 step %c1 iter_args(%oo = %o) -> (memref<8x64xf32>) {
      %v = memref.load %x[%i, %j] : memref<8x64xf32>
      %gj = memref.load %g[%j] : memref<64xf32, strided<[1], offset: ?>>
      %d = arith.subf %v, %s : f32
      %y = arith.mulf %d, %gj : f32
      memref.store %y, %oo[%i, %j] : memref<8x64xf32>
      scf.yield %oo : memref<8x64xf32>
    } {mt.along_row}
    scf.yield %w : memref<8x64xf32>
  } {mt.independent_iterations}
  return
}

// -----

// A head split adding a layer's bias row, split by heads: the reshape keeps
// the aligned slice's offset, so the bias loads as vectors too.
// CHECK-LABEL: func.func @head_split_with_bias
// CHECK: %[[B:.*]] = memref.expand_shape
// CHECK: scf.parallel
// CHECK: vector.load %[[B]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x16xf32, strided<[16, 1], offset: ?>>, vector<4xf32>
// CHECK-NOT: memref.load %[[B]]
// CHECK: return
func.func @head_split_with_bias(%p: memref<2x8x2x16xf32>, %stack: memref<12x32xf32>, %layer: index, %out: memref<2x2x8x16xf32>) {
  %row = memref.subview %stack[%layer, 0] [1, 32] [1, 1] : memref<12x32xf32> to memref<32xf32, strided<[1], offset: ?>>
  %b = memref.expand_shape %row [[0, 1]] output_shape [2, 16] : memref<32xf32, strided<[1], offset: ?>> into memref<2x16xf32, strided<[16, 1], offset: ?>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %b : memref<2x8x2x16xf32>, memref<2x16xf32, strided<[16, 1], offset: ?>>) outs(%out : memref<2x2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Independent sums next to each other (a gradient norm's, a parameter
// each), each after the fill of its output: one launch, a block of one warp
// per sum, each fill's value the start its total is added to.
// CHECK-LABEL: func.func @norm_sums
// CHECK-SAME: (%[[A:[^:]+]]: memref<64xf32> {llvm.noalias}, %[[B:[^:]+]]: memref<8x4xf32> {llvm.noalias}, %[[OA:[^:]+]]: memref<f32> {llvm.noalias}, %[[OB:[^:]+]]: memref<f32> {llvm.noalias})
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: scf.parallel (%[[BLOCK:.+]]) = (%{{.+}}) to (%[[C2:.+]]) step
// CHECK: scf.parallel (%{{.+}}, %[[LANE:.+]]) =
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[BLOCK]], %{{.+}} : index
// CHECK: scf.if %[[IS0]]
// CHECK: memref.load %[[A]]
// CHECK: %[[TA:.+]] = gpu.subgroup_reduce add
// CHECK: arith.addf %[[ZERO]], %[[TA]]
// CHECK: memref.store %{{.+}}, %[[OA]][]
// CHECK: %[[IS1:.+]] = arith.cmpi eq, %[[BLOCK]], %{{.+}} : index
// CHECK: scf.if %[[IS1]]
// CHECK: memref.load %[[B]]
// CHECK: %[[TB:.+]] = gpu.subgroup_reduce add
// CHECK: arith.addf %[[TWO]], %[[TB]]
// CHECK: memref.store %{{.+}}, %[[OB]][]
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: return
func.func @norm_sums(%a: memref<64xf32> {llvm.noalias}, %b: memref<8x4xf32> {llvm.noalias}, %oa: memref<f32> {llvm.noalias}, %ob: memref<f32> {llvm.noalias}) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%zero : f32) outs(%oa : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
    ins(%a : memref<64xf32>) outs(%oa : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%two : f32) outs(%ob : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
    ins(%b : memref<8x4xf32>) outs(%ob : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A sum of what the sum before it wrote (a levelled sum's two levels):
// a launch each, in order.
// CHECK-LABEL: func.func @chained_sums
// CHECK: gpu.subgroup_reduce add
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK: gpu.subgroup_reduce add
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @chained_sums(%a: memref<64xf32> {llvm.noalias}, %mid: memref<f32> {llvm.noalias}, %out: memref<f32> {llvm.noalias}) {
  %v = memref.expand_shape %mid [] output_shape [1] : memref<f32> into memref<1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
    ins(%a : memref<64xf32>) outs(%mid : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
    ins(%v : memref<1xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A concat's copies into interleaved columns of one buffer (a packed
// query/key/value gradient: rows of 8, columns 0-3 and 4-7): no element in
// common, one launch. Columns 2-5 overlap the first copy's: a launch each.
// CHECK-LABEL: func.func @interleaved_copies
// CHECK-SAME: (%[[Q:[^:]+]]: memref<4x4xf32> {llvm.noalias}, %[[K:[^:]+]]: memref<4x4xf32> {llvm.noalias}, %[[QK:[^:]+]]: memref<4x8xf32> {llvm.noalias})
// CHECK: vector.load %[[Q]]
// CHECK-NOT: processor = block_x
// CHECK: vector.load %[[K]]
// CHECK-LABEL: func.func @overlapping_columns
// CHECK-COUNT-2: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NOT: mapping
// CHECK: return
func.func @interleaved_copies(%q: memref<4x4xf32> {llvm.noalias}, %k: memref<4x4xf32> {llvm.noalias}, %qk: memref<4x8xf32> {llvm.noalias}) {
  %left = memref.subview %qk[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  linalg.copy ins(%q : memref<4x4xf32>) outs(%left : memref<4x4xf32, strided<[8, 1]>>)
  %right = memref.subview %qk[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  linalg.copy ins(%k : memref<4x4xf32>) outs(%right : memref<4x4xf32, strided<[8, 1], offset: 4>>)
  return
}
func.func @overlapping_columns(%q: memref<4x4xf32> {llvm.noalias}, %k: memref<4x4xf32> {llvm.noalias}, %qk: memref<4x8xf32> {llvm.noalias}) {
  %left = memref.subview %qk[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  linalg.copy ins(%q : memref<4x4xf32>) outs(%left : memref<4x4xf32, strided<[8, 1]>>)
  %mid = memref.subview %qk[0, 2] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  linalg.copy ins(%k : memref<4x4xf32>) outs(%mid : memref<4x4xf32, strided<[8, 1], offset: 2>>)
  return
}
