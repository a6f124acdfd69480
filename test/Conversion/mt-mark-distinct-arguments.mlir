// RUN: mt-opt %s -split-input-file -mt-mark-distinct-arguments | FileCheck %s

// Every call passes distinct allocations for the out-parameters: both are
// marked; the input already was.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32> {llvm.noalias}, %{{[^:]*}}: memref<4xf32> {llvm.noalias}, %{{[^:]*}}: memref<4xf32> {llvm.noalias})
func.func private @layer(%x: memref<4xf32> {llvm.noalias}, %a: memref<4xf32>, %b: memref<4xf32>) {
  return
}
// CHECK-LABEL: func.func @step
func.func @step(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  call @layer(%x, %a, %b) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  %c = memref.alloc() : memref<4xf32>
  call @layer(%x, %b, %c) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// One call passes the same buffer twice: neither is marked. Disjoint views
// of one buffer are distinct.
// CHECK-LABEL: func.func private @twice
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32>, %{{[^:]*}}: memref<4xf32>)
func.func private @twice(%a: memref<4xf32>, %b: memref<4xf32>) {
  return
}
// CHECK-LABEL: func.func private @halves
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32> {llvm.noalias}, %{{[^:]*}}: memref<4xf32> {llvm.noalias})
func.func private @halves(%a: memref<4xf32>, %b: memref<4xf32>) {
  return
}
// CHECK-LABEL: func.func @caller
func.func @caller(%arena: memref<64xi8>) {
  %a = memref.alloc() : memref<4xf32>
  call @twice(%a, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %lo = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
  %hi = memref.view %arena[%c16][] : memref<64xi8> to memref<4xf32>
  call @halves(%lo, %hi) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// A function whose address is taken, or a public one, is left alone.
// CHECK-LABEL: func.func @public
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32>)
func.func @public(%a: memref<4xf32>) {
  return
}
// CHECK-LABEL: func.func private @taken
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32>)
func.func private @taken(%a: memref<4xf32>) {
  return
}
func.func @user() {
  %a = memref.alloc() : memref<4xf32>
  call @public(%a) : (memref<4xf32>) -> ()
  call @taken(%a) : (memref<4xf32>) -> ()
  %f = func.constant @taken : (memref<4xf32>) -> ()
  return
}
