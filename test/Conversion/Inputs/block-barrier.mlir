// A block of 2 warps (64 threads) on the CPU through mt-emulate-gpu-kernels
// (mt-emulate-block-barrier.test): thread t stores 10 t into a workgroup
// buffer, the block waits at a barrier, and thread t reads thread 63 - t's
// value (the other warp's) and sums it over its quad. Without the barrier
// run across warps, warp 0 would read what warp 1 has not stored yet.
func.func @block(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %ten = arith.constant 10.0 : f32
  scf.parallel (%b) = (%c0) to (%c1) step (%c1) {
    %shared = memref.alloca() : memref<64xf32, #gpu.address_space<workgroup>>
    scf.parallel (%w, %l) = (%c0, %c0) to (%c2, %c32) step (%c1, %c1) {
      %wt = arith.muli %w, %c32 : index
      %t = arith.addi %wt, %l : index
      %ti = arith.index_cast %t : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      %v = arith.mulf %tf, %ten : f32
      memref.store %v, %shared[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %other = arith.subi %c63, %t : index
      %x = memref.load %shared[%other] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = gpu.subgroup_reduce add %x uniform cluster(size = 4) : (f32) -> f32
      memref.store %s, %out[%t] : memref<64xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

func.func @main() {
  %out = memref.alloca() : memref<64xf32>
  call @block(%out) : (memref<64xf32>) -> ()
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c60 = arith.constant 60 : index
  %c63 = arith.constant 63 : index
  %a = memref.load %out[%c0] : memref<64xf32>
  %b = memref.load %out[%c4] : memref<64xf32>
  %c = memref.load %out[%c60] : memref<64xf32>
  %d = memref.load %out[%c63] : memref<64xf32>
  vector.print %a : f32
  vector.print %b : f32
  vector.print %c : f32
  vector.print %d : f32
  return
}
