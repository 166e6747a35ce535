// RUN: egg-opt %s -split-input-file -egg-map-to-gpu -verify-diagnostics | FileCheck %s

// The block loop becomes a gpu.launch with the tuning's block size; thread
// loops become thread ids; copies inside the kernel become linalg.copy.
// CHECK-LABEL: func.func private @k
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C32B:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32B]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]],
// CHECK: gpu.block_id  x
// CHECK: gpu.thread_id  x
// CHECK: linalg.copy
// CHECK-NOT: memref.copy
// CHECK-NOT: gpu.barrier
func.func private @k(%in: memref<1024xf32>, %out: memref<1024xf32>) attributes {egg.tuning = #egg.tuning<threads = [32], block = [32], thread = [1]>} {
  scf.forall (%b) in (32) {
    %o = affine.apply affine_map<(d0) -> (d0 * 32)>(%b)
    %sin = memref.subview %in[%o] [32] [1] : memref<1024xf32> to memref<32xf32, strided<[1], offset: ?>>
    %sout = memref.subview %out[%o] [32] [1] : memref<1024xf32> to memref<32xf32, strided<[1], offset: ?>>
    scf.forall (%t) in (32) {
      %a = memref.subview %sin[%t] [1] [1] : memref<32xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      %c = memref.subview %sout[%t] [1] [1] : memref<32xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      memref.copy %a, %c : memref<1xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

// A per-thread buffer too large for the stack is an error, never a
// device-side malloc.
func.func private @big(%out: memref<64xf32>) attributes {egg.tuning = #egg.tuning<threads = [64], block = [64], thread = [1]>} {
  scf.forall (%b) in (1) {
    scf.forall (%t) in (64) {
      // expected-error @+1 {{a kernel needs a per-thread buffer of type 'memref<4096xf32>' (too large, limit 8192 bytes): choose smaller thread tiles}}
      %tmp = memref.alloc() : memref<4096xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %tmp[%c0] : memref<4096xf32>
      memref.store %v, %out[%t] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

// A mapping the tuning cannot hold is reported at the kernel in the input,
// not inside the pass's own transform script.
// expected-error @+1 {{the number of required parallel resources (blocks or threads) 32 overflows the number of available resources 16}}
func.func private @too_few_threads(%in: memref<1024xf32>, %out: memref<1024xf32>) attributes {egg.tuning = #egg.tuning<threads = [16], block = [32], thread = [1]>} {
  scf.forall (%b) in (32) {
    %o = affine.apply affine_map<(d0) -> (d0 * 32)>(%b)
    %sin = memref.subview %in[%o] [32] [1] : memref<1024xf32> to memref<32xf32, strided<[1], offset: ?>>
    %sout = memref.subview %out[%o] [32] [1] : memref<1024xf32> to memref<32xf32, strided<[1], offset: ?>>
    scf.forall (%t) in (32) {
      %a = memref.subview %sin[%t] [1] [1] : memref<32xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      %c = memref.subview %sout[%t] [1] [1] : memref<32xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      memref.copy %a, %c : memref<1xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

// A block loop of more than three linear dimensions: every block on the
// grid's x (2 x 3 x 5 x 7 = 210), the loops' indices split back from it.
// CHECK-LABEL: func.func private @linear_grid
// CHECK-DAG: %[[C210:.*]] = arith.constant 210 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C210]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads
// CHECK: %[[BX:.*]] = gpu.block_id  x
// CHECK: affine.apply #{{.*}}()[%[[BX]]
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %thread_id_x]
func.func private @linear_grid(%in: memref<2x3x5x7x32xf32>, %out: memref<2x3x5x7x32xf32>) attributes {egg.tuning = #egg.tuning<threads = [32], block = [1, 1, 1, 1, 32], thread = [0, 0, 0, 0, 1]>} {
  scf.forall (%a, %b, %c, %d) in (2, 3, 5, 7) {
    scf.forall (%t) in (32) {
      %v = memref.load %in[%a, %b, %c, %d, %t] : memref<2x3x5x7x32xf32>
      memref.store %v, %out[%a, %b, %c, %d, %t] : memref<2x3x5x7x32xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<linear_dim_3>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  return
}

// -----

// A thread's tile of a partial block tile has a clipped size bounded by
// its thread tile (here 2): its per-thread buffer takes the bound on the
// stack, and its users a view of the clipped size.
// CHECK-LABEL: func.func private @clipped
// CHECK: %[[BUF:.*]] = memref.alloca(){{.*}}: memref<2xf32>
// CHECK: %[[VIEW:.*]] = memref.subview %[[BUF]][0] [%{{.*}}] [1] : memref<2xf32> to memref<?xf32, strided<[1]>>
// CHECK: memref.cast %[[VIEW]] : memref<?xf32, strided<[1]>> to memref<?xf32>
func.func private @clipped(%out: memref<100xf32>) attributes {egg.tuning = #egg.tuning<threads = [32], block = [64], thread = [2]>} {
  scf.forall (%b) in (2) {
    %o = affine.apply affine_map<(d0) -> (d0 * 64)>(%b)
    %n = affine.min affine_map<(d0) -> (-d0 + 100, 64)>(%o)
    scf.forall (%t) in (32) {
      %m = affine.min affine_map<(d0)[s0] -> (-(d0 * (s0 ceildiv 32)) + s0, s0 ceildiv 32)>(%t)[%n]
      %size = affine.max affine_map<(d0) -> (0, d0)>(%m)
      %tmp = memref.alloc(%size) : memref<?xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %tmp[%c0] : memref<?xf32>
      memref.store %v, %out[%t] : memref<100xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

// A per-thread buffer of a size with no constant bound is an error.
func.func private @unbounded(%out: memref<64xf32>, %n: index) attributes {egg.tuning = #egg.tuning<threads = [64], block = [64], thread = [1]>} {
  scf.forall (%b) in (1) {
    scf.forall (%t) in (64) {
      // expected-error @+1 {{a kernel needs a per-thread buffer of type 'memref<?xf32>' (unbounded size, limit 8192 bytes): choose smaller thread tiles}}
      %tmp = memref.alloc(%n) : memref<?xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %tmp[%c0] : memref<?xf32>
      memref.store %v, %out[%t] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}
