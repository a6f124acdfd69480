// RUN: mt-opt %s -split-input-file -mt-number-collectives -mt-lower-to-linalg -verify-diagnostics | FileCheck %s
// RUN: mt-opt %s -split-input-file -mt-number-collectives -mt-lower-to-linalg -verify-diagnostics --mlir-print-debuginfo | FileCheck %s --check-prefix=NAMED
// Every op a lowering creates is named after the mt op it lowers
// (mt-describe-kernels names kernels after it).
// NAMED: #[[$AT:loc[0-9]+]] = loc("{{.*}}mt-lower-to-linalg.mlir":[[@LINE+15]]:
// NAMED: loc("linear"(#[[$AT]]))

// A linear layer: rows flattened, a contraction over in_features, the bias
// broadcast, the result reshaped back; the function is exported.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %{{.*}} : tensor<6x4xf32>, tensor<5x4xf32>) outs(%[[Z]] : tensor<6x5xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<6x5xf32>, tensor<5xf32>)
// CHECK-NOT: mt.
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %y = mt.linear %x, %w, %b : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Dropout: a hash of the key and the element index decides each element.
// CHECK-LABEL: func.func @dropout
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.shrui
// CHECK: arith.cmpi sge
// CHECK: arith.select
func.func @dropout(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = mt.dropout %x {rate = 0.25 : f64, stream = 3 : i64, layer = 1 : i64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// In a stage program shared by several stages (mt-share-stage-programs) the
// key's layer slot (layer + 1, beside stream 3 << 32) gets the caller's
// first layer added.
// CHECK-LABEL: func.func @dropout_shared
// CHECK-SAME: (%{{[^:]*}}: tensor<4x8xf32>, %[[OFFSET:[^:]*]]: tensor<i64> {mt.layer_offset})
// CHECK: %[[SITE:.*]] = arith.constant 12884901890 : i64
// CHECK: %[[FIRST:.*]] = tensor.extract %[[OFFSET]][] : tensor<i64>
// CHECK: arith.addi %[[SITE]], %[[FIRST]] : i64
func.func @dropout_shared(%x: tensor<4x8xf32>, %offset: tensor<i64> {mt.layer_offset}) -> tensor<4x8xf32> {
  %y = mt.dropout %x {rate = 0.25 : f64, stream = 3 : i64, layer = 1 : i64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Dynamic sizes must be fixed first.
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{mt-lower-to-linalg: run mt-specialize-shapes first}}
  %y = mt.gelu %x approximate = tanh : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

mt.mesh @mesh axes = ["tp"] shape = [2]
func.func @collective(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{mt-lower-to-linalg: 'mt.recv' has no CPU lowering (the runtime's pipeline scheduler moves activations between stages)}}
  %y = mt.recv on @mesh axis = "tp" offset = -1 channel = 0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The runtime groups ranks along pp, dp and tp only.
mt.mesh @mesh axes = ["ep"] shape = [2]
func.func @unknown_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{mt-lower-to-linalg: mesh axis 'ep' is not one the runtime knows (pp, dp, tp)}}
  // expected-error @+1 {{failed to legalize operation 'mt.all_reduce' that was explicitly marked illegal}}
  %y = mt.all_reduce %x on @mesh axes = ["ep"] reduction = sum : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Row-wise ops lower to one loop nest each (their single CPU kernel): a
// loop over the rows and, inside, scalar loops along one row. Softmax
// takes the row's max, writes exp(z - max) while summing it, then divides
// in place; the causal limit and the key mask are found from the row index.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.generic
// CHECK: %[[X:.*]] = tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<2x3x4x4xf32> into tensor<24x4xf32>
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<24x4xf32>
// CHECK: %[[P:.*]] = scf.for %[[R:[a-z0-9_]+]] = {{.*}} iter_args(%[[ROWS:[a-z0-9_]+]] = %[[OUT]]) -> (tensor<24x4xf32>)
// CHECK: %[[MAX:.*]] = scf.for %[[J:[a-z0-9_]+]] = {{.*}} -> (f32)
// CHECK: tensor.extract %[[X]][%[[R]], %[[J]]]
// CHECK: arith.remui %[[R]]
// CHECK: arith.divui %[[R]]
// CHECK: arith.maximumf
// CHECK: %[[E:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[ROWS]], %{{.*}} = %{{.*}}) -> (tensor<24x4xf32>, f32)
// CHECK: math.exp
// CHECK: tensor.insert
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]]#0) -> (tensor<24x4xf32>)
// CHECK: arith.divf %{{.*}}, %[[E]]#1
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %[[P]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 3, 4, 4]
func.func @softmax(%x: tensor<2x3x4x4xf32>, %m: tensor<2x4xi1>) -> tensor<2x3x4x4xf32> {
  %p = mt.softmax %x key_mask %m : tensor<2x4xi1> {mask = #mt<mask causal>, scale = 5.000000e-01 : f64} : tensor<2x3x4x4xf32>
  return %p : tensor<2x3x4x4xf32>
}

// -----

// Layer norm's backward: one nest over independent rows finds each row's
// mean and 1/std, sums dxhat * xhat and dxhat along it and writes dx, and
// keeps the row's mean and 1/std; dgamma and dbeta are column sums over the
// rows after it (no thread walks every row on a GPU).
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-NOT: linalg.generic
// CHECK: %[[G:.*]]:3 = scf.for {{.*}} -> (tensor<6x8xf32>, tensor<6xf32>, tensor<6xf32>)
// CHECK: %[[SUM:.*]] = scf.for {{.*}} -> (f32)
// CHECK: %[[SQ:.*]] = scf.for {{.*}} -> (f32)
// CHECK: %[[RSTD:.*]] = math.rsqrt
// CHECK: %[[SUMS:.*]]:2 = scf.for {{.*}} -> (f32, f32)
// CHECK: %[[DX:.*]] = scf.for {{.*}} -> (tensor<6x8xf32>)
// CHECK: arith.mulf %[[RSTD]]
// CHECK: %[[R:.*]] = tensor.insert %[[RSTD]]
// CHECK: scf.yield %[[DX]], %[[R]], %{{.*}}
// CHECK-NEXT: } {mt.independent_iterations}
// CHECK: %[[DG:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins({{.*}}, %[[G]]#1, %[[G]]#2 : {{.*}}) outs({{.*}} : tensor<8xf32>)
// CHECK: %[[DB:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
// CHECK: return %{{.*}}, %[[DG]], %[[DB]]
func.func @layer_norm_grad(%dy: tensor<2x3x8xf32>, %x: tensor<2x3x8xf32>, %g: tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-05 : f64} : tensor<2x3x8xf32>, tensor<8xf32>
  return %dx, %dg, %db : tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// The loss: per row (independent rows) the max, the sum of exponentials
// and the row's masked loss; then the losses and the mask are summed.
// CHECK-LABEL: func.func @cross_entropy
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.*]] = scf.for {{.*}} -> (tensor<6xf32>)
// CHECK: %[[MAX:.*]] = scf.for {{.*}} -> (f32)
// CHECK: %[[SE:.*]] = scf.for {{.*}} -> (f32)
// CHECK: math.log %[[SE]]
// CHECK: } {mt.independent_iterations}
// CHECK: %[[TOTAL:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<6xf32>)
// CHECK: %[[COUNT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<6xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[C:.*]] = tensor.extract %[[COUNT]][]
// CHECK: %[[D:.*]] = arith.select %{{.*}}, %{{.*}}, %[[C]]
// CHECK: %[[T:.*]] = tensor.extract %[[TOTAL]][]
// CHECK: %[[MEAN:.*]] = arith.divf %[[T]], %[[D]]
// CHECK: tensor.from_elements %[[MEAN]] : tensor<f32>
func.func @cross_entropy(%logits: tensor<2x3x5xf32>, %labels: tensor<2x3xi32>, %mask: tensor<2x3xf32>) -> tensor<f32> {
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<2x3x5xf32>, tensor<2x3xi32>, tensor<2x3xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Gradient accumulation: the accumulator is the destination of each
// update. A GEMM with `plus` contracts into it (no zero fill), the
// embedding's scatter-add starts from it, mt.accumulate adds into it, and
// a layer's slice goes back with tensor.insert_slice at its layer.
// CHECK-LABEL: func.func @accumulate_in_place
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[DY:.*]]: tensor<8x4xf32>, %[[DB:.*]]: tensor<4xf32>, %[[ACC:.*]]: tensor<2x4x4xf32>, %[[ACCB:.*]]: tensor<4xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[S:.*]] = tensor.extract_slice %[[ACC]][1, 0, 0] [1, 4, 4] [1, 1, 1]
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[DY]] : tensor<8x4xf32>, tensor<8x4xf32>) outs(%[[S]] : tensor<4x4xf32>)
// CHECK: %[[U:.*]] = tensor.insert_slice %[[D]] into %[[ACC]][1, 0, 0] [1, 4, 4] [1, 1, 1]
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[DB]] : tensor<4xf32>) outs(%[[ACCB]] : tensor<4xf32>)
// CHECK: return %[[U]], %[[B]]
func.func @accumulate_in_place(%x: tensor<8x4xf32>, %dy: tensor<8x4xf32>, %db: tensor<4xf32>,
                               %acc: tensor<2x4x4xf32>, %accb: tensor<4xf32>) -> (tensor<2x4x4xf32>, tensor<4xf32>) {
  %s = mt.slice_layer %acc {layer = 1 : i64} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %d = mt.matmul %x, %dy plus %s : tensor<4x4xf32> {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %u = mt.insert_layer %d into %acc {layer = 1 : i64} : tensor<4x4xf32> into tensor<2x4x4xf32>
  %b = mt.accumulate %db into %accb : tensor<4xf32>
  return %u, %b : tensor<2x4x4xf32>, tensor<4xf32>
}

// -----

// The scatter-add starts from the accumulator. The rows of one id form a
// chain (the next row with that id, found by a scan forward); the first row
// of each id (a scan backward) walks its chain for every column, adding in
// row order: rows independent, columns along the row, no atomics, the same
// sums as a sequential loop.
// CHECK-LABEL: func.func @embedding_grad_plus
// CHECK-SAME: %[[G:[^:]*]]: tensor<2x4xf32>, %[[IDS:[^:]*]]: tensor<2xi32>, %[[ACC:[^:]*]]: tensor<16x4xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[IDS]] : tensor<2xi32>) outs(%{{.*}} : tensor<2xi32>)
// CHECK: scf.while
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[C2]] {{.*}} iter_args(%[[TABLE:.*]] = %[[ACC]])
// CHECK: %[[FIRST:.*]] = scf.while
// CHECK: %[[LEADS:.*]] = arith.cmpi slt, %[[FIRST]]
// CHECK: %[[WALKS:.*]] = arith.andi %{{.*}}, %[[LEADS]]
// CHECK: %[[COLS:.*]] = arith.select %[[WALKS]]
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[COLS]] {{.*}} iter_args(%[[T:.*]] = %[[TABLE]])
// CHECK: %[[START:.*]] = tensor.extract %[[T]]
// CHECK: %[[SUM:.*]]:2 = scf.while ({{.*}} = %[[R]], {{.*}} = %[[START]])
// CHECK: tensor.extract %[[G]]
// CHECK: tensor.extract %[[NEXT]]
// CHECK: tensor.insert %[[SUM]]#1 into %[[T]]
// CHECK: } {mt.along_row}
// CHECK: } {mt.independent_iterations}
func.func @embedding_grad_plus(%g: tensor<2x4xf32>, %ids: tensor<2xi32>, %acc: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %d = mt.embedding_grad %g[%ids] plus %acc : tensor<16x4xf32> : tensor<2x4xf32>, tensor<2xi32> -> tensor<16x4xf32>
  return %d : tensor<16x4xf32>
}

