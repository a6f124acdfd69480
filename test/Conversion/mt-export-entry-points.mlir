// RUN: mt-opt %s -mt-export-entry-points | FileCheck %s

// One `mt_entry_<name>(ptr)` per C-interface function, loading each
// descriptor pointer from the array; mt attributes are dropped.
// CHECK-LABEL: llvm.func @_mlir_ciface_step
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: mt.param
// CHECK-LABEL: llvm.func @mt_entry_step
// CHECK-SAME: (%[[ARGS:.*]]: !llvm.ptr)
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_step(%[[D0]], %[[D1]])
// CHECK: llvm.return
module {
  llvm.func @_mlir_ciface_step(%arg0: !llvm.ptr {mt.param = "w"}, %arg1: !llvm.ptr) {
    llvm.return
  }
}
