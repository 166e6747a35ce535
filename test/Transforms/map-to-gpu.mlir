// RUN: egg-opt %s -egg-map-to-gpu | FileCheck %s

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
