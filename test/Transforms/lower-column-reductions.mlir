// RUN: egg-opt %s -split-input-file -egg-lower-column-reductions -verify-diagnostics | FileCheck %s

// A column mean (sum over rows, then a divide) as egg-map-to-gpu leaves it:
// blocks of 32 columns, threads [8, 64], vector 4. Stage 1: each thread
// loops over rows y + 64 t (t < 1, one row each here) with 16-byte loads, 4
// partials seeded with the neutral element; stage 2: the partials go to a [64][32] workgroup
// buffer, where rows y < s add rows y + s for s = 32, 16, ..., 1 (a barrier
// between rounds, none after the last, whose writes row 0 reads itself);
// the threads of row 0 then add the fill value, divide, and store. No linalg
// op or block temporary is left.
// CHECK-LABEL: func.func private @k
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<64x32xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[Y:.*]] = gpu.thread_id  y
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: arith.addi {{.*}}, %[[Y]]
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<64x32xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
// CHECK-COUNT-4: arith.addf
// CHECK: memref.store {{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: arith.cmpi ult, %[[Y]], %[[C32]]
// CHECK: scf.if
// CHECK: %[[OTHER:.*]] = arith.addi %[[Y]], %{{.*}}
// CHECK: %[[MINE:.*]] = memref.load %[[BUF]][%[[Y]],
// CHECK: %[[THEIRS:.*]] = memref.load %[[BUF]][%[[OTHER]],
// CHECK: %[[SUM:.*]] = arith.addf %[[MINE]], %[[THEIRS]]
// CHECK: memref.store %[[SUM]], %[[BUF]][%[[Y]],
// CHECK-COUNT-5: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.cmpi eq, %[[Y]]
// CHECK: scf.if
// CHECK-NOT: scf.for
// CHECK: memref.load %[[BUF]]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: memref.store
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x256xf32>, %arg1: memref<256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<reduce_two_stage>, egg.tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 6.400000e+01 : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c8, %arg9 = %c1, %arg10 = %c1) threads(%arg5, %arg6, %arg7) in (%arg11 = %c8, %arg12 = %c64, %arg13 = %c1) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg0[0, %0] [64, 32] [1, 1] : memref<64x256xf32> to memref<64x32xf32, strided<[256, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel"]} outs(%alloc : memref<32xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%subview : memref<64x32xf32, strided<[256, 1], offset: ?>>) outs(%alloc : memref<32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.addf %in, %out : f32
        linalg.yield %1 : f32
      }
      %subview_1 = memref.subview %arg1[%0] [32] [1] : memref<256xf32> to memref<32xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%alloc : memref<32xf32>) outs(%subview_1 : memref<32xf32, strided<[1], offset: ?>>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.divf %in, %cst_0 : f32
        linalg.yield %1 : f32
      }
      gpu.terminator
    }
    return
  }
}

// -----

// 1024 rows over 64 thread rows: 16 rows per thread, 8 per step of the
// loop with their 16-byte loads issued before the adds (128 bytes in flight
// per thread).
// CHECK-LABEL: func.func private @k_rows
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK-COUNT-8: vector.load {{.*}} : memref<1024x32xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
// CHECK: arith.addf
// CHECK-NOT: vector.load
// CHECK: scf.yield
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k_rows(%arg0: memref<1024x256xf32>, %arg1: memref<256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<reduce_two_stage>, egg.tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 6.400000e+01 : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c8, %arg9 = %c1, %arg10 = %c1) threads(%arg5, %arg6, %arg7) in (%arg11 = %c8, %arg12 = %c64, %arg13 = %c1) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg0[0, %0] [1024, 32] [1, 1] : memref<1024x256xf32> to memref<1024x32xf32, strided<[256, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel"]} outs(%alloc : memref<32xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%subview : memref<1024x32xf32, strided<[256, 1], offset: ?>>) outs(%alloc : memref<32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.addf %in, %out : f32
        linalg.yield %1 : f32
      }
      %subview_1 = memref.subview %arg1[%0] [32] [1] : memref<256xf32> to memref<32xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%alloc : memref<32xf32>) outs(%subview_1 : memref<32xf32, strided<[1], offset: ?>>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.divf %in, %cst_0 : f32
        linalg.yield %1 : f32
      }
      gpu.terminator
    }
    return
  }
}

// -----

// A reduction whose combiner has no neutral element cannot seed partials:
// a located error.
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x256xf32>, %arg1: memref<256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<reduce_two_stage>, egg.tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 6.400000e+01 : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c8, %arg9 = %c1, %arg10 = %c1) threads(%arg5, %arg6, %arg7) in (%arg11 = %c8, %arg12 = %c64, %arg13 = %c1) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg0[0, %0] [64, 32] [1, 1] : memref<64x256xf32> to memref<64x32xf32, strided<[256, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel"]} outs(%alloc : memref<32xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      // expected-error @+1 {{is not combined by one binary op with a neutral element: it cannot be reduced in two stages}}
      linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel"]} ins(%subview : memref<64x32xf32, strided<[256, 1], offset: ?>>) outs(%alloc : memref<32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.subf %in, %out : f32
        linalg.yield %1 : f32
      }
      %subview_1 = memref.subview %arg1[%0] [32] [1] : memref<256xf32> to memref<32xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%alloc : memref<32xf32>) outs(%subview_1 : memref<32xf32, strided<[1], offset: ?>>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.divf %in, %cst_0 : f32
        linalg.yield %1 : f32
      }
      gpu.terminator
    }
    return
  }
}
