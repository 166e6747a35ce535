// RUN: egg-opt %s -split-input-file -egg-lower-column-reductions -verify-diagnostics | FileCheck %s

// A column mean (sum over rows, then a divide) as egg-map-to-gpu leaves it:
// blocks of 32 columns, threads [8, 64], vector 4. Stage 1: each thread
// loops over rows y + 64 t (t < 1, one row each here) with 16-byte loads, 4
// partials seeded with the neutral element; stage 2: the partials go to a [64][32] workgroup
// buffer, and after a barrier the threads of row 0 combine them starting
// from the fill value, divide, and store. No linalg op or block temporary
// is left.
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
// CHECK: scf.if
// CHECK: scf.for
// CHECK: memref.load %[[BUF]]
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
