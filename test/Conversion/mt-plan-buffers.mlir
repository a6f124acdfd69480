// RUN: mt-opt %s -split-input-file --mt-plan-buffers -verify-diagnostics | FileCheck %s
// RUN: not mt-opt %s -split-input-file --mt-plan-buffers=alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: mt-plan-buffers: alignment must be a power of two, got 48

// Every allocation becomes a view of the arena, the new last argument. %b
// (128 bytes) goes first, at 0; %a is alive while %b is written (through a
// subview) and goes above it; %c is born after %a's last use and takes its
// bytes. The arena ends where its last buffer does: 192 bytes.
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[Y:.*]]: memref<16xf32>, %[[ARENA:.*]]: memref<192xi8>)
// CHECK-SAME: attributes {mt.arena_bytes = 192 : i64}
// CHECK-NEXT: %[[O1:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[ARENA]][%[[O1]]][] : memref<192xi8> to memref<16xf32>
// CHECK-NEXT: linalg.copy ins(%[[X]] : memref<16xf32>) outs(%[[A]] : memref<16xf32>)
// CHECK-NEXT: %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<192xi8> to memref<32xf32>
// CHECK-NEXT: %[[BV:.*]] = memref.subview %[[B]]
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<16xf32>) outs(%[[BV]]
// CHECK-NEXT: %[[O2:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[ARENA]][%[[O2]]][] : memref<192xi8> to memref<16xf32>
// CHECK-NEXT: linalg.copy ins(%[[BV]] : {{.*}}) outs(%[[C]] : memref<16xf32>)
// CHECK-NEXT: linalg.copy ins(%[[C]] : memref<16xf32>) outs(%[[Y]] : memref<16xf32>)
// CHECK-NOT: memref.alloc
func.func @f(%x: memref<16xf32>, %y: memref<16xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
  %bv = memref.subview %b[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
  linalg.copy ins(%a : memref<16xf32>) outs(%bv : memref<16xf32, strided<[1]>>)
  %c = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.copy ins(%bv : memref<16xf32, strided<[1]>>) outs(%c : memref<16xf32>)
  linalg.copy ins(%c : memref<16xf32>) outs(%y : memref<16xf32>)
  return
}

// -----

// A function without temporaries takes an empty arena, so every compiled
// function has the same calling convention.
// CHECK-LABEL: func.func @nothing
// CHECK-SAME: (%{{.*}}: memref<4xf32>, %{{.*}}: memref<0xi8>) attributes {mt.arena_bytes = 0 : i64}
func.func @nothing(%x: memref<4xf32>) {
  return
}

// -----

func.func @nested(%x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{mt-plan-buffers: an allocation inside a nested region cannot be placed in the arena}}
    %t = memref.alloc() : memref<4xf32>
    linalg.copy ins(%x : memref<4xf32>) outs(%t : memref<4xf32>)
  }
  return
}

// -----

func.func @dynamic(%x: memref<?xf32>, %n: index) {
  // expected-error @+1 {{mt-plan-buffers: an allocation needs a static shape and the identity layout to be placed in the arena}}
  %t = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%t : memref<?xf32>)
  return
}

// -----

// A called function (an outlined layer) is planned first; a call lends it
// a block of the caller's arena while it runs: the callee's 64 bytes go
// beside %a (alive across the call), above it.
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[ARENA:.*]]: memref<128xi8>) attributes {mt.arena_bytes = 128 : i64}
// CHECK: %[[A:.*]] = memref.view %[[ARENA]]
// CHECK: %[[AT:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[LENT:.*]] = memref.view %[[ARENA]][%[[AT]]][] : memref<128xi8> to memref<64xi8>
// CHECK-NEXT: call @callee(%[[A]], %[[LENT]]) : (memref<16xf32>, memref<64xi8>) -> ()
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<64xi8>) attributes {mt.arena_bytes = 64 : i64}
func.func @caller(%x: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  func.call @callee(%a) : (memref<16xf32>) -> ()
  linalg.copy ins(%a : memref<16xf32>) outs(%x : memref<16xf32>)
  return
}
func.func private @callee(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%t : memref<16xf32>)
  linalg.copy ins(%t : memref<16xf32>) outs(%x : memref<16xf32>)
  return
}

