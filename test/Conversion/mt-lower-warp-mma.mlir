// RUN: mt-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(mt-lower-warp-mma))' | FileCheck %s

// bf16 fragments: A's eight elements as four i32 pairs, B's four as two,
// C's four f32 taken apart; one mma.sync, A row-major and B column-major;
// the result struct back into vector<4xf32>.
// CHECK-LABEL: gpu.func @mma_bf16
// CHECK-SAME: (%[[A:.+]]: vector<8xbf16>, %[[B:.+]]: vector<4xbf16>, %[[C:.+]]: vector<4xf32>)
// CHECK-NOT: mt.warp_mma
// CHECK-DAG: %[[AW:.+]] = vector.bitcast %[[A]] : vector<8xbf16> to vector<4xi32>
// CHECK-DAG: %[[A0:.+]] = vector.extract %[[AW]][0] : i32 from vector<4xi32>
// CHECK-DAG: %[[A3:.+]] = vector.extract %[[AW]][3] : i32 from vector<4xi32>
// CHECK-DAG: %[[BW:.+]] = vector.bitcast %[[B]] : vector<4xbf16> to vector<2xi32>
// CHECK-DAG: %[[B1:.+]] = vector.extract %[[BW]][1] : i32 from vector<2xi32>
// CHECK-DAG: %[[C2:.+]] = vector.extract %[[C]][2] : f32 from vector<4xf32>
// CHECK: %[[R:.+]] = nvvm.mma.sync A[%[[A0]], %{{.+}}, %{{.+}}, %[[A3]]] B[%{{.+}}, %[[B1]]] C[%{{.+}}, %{{.+}}, %[[C2]], %{{.+}}]
// CHECK-SAME: layoutA = #nvvm.mma_layout<row>
// CHECK-SAME: layoutB = #nvvm.mma_layout<col>
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME: multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME: : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[D0:.+]] = llvm.extractvalue %[[R]][0]
// CHECK: %[[D3:.+]] = llvm.extractvalue %[[R]][3]
// CHECK: %[[D:.+]] = vector.from_elements %[[D0]], %{{.+}}, %{{.+}}, %[[D3]] : vector<4xf32>
// CHECK: gpu.return %[[D]]
gpu.module @kernels {
  gpu.func @mma_bf16(%a: vector<8xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
    %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
    gpu.return %d : vector<4xf32>
  }
}

// -----

// f16 fragments use the f16 form of the same instruction, in vector<2xf16>
// pairs.
// CHECK-LABEL: gpu.func @mma_f16
// CHECK-SAME: (%[[A:.+]]: vector<8xf16>,
// CHECK-DAG: %[[A1:.+]] = vector.shuffle %[[A]], %[[A]] [2, 3] : vector<8xf16>, vector<8xf16>
// CHECK: nvvm.mma.sync A[%{{.+}}, %[[A1]], %{{.+}}, %{{.+}}]
// CHECK-SAME: : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
gpu.module @kernels {
  gpu.func @mma_f16(%a: vector<8xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
    %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<8xf16>, vector<4xf16>, vector<4xf32> -> vector<4xf32>
    gpu.return %d : vector<4xf32>
  }
}
