// RUN: egg-opt %s -split-input-file -egg-lower-shared-gemm -verify-diagnostics | FileCheck %s

// fragments_ahead = 1 on the 64x64x32 GEMM + bias + ReLU of
// lower-shared-gemm.mlir (4x4 per thread, K steps of 16, two stages): before
// the K loop, tile 0 lands (wait, barrier), tile 1 is issued and tile 0's
// first A and B values are loaded; the loop carries the 16 accumulators and
// the next step's 4 + 4 values, its K tile unrolled whole (no inner loop);
// each step loads the next step's values before its own multiply-adds, and
// the last step waits for the next tile, meets the barrier, issues the
// refill and loads the next tile's first values before its multiply-adds.
// CHECK-LABEL: func.func private @k
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[A:.*]] : memref<2x16x36xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<2x16x36xf32, #gpu.address_space<workgroup>>)
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.cp.async.commit.group
// CHECK: vector.load %[[A]]
// CHECK: vector.load %[[B]]
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %[[A]]
// CHECK-NOT: arith.mulf
// CHECK: vector.load %[[B]]
// CHECK: arith.mulf {{.*}} fastmath<contract>
// CHECK-NOT: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: arith.mulf
// CHECK: vector.load %[[A]]
// CHECK: vector.load %[[B]]
// CHECK: arith.mulf {{.*}} fastmath<contract>
// CHECK: scf.yield
// CHECK: arith.maximumf
// CHECK: vector.store
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %c2, %arg11 = %c2, %arg12 = %c1) threads(%arg7, %arg8, %arg9) in (%arg13 = %c8, %arg14 = %c8, %arg15 = %c1) {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map(%block_id_x)
      %1 = affine.apply #map(%block_id_y)
      %subview = memref.subview %arg0[%1, 0] [32, 32] [1, 1] : memref<64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %0] [32, 32] [1, 1] : memref<32x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%alloc : memref<32x32xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview, %subview_0 : memref<32x32xf32, strided<[32, 1], offset: ?>>, memref<32x32xf32, strided<[64, 1], offset: ?>>) outs(%alloc : memref<32x32xf32>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      %subview_1 = memref.subview %arg2[%0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg3[%1, %0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel"]} ins(%alloc, %subview_1 : memref<32x32xf32>, memref<32xf32, strided<[1], offset: ?>>) outs(%subview_2 : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.addf %in, %in_3 : f32
        %3 = arith.maximumf %2, %cst : f32
        linalg.yield %3 : f32
      }
      gpu.terminator
    }
    return
  }
}

// -----

// The lowering's own check, for IR that skipped checkLowerable: without a
// second stage nothing is in flight to overlap.
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, fragments_ahead = 1>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %c2, %arg11 = %c2, %arg12 = %c1) threads(%arg7, %arg8, %arg9) in (%arg13 = %c8, %arg14 = %c8, %arg15 = %c1) {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map(%block_id_x)
      %1 = affine.apply #map(%block_id_y)
      %subview = memref.subview %arg0[%1, 0] [32, 32] [1, 1] : memref<64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %0] [32, 32] [1, 1] : memref<32x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%alloc : memref<32x32xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      // expected-error @+1 {{fragments_ahead = 1 needs FMA thread tiles over cp.async copies in two stages or more}}
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview, %subview_0 : memref<32x32xf32, strided<[32, 1], offset: ?>>, memref<32x32xf32, strided<[64, 1], offset: ?>>) outs(%alloc : memref<32x32xf32>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      %subview_1 = memref.subview %arg2[%0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg3[%1, %0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel"]} ins(%alloc, %subview_1 : memref<32x32xf32>, memref<32xf32, strided<[1], offset: ?>>) outs(%subview_2 : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.addf %in, %in_3 : f32
        %3 = arith.maximumf %2, %cst : f32
        linalg.yield %3 : f32
      }
      gpu.terminator
    }
    return
  }
}