// -----

// expected-error @+1 {{mt-plan-buffers: a function that calls itself (directly or not) has no arena of bounded size}}
func.func @recursive(%x: memref<4xf32>) {
  func.call @recursive(%x) : (memref<4xf32>) -> ()
  return
}

// -----

func.func private @leaf(%x: memref<4xf32>) {
  return
}
func.func @called_in_loop(%x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{mt-plan-buffers: a call inside a nested region cannot lend the callee its arena}}
    func.call @leaf(%x) : (memref<4xf32>) -> ()
  }
  return
}

// -----

// A buffer carried through a loop lives on in the loop's result: %a is
// filled by the loop and read after it, so %b, born before that read, may
// not take %a's bytes.
// CHECK-LABEL: func.func @carried
// CHECK-SAME: attributes {mt.arena_bytes = 128 : i64}
// CHECK: arith.constant 16 : index
// CHECK-NEXT: %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %{{.*}}[%[[OA]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[A]]) -> (memref<16xf32>)
// CHECK: %[[OB:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %{{.*}}[%[[OB]]][] : memref<128xi8> to memref<16xf32>
// CHECK: linalg.copy ins(%[[R]] : memref<16xf32>) outs(%[[B]] : memref<16xf32>)
func.func @carried(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %r = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %a) -> (memref<16xf32>) {
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %acc[%i] : memref<16xf32>
    scf.yield %acc : memref<16xf32>
  }
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.copy ins(%r : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.copy ins(%b : memref<16xf32>) outs(%y : memref<16xf32>)
  return
}

// -----

// A collective started ahead of its wait may read its input until the wait
// (NCCL on a stream of its own on a GPU): %in lives until the wait, so %t,
// born after the start, does not take its bytes.
// CHECK-LABEL: func.func @started
// CHECK-SAME: attributes {mt.arena_bytes = 256 : i64}
// CHECK: %[[INAT:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[IN:.*]] = memref.view %{{.*}}[%[[INAT]]][] : memref<256xi8> to memref<16xf32>
// CHECK: %[[OUTAT:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OUT:.*]] = memref.view %{{.*}}[%[[OUTAT]]][] : memref<256xi8> to memref<32xf32>
// CHECK: call @mt_rt_all_gather_start
// CHECK: %[[TAT:.*]] = arith.constant 192 : index
// CHECK-NEXT: %[[T:.*]] = memref.view %{{.*}}[%[[TAT]]][] : memref<256xi8> to memref<16xf32>
// CHECK: call @mt_rt_collective_wait
func.func private @mt_rt_all_gather_start(i64, i64, i64, i64, i64, i64, i64)
func.func private @mt_rt_collective_wait(i64)
func.func @started(%x: memref<16xf32>, %y: memref<16xf32>, %z: memref<32xf32>) {
  %c = arith.constant 1 : i64
  %in = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%in : memref<16xf32>)
  %out = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
  %ia = memref.extract_aligned_pointer_as_index %in : memref<16xf32> -> index
  %i = arith.index_cast %ia : index to i64
  %oa = memref.extract_aligned_pointer_as_index %out : memref<32xf32> -> index
  %o = arith.index_cast %oa : index to i64
  call @mt_rt_all_gather_start(%i, %o, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64) -> ()
  %t = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%t : memref<16xf32>)
  linalg.copy ins(%t : memref<16xf32>) outs(%y : memref<16xf32>)
  %oa2 = memref.extract_aligned_pointer_as_index %out : memref<32xf32> -> index
  %o2 = arith.index_cast %oa2 : index to i64
  call @mt_rt_collective_wait(%o2) : (i64) -> ()
  linalg.copy ins(%out : memref<32xf32>) outs(%z : memref<32xf32>)
  return
}