// -----

// A column sum over many rows runs in two levels: blocks of rows into
// partial sums (blocks x columns parallel), then the blocks; at most about
// sqrt(rows) blocks, so neither level is long.
// CHECK-LABEL: func.func @sum_to_columns
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %{{.*}} output_shape [8, 8, 8]
// CHECK: %[[PART:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[BLOCKS]] : tensor<8x8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[PART]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: return %[[SUM]]
func.func @sum_to_columns(%x: tensor<64x8xf32>) -> tensor<8xf32> {
  %s = mt.sum_to %x : tensor<64x8xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A sum of everything takes interleaved partial sums (partial p adds
// elements p, p + 64, ...) until few enough are left to add in order.
// CHECK-LABEL: func.func @sum_to_scalar
// CHECK: tensor.expand_shape %{{.*}} output_shape [16, 64]
// CHECK: %[[PART:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x64xf32>)
// CHECK: %[[COLS:.*]] = linalg.generic {{.*}} ins(%[[PART]] : tensor<4x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[COLS]] : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: return %[[SUM]]
func.func @sum_to_scalar(%x: tensor<32x32xf32>) -> tensor<f32> {
  %s = mt.sum_to %x : tensor<32x32xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A square summed (a gradient's share of its norm): the first partial sums
// read x and square it at each element; the squares are never stored.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-SAME: (%[[X:.*]]: tensor<32x32xf32>)
// CHECK: tensor.collapse_shape %[[X]]
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %{{.*}} output_shape [4, 4, 64]
// CHECK: linalg.generic {{.*}} ins(%[[BLOCKS]] : tensor<4x4x64xf32>)
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[E]], %[[E]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK-NOT: linalg.generic {{.*}} ins(%[[X]], %[[X]]
// CHECK: return
func.func @sum_of_squares(%x: tensor<32x32xf32>) -> tensor<f32> {
  %sq = mt.mul %x, %x : tensor<32x32xf32>, tensor<32x32xf32>
  %s = mt.sum_to %sq : tensor<32x32xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A square read by something else too is stored, and its sum reads it.
// CHECK-LABEL: func.func @square_kept
// CHECK: %[[SQ:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: tensor.collapse_shape %[[SQ]]
// CHECK: return
func.func @square_kept(%x: tensor<32x32xf32>) -> (tensor<f32>, tensor<32x32xf32>) {
  %sq = mt.mul %x, %x : tensor<32x32xf32>, tensor<32x32xf32>
  %s = mt.sum_to %sq : tensor<32x32xf32> -> tensor<f32>
  return %s, %sq : tensor<f32>, tensor<32x32xf32>
}

// -----

// bf16 tensors are storage: a bf16 linear multiplies widened elements and
// sums them in fp32, then rounds once (a bf16 GEMM with fp32 accumulation);
// the bias is added in fp32 and the sum rounded.
// CHECK-LABEL: func.func @linear_bf16
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x5xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<6x4xbf16>, tensor<5x4xbf16>) outs(%[[Z]] : tensor<6x5xf32>)
// CHECK: ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK: %[[AW:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK: %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: %[[Y16:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<6x5xf32>) outs(%{{.*}} : tensor<6x5xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic {{.*}} ins(%[[Y16]], %{{.*}} : tensor<6x5xbf16>, tensor<5xbf16>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @linear_bf16(%x: tensor<2x3x4xbf16>, %w: tensor<5x4xbf16>, %b: tensor<5xbf16>) -> tensor<2x3x5xbf16> {
  %y = mt.linear %x, %w, %b : tensor<2x3x4xbf16>, tensor<5x4xbf16>, tensor<5xbf16> -> tensor<2x3x5xbf16>
  return %y : tensor<2x3x5xbf16>
}

// -----

// A bf16 layer norm: each element is widened as it is read, the row's sums
// are carried in fp32, and only the stored result is rounded.
// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK: scf.for {{.*}} -> (tensor<6x8xbf16>)
// CHECK: %[[SUM:.*]] = scf.for {{.*}} -> (f32)
// CHECK: %[[E:.*]] = tensor.extract %{{.*}} : tensor<6x8xbf16>
// CHECK: arith.extf %[[E]] : bf16 to f32
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: scf.for {{.*}} -> (tensor<6x8xbf16>)
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: tensor.insert %[[R]]
func.func @layer_norm_bf16(%x: tensor<2x3x8xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>) -> tensor<2x3x8xbf16> {
  %y = mt.layer_norm %x, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x3x8xbf16>, tensor<8xbf16>
  return %y : tensor<2x3x8xbf16>
}

// -----

// A bias gradient over bf16 rows: the column sums run in fp32 and are
// rounded once.
// CHECK-LABEL: func.func @sum_to_bf16
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<6x5xbf16>) outs(%{{.*}} : tensor<5xf32>)
// CHECK: arith.extf
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<5xf32>) outs(%{{.*}} : tensor<5xbf16>)
// CHECK: arith.truncf
func.func @sum_to_bf16(%x: tensor<2x3x5xbf16>) -> tensor<5xbf16> {
  %s = mt.sum_to %x : tensor<2x3x5xbf16> -> tensor<5xbf16>
  return %s : tensor<5xbf16>
}

// -----

// A pointwise op (mt.silu) lowers to one linalg.generic of its own scalar
// function: x * 1 / (1 + exp(-x)); on bf16 storage it computes in f32.
// CHECK-LABEL: func.func @silu_bf16
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xbf16>
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK: %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: %[[NEG:.*]] = arith.negf %[[W]] : f32
// CHECK: %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK: %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// CHECK: %[[S:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[W]], %[[S]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
// CHECK: return %[[OUT]]
func.func @silu_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %y = mt.silu %x : tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}
