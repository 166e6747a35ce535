// RUN: egg-opt %s -split-input-file -egg-lower-staged-maps -verify-diagnostics | FileCheck %s
// RUN: egg-opt %s -split-input-file -egg-lower-staged-maps -verify-diagnostics | FileCheck %s --check-prefix=NOVEC

// out[i][j] = x[j][i] * y[i][j] as egg-map-to-gpu leaves it: 64x64 tiles,
// 256 threads, x staged. Stage 1 copies x's tile into a [64][65] workgroup
// buffer, eight loads per thread before their stores (consecutive threads on
// x's contiguous dimension); after the barrier, stage 2 reads x from the
// buffer (transposed indices) and y from global memory, eight elements at a
// time, multiplies and stores, consecutive threads on j. No linalg op is
// left.
// CHECK-LABEL: func.func private @k
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-COUNT-8: memref.load %{{.*}} : memref<64x64xf32, strided<[128, 1], offset: ?>>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: %[[J:.*]] = arith.remui
// CHECK: %[[I:.*]] = arith.divui
// CHECK: memref.load %[[BUF]][%[[J]], %[[I]]]
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<64x64xf32, strided<[64, 1], offset: ?>>
// CHECK-COUNT-7: memref.load %[[BUF]]
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK-NOT: linalg.generic
#map = affine_map<(d0) -> (d0 * 64)>
#mx = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func private @k(%x: memref<64x128xf32>, %y: memref<128x64xf32>, %out: memref<128x64xf32> {bufferize.result})
      attributes {egg.structure = #egg.structure<elementwise_flat>,
                  egg.tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1>} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map(%block_id_y)
      %xs = memref.subview %x[0, %0] [64, 64] [1, 1] : memref<64x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
      %ys = memref.subview %y[%0, 0] [64, 64] [1, 1] : memref<128x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
      %os = memref.subview %out[%0, 0] [64, 64] [1, 1] : memref<128x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [#mx, #id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%xs, %ys : memref<64x64xf32, strided<[128, 1], offset: ?>>, memref<64x64xf32, strided<[64, 1], offset: ?>>)
          outs(%os : memref<64x64xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %m = arith.mulf %a, %b : f32
        linalg.yield %m : f32
      }
      gpu.terminator
    }
    return
  }
}

// -----

// Two block ops: nothing to stage them as one map.
module {
  func.func private @two(%x: memref<64x64xf32>, %out: memref<64x64xf32>)
      attributes {egg.structure = #egg.structure<elementwise_flat>,
                  egg.tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1>} {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    // expected-error @+1 {{stages the inputs of one map per block, found 2 block ops}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      linalg.transpose ins(%x : memref<64x64xf32>) outs(%out : memref<64x64xf32>) permutation = [1, 0]
      linalg.transpose ins(%out : memref<64x64xf32>) outs(%x : memref<64x64xf32>) permutation = [1, 0]
      gpu.terminator
    }
    return
  }
}

// -----

// A bf16 transpose with runs of eight (vector = 8): stage 1 loads each run
// of x's contiguous dimension with one 16-byte vector load and stores its
// elements into the [64][65] buffer; stage 2 reads a run's eight elements
// across the buffer's rows and stores them with one 16-byte vector store.
// CHECK-LABEL: func.func private @runs
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<64x65xbf16, #gpu.address_space<workgroup>>)
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x64xbf16, strided<[128, 1], offset: ?>>, vector<8xbf16>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %[[BUF]]
// CHECK: vector.from_elements
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xbf16, strided<[128, 1], offset: ?>>, vector<8xbf16>
// CHECK-NOT: linalg.generic
#map2 = affine_map<(d0) -> (d0 * 64)>
#mx2 = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func private @runs(%x: memref<64x128xbf16>, %out: memref<128x128xbf16> {bufferize.result})
      attributes {egg.structure = #egg.structure<elementwise_flat>,
                  egg.tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1, vector = 8>} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map2(%block_id_y)
      %xs = memref.subview %x[0, %0] [64, 64] [1, 1] : memref<64x128xbf16> to memref<64x64xbf16, strided<[128, 1], offset: ?>>
      %os = memref.subview %out[%0, 0] [64, 64] [1, 1] : memref<128x128xbf16> to memref<64x64xbf16, strided<[128, 1], offset: ?>>
      linalg.generic {indexing_maps = [#mx2, #id2], iterator_types = ["parallel", "parallel"]}
          ins(%xs : memref<64x64xbf16, strided<[128, 1], offset: ?>>)
          outs(%os : memref<64x64xbf16, strided<[128, 1], offset: ?>>) {
      ^bb0(%a: bf16, %o: bf16):
        linalg.yield %a : bf16
      }
      gpu.terminator
    }
    return
  }
}

// -----

// With runs, an operand whose map moves more than its last index along the
// innermost loop (y[j][j]) is read element by element, not as a vector.
// CHECK-LABEL: func.func private @diagonal
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %{{.*}}[%[[J:.*]], %[[J]]] : memref<64x64xbf16, strided<[64, 1], offset: ?>>
// CHECK: vector.store %{{.*}} : memref<64x64xbf16, strided<[128, 1], offset: ?>>, vector<8xbf16>
// NOVEC-NOT: vector.load {{.*}}xbf16, strided<[64, 1]
#map3 = affine_map<(d0) -> (d0 * 64)>
#mx3 = affine_map<(d0, d1) -> (d1, d0)>
#dg3 = affine_map<(d0, d1) -> (d1, d1)>
#id3 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func private @diagonal(%x: memref<64x128xbf16>, %y: memref<128x64xbf16>, %z: memref<128x128xbf16>, %out: memref<128x128xbf16> {bufferize.result})
      attributes {egg.structure = #egg.structure<elementwise_flat>,
                  egg.tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1, vector = 8>} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map3(%block_id_y)
      %xs = memref.subview %x[0, %0] [64, 64] [1, 1] : memref<64x128xbf16> to memref<64x64xbf16, strided<[128, 1], offset: ?>>
      %ys = memref.subview %y[%0, 0] [64, 64] [1, 1] : memref<128x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
      %zs = memref.subview %z[%0, 0] [64, 64] [1, 1] : memref<128x128xbf16> to memref<64x64xbf16, strided<[128, 1], offset: ?>>
      %os = memref.subview %out[%0, 0] [64, 64] [1, 1] : memref<128x128xbf16> to memref<64x64xbf16, strided<[128, 1], offset: ?>>
      linalg.generic {indexing_maps = [#mx3, #dg3, #id3, #id3], iterator_types = ["parallel", "parallel"]}
          ins(%xs, %ys, %zs : memref<64x64xbf16, strided<[128, 1], offset: ?>>, memref<64x64xbf16, strided<[64, 1], offset: ?>>, memref<64x64xbf16, strided<[128, 1], offset: ?>>)
          outs(%os : memref<64x64xbf16, strided<[128, 1], offset: ?>>) {
      ^bb0(%a: bf16, %b: bf16, %c: bf16, %o: bf16):
        %m = arith.mulf %a, %b : bf16
        %n = arith.addf %m, %c : bf16
        linalg.yield %n : bf16
      }
      gpu.terminator
    }
    return
  }
}
