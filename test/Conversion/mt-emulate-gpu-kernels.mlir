// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-emulate-gpu-kernels | FileCheck %s

// A warp's row sum: the lanes run one after another in phases cut at the
// reduction; the row index (computed before the guard) waits in a lane
// buffer; the reduction is the GPU's butterfly (lane l with l ^ 1, ^ 2,
// ^ 4, ^ 8, ^ 16, its own value first); the guard, the same for every
// lane, is computed once per warp.
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[ROWS:.+]] = memref.alloca() : memref<32xindex>
// CHECK: scf.parallel (%[[B:.+]]) =
// CHECK: scf.for %[[W:.+]] = %{{.+}} to %{{.+}} step
// CHECK: scf.for %[[L0:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: %[[ROW:.+]] = arith.addi %[[B]], %[[W]]
// CHECK: memref.store %[[ROW]], %[[ROWS]][%[[L0]]]
// CHECK: %[[UROW:.+]] = arith.addi %[[B]], %[[W]]
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[UROW]]
// CHECK: scf.if %[[IN]]
// CHECK: scf.for %[[L1:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: %[[R:.+]] = memref.load %[[ROWS]][%[[L1]]]
// CHECK: %[[P:.+]] = scf.for %{{.+}} = %[[L1]] to
// CHECK: memref.load %{{.+}}[%[[R]],
// CHECK: memref.store %[[P]], %[[PARTS:.+]][%[[L1]]]
// CHECK: scf.for %[[L2:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: %[[PARTNER:.+]] = arith.xori %[[L2]], %[[C1:.+]] : index
// CHECK: %[[OWN:.+]] = memref.load %[[PARTS]][%[[L2]]]
// CHECK: %[[THEIRS:.+]] = memref.load %[[PARTS]][%[[PARTNER]]]
// CHECK: arith.addf %[[OWN]], %[[THEIRS]] : f32
// CHECK: arith.xori %{{.+}}, %{{.+}} : index
// CHECK: arith.xori %{{.+}}, %{{.+}} : index
// CHECK: arith.xori %{{.+}}, %{{.+}} : index
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: arith.xori %{{.+}}, %[[C16]] : index
// CHECK: memref.store %{{.+}}, %[[TOTALS:.+]][%{{.+}}]
// CHECK: scf.for %[[L3:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: %[[T:.+]] = memref.load %[[TOTALS]][%[[L3]]]
// CHECK: memref.store %[[T]]
// CHECK-NOT: gpu.subgroup_reduce
func.func @row_sum(%a: memref<6x64xf32>, %out: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%b) = (%c0) to (%c6) step (%c4) {
    scf.parallel (%w, %l) = (%c0, %c0) to (%c4, %c32) step (%c1, %c1) {
      %row = arith.addi %b, %w : index
      %in = arith.cmpi ult, %row, %c6 : index
      scf.if %in {
        %p = scf.for %j = %l to %c64 step %c32 iter_args(%s = %zero) -> (f32) {
          %v = memref.load %a[%row, %j] : memref<6x64xf32>
          %n = arith.addf %s, %v : f32
          scf.yield %n : f32
        }
        %t = gpu.subgroup_reduce add %p uniform : (f32) -> f32
        %first = arith.cmpi eq, %l, %c0 : index
        scf.if %first {
          memref.store %t, %out[%row] : memref<6xf32>
        }
      }
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A single-thread kernel runs where it was launched.
// CHECK-LABEL: func.func @one_thread
// CHECK-NOT: gpu.launch
// CHECK: memref.load
// CHECK: memref.store
func.func @one_thread(%a: memref<8xf32>, %out: memref<f32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<8xf32>
    memref.store %v, %out[] : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// A guard that differs from lane to lane cannot hold a warp reduction.
func.func @lane_guard(%a: memref<64xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {
    %low = arith.cmpi ult, %l, %c16 : index
    // expected-error @+1 {{mt-emulate-gpu-kernels: a lane-dependent row guard}}
    scf.if %low {
      %v = memref.load %a[%l] : memref<64xf32>
      %t = gpu.subgroup_reduce add %v uniform : (f32) -> f32
      memref.store %t, %out[%l] : memref<32xf32>
    }
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A sum over clusters of 4 lanes (a quad, the lanes sharing a row of an
// MMA fragment): two butterfly levels, lane l with l ^ 1 then l ^ 2.
// CHECK-LABEL: func.func @quad_sum
// CHECK: arith.xori %{{.+}}, %c1{{(_[0-9]+)?}} : index
// CHECK: arith.addf
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT: arith.xori %{{.+}}, %[[C2]] : index
// CHECK: arith.addf
// CHECK-NOT: arith.xori
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: return
func.func @quad_sum(%a: memref<32xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {
    %v = memref.load %a[%l] : memref<32xf32>
    %t = gpu.subgroup_reduce add %v uniform cluster(size = 4) : (f32) -> f32
    memref.store %t, %out[%l] : memref<32xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A tensor-core product: the fragments wait in lane buffers; each lane's
// four D elements sum 16 products in ascending k, each A and B element read
// from the lane that holds it (the fragment layout).
// CHECK-LABEL: func.func @warp_mma
// CHECK-DAG: %[[AS:.+]] = memref.alloca() : memref<32xvector<8xbf16>>
// CHECK-DAG: %[[BS:.+]] = memref.alloca() : memref<32xvector<4xbf16>>
// CHECK-DAG: %[[DS:.+]] = memref.alloca() : memref<32xvector<4xf32>>
// CHECK: memref.store %{{.+}}, %[[BS]]
// CHECK: scf.for %[[L:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[D:.+]] = scf.for %[[E:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[DV:.+]] = %{{.+}}) -> (vector<4xf32>)
// CHECK: %[[C0:.+]] = vector.extract %[[DV]][%[[E]]] : f32 from vector<4xf32>
// CHECK: %[[S:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[C0]]) -> (f32)
// CHECK: %[[AV:.+]] = memref.load %[[AS]][%{{.+}}] : memref<32xvector<8xbf16>>
// CHECK: %[[A:.+]] = vector.extract %[[AV]][%{{.+}}] : bf16 from vector<8xbf16>
// CHECK: %[[AF:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK: %[[BV:.+]] = memref.load %[[BS]][%{{.+}}] : memref<32xvector<4xbf16>>
// CHECK: %[[BF:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK: %[[N:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: scf.yield %[[N]] : f32
// CHECK: vector.insert %[[S]], %[[DV]] [%[[E]]] : f32 into vector<4xf32>
// CHECK: memref.store %[[D]], %[[DS]][%[[L]]]
// CHECK: memref.load %[[DS]]
// CHECK-NOT: mt.warp_mma
// CHECK: return
func.func @warp_mma(%a: memref<32x8xbf16>, %b: memref<32x4xbf16>, %d: memref<32x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {
    %av = vector.load %a[%l, %c0] : memref<32x8xbf16>, vector<8xbf16>
    %bv = vector.load %b[%l, %c0] : memref<32x4xbf16>, vector<4xbf16>
    %dv = mt.warp_mma %av, %bv, %zero {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
    vector.store %dv, %d[%l, %c0] : memref<32x4xf32>, vector<4xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A tile loop around a product, with the same bound in every lane: one
// warp-level loop, its bound computed once for the warp; the accumulator
// waits in a lane buffer, stored by the lanes before the loop and again
// after each iteration's product.
// CHECK-LABEL: func.func @tile_loop
// CHECK: scf.for %[[W:.+]] = %{{.+}} to %{{.+}} step
// CHECK: memref.store %{{.+}}, %{{.+}} : memref<32xvector<4xbf16>>
// CHECK: }
// CHECK: %[[N:.+]] = arith.addi %[[W]], %{{.+}} : index
// CHECK: scf.for %[[L0:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: memref.store %{{.+}}, %[[ACC:.+]][%[[L0]]] : memref<32xvector<4xf32>>
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %[[N]] step
// CHECK-NOT: iter_args
// CHECK: scf.for %[[L1:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: memref.load %[[ACC]][%[[L1]]]
// CHECK: scf.for %[[L2:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: memref.store %{{.+}}, %[[ACC]][%[[L2]]]
// CHECK: scf.for %[[L3:.+]] = %{{.+}} to %c32{{[_0-9]*}} step
// CHECK: %[[D:.+]] = memref.load %[[ACC]][%[[L3]]]
// CHECK: vector.store %[[D]]
// CHECK-NOT: mt.warp_mma
func.func @tile_loop(%a: memref<32x8xbf16>, %b: memref<32x4xbf16>, %d: memref<32x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {
    %av = vector.load %a[%l, %c0] : memref<32x8xbf16>, vector<8xbf16>
    %bv = vector.load %b[%l, %c0] : memref<32x4xbf16>, vector<4xbf16>
    %c2 = arith.constant 2 : index
    %n = arith.addi %w, %c2 : index
    %dv = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
      %next = mt.warp_mma %av, %bv, %acc {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
      scf.yield %next : vector<4xf32>
    }
    vector.store %dv, %d[%l, %c0] : memref<32x4xf32>, vector<4xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A loop whose bound differs from lane to lane cannot hold a product.
func.func @lane_loop(%a: memref<32x8xbf16>, %b: memref<32x4xbf16>, %d: memref<32x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {
    %av = vector.load %a[%l, %c0] : memref<32x8xbf16>, vector<8xbf16>
    %bv = vector.load %b[%l, %c0] : memref<32x4xbf16>, vector<4xbf16>
    // expected-error @+1 {{mt-emulate-gpu-kernels: a lane-dependent row guard or loop bound}}
    %dv = scf.for %t = %c0 to %l step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
      %next = mt.warp_mma %av, %bv, %acc {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
      scf.yield %next : vector<4xf32>
    }
    vector.store %dv, %d[%l, %c0] : memref<32x4xf32>, vector<4xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A barrier runs the block's two warps together: one loop over its 64
// threads before the barrier and one after, the workgroup buffer a host
// buffer made once for the block.
// CHECK-LABEL: func.func @barrier
// CHECK: %[[SHARED:.+]] = memref.alloca() : memref<64xf32>
// CHECK: %[[C64:.+]] = arith.constant 64 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C64]] step
// CHECK: memref.store %{{.+}}, %[[SHARED]]
// CHECK: %[[C64B:.+]] = arith.constant 64 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C64B]] step
// CHECK: memref.load %[[SHARED]]
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @barrier(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %one = arith.constant 1.0 : f32
  %shared = memref.alloca() : memref<64xf32, #gpu.address_space<workgroup>>
  scf.parallel (%w, %l) = (%c0, %c0) to (%c2, %c32) step (%c1, %c1) {
    %wt = arith.muli %w, %c32 : index
    %t = arith.addi %wt, %l : index
    memref.store %one, %shared[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %other = arith.subi %c63, %t : index
    %x = memref.load %shared[%other] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%t] : memref<64xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A workgroup buffer belongs to the block, not to a thread.
func.func @thread_shared(%out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {
    // expected-error @+1 {{mt-emulate-gpu-kernels: a workgroup buffer made inside a warp loop}}
    %shared = memref.alloca() : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %one, %shared[%l] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %x = memref.load %shared[%l] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%l] : memref<32xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// The block's warps must be known to run them together.
func.func @barrier_warps(%out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  // expected-error @+1 {{mt-emulate-gpu-kernels: a block barrier among a number of warps not known at compile time}}
  scf.parallel (%w, %l) = (%c0, %c0) to (%n, %c32) step (%c1, %c1) {
    gpu.barrier
    memref.store %one, %out[%l] : memref<64xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}
