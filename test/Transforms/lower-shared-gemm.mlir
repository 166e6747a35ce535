// RUN: egg-opt %s -split-input-file -egg-lower-shared-gemm -verify-diagnostics | FileCheck %s

// A 64x64x32 GEMM + bias + ReLU as egg-map-to-gpu leaves it (block tiles of
// 32x32, whole ops per block), with cp.async and two stages: two workgroup
// tiles of [stages][BK][32 + padding], the prologue's copies, the K loop with
// its wait and barrier, then the refill of the stage computed one step
// earlier (before this step's products, so that it has the whole step to
// land), 16 accumulators per thread (4x4) carried by the loops, multiply-adds allowed to contract into FMAs, and the epilogue
// applied in registers and stored once, four adjacent columns at a time
// (16-byte stores). No linalg op or block temporary is left.
// CHECK-LABEL: func.func private @k
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[A:.*]] : memref<2x16x36xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<2x16x36xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.thread_id  x
// CHECK: gpu.thread_id  y
// A (contiguous along K) is stored transposed, one float per copy, with
// consecutive threads on consecutive elements of a row (thread t copies
// column t mod 16), so that a warp's copies cover two rows of A: 32 x 16
// floats are 8 copies for each of the 64 threads.
// CHECK: arith.remui %{{.*}}, %c16{{(_[0-9]+)?}} : index
// CHECK-COUNT-8: nvgpu.device_async_copy {{.*}}, %[[A]]{{.*}}, 1 :
// CHECK: nvgpu.device_async_copy {{.*}}, %[[B]]{{.*}}, 4
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} iter_args(%[[C00:[^ ]*]] = {{[^,]*}}, %[[C01:[^ ]*]] = {{[^,]*}}, %[[C02:[^ ]*]] = {{[^,]*}}, %[[C03:[^ ]*]] = {{[^,]*}}, %[[C10:[^ ]*]] = {{[^,]*}}, %[[C11:[^ ]*]] = {{[^,]*}}, %[[C12:[^ ]*]] = {{[^,]*}}, %[[C13:[^ ]*]] =
// CHECK: %[[AV:.*]] = vector.load %[[A]]{{.*}} {alignment = 16 : i64} : memref<2x16x36xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: %[[A0:.*]] = vector.extract %[[AV]][0]
// CHECK-NEXT: %[[A1:.*]] = vector.extract %[[AV]][1]
// CHECK: %[[BV:.*]] = vector.load %[[B]]
// CHECK-NEXT: %[[B0:.*]] = vector.extract %[[BV]][0]
// CHECK-NEXT: %[[B1:.*]] = vector.extract %[[BV]][1]
// CHECK-NEXT: %[[B2:.*]] = vector.extract %[[BV]][2]
// CHECK-NEXT: %[[B3:.*]] = vector.extract %[[BV]][3]
// The thread's 4x4 products in serpentine order: row 0 left to right, row 1
// right to left, so that each multiply-add shares an operand with the one
// before it (ptxas's operand reuse cache).
// CHECK-NEXT: %[[P00:.*]] = arith.mulf %[[A0]], %[[B0]] fastmath<contract>
// CHECK-NEXT: arith.addf %[[C00]], %[[P00]] fastmath<contract>
// CHECK-NEXT: %[[P01:.*]] = arith.mulf %[[A0]], %[[B1]] fastmath<contract>
// CHECK-NEXT: arith.addf %[[C01]], %[[P01]]
// CHECK-NEXT: %[[P02:.*]] = arith.mulf %[[A0]], %[[B2]]
// CHECK-NEXT: arith.addf %[[C02]], %[[P02]]
// CHECK-NEXT: %[[P03:.*]] = arith.mulf %[[A0]], %[[B3]]
// CHECK-NEXT: arith.addf %[[C03]], %[[P03]]
// CHECK-NEXT: %[[P13:.*]] = arith.mulf %[[A1]], %[[B3]]
// CHECK-NEXT: arith.addf %[[C13]], %[[P13]]
// CHECK-NEXT: %[[P12:.*]] = arith.mulf %[[A1]], %[[B2]]
// CHECK-NEXT: arith.addf %[[C12]], %[[P12]]
// CHECK-NEXT: %[[P11:.*]] = arith.mulf %[[A1]], %[[B1]]
// CHECK-NEXT: arith.addf %[[C11]], %[[P11]]
// CHECK-NEXT: %[[P10:.*]] = arith.mulf %[[A1]], %[[B0]]
// CHECK-NEXT: arith.addf %[[C10]], %[[P10]]
// CHECK: arith.maximumf
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<32x32xf32, strided<[64, 1], offset: ?>>, vector<4xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>} {
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

// Synchronous copies: 16-byte loads from global memory; B (contiguous along
// N both sides) is stored as a vector, A (contiguous along K, stored
// K-major) element by element. One stage, a barrier on each side of the
// copy.
// CHECK-LABEL: func.func private @k
// CHECK-SAME: vector = 4>
// CHECK: workgroup(%[[A:.*]] : memref<1x16x36xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<1x16x36xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<4xf32>
// CHECK-COUNT-4: memref.store {{.*}}, %[[A]]
// CHECK: vector.load {{.*}} : memref<32x32xf32, strided<[64, 1], offset: ?>>, vector<4xf32>
// CHECK: vector.store {{.*}}, %[[B]]
// CHECK: gpu.barrier
// CHECK-NOT: nvgpu
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4>} {
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

// Another op before the product: a located error, not a silent fallback.
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>} {
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
      %subview_2 = memref.subview %arg3[%1, %0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
      // expected-error @+1 {{precedes the block's reduction but is not its accumulator's fill}}
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%subview_2 : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
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

// 8x8 thread tiles of f32 (16x16 threads on a 128x128 block): a thread's
// eight rows (columns) are two runs of four, one in each half of the block
// tile (rows 4 ty and 64 + 4 ty), so that a warp's 16-byte shared-memory
// reads are contiguous; each run is one 16-byte load per K step, and the
// results go out as 16 stores of four adjacent columns.
// CHECK-LABEL: func.func private @split_k0
// CHECK: scf.for
// CHECK: %[[M0:.*]] = arith.muli %thread_id_y, %c4{{.*}} : index
// CHECK: %[[M1:.*]] = arith.addi %[[M0]], %c64{{.*}} : index
// CHECK: %[[A0:.*]] = arith.addi %[[M0]], %c0{{.*}} : index
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[A0]]] {alignment = 16 : i64} : memref<2x16x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[A1:.*]] = arith.addi %[[M1]], %c0{{.*}} : index
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[A1]]] {alignment = 16 : i64} : memref<2x16x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[N0:.*]] = arith.muli %thread_id_x, %c4{{.*}} : index
// CHECK: arith.addi %[[N0]], %c64{{.*}} : index
// CHECK-COUNT-16: vector.store {{.*}} {alignment = 16 : i64} : memref<128x128xf32>, vector<4xf32>
// CHECK-NOT: memref.store
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @split_k0(%arg0: memref<128x32xf32>, %arg1: memref<32x128xf32>, %arg2: memref<128x128xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c1, %arg10 = %c1, %arg11 = %c1) threads(%arg6, %arg7, %arg8) in (%arg12 = %c16, %arg13 = %c16, %arg14 = %c1) {
      linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%arg2 : memref<128x128xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<128x32xf32>, memref<32x128xf32>) outs(%arg2 : memref<128x128xf32>) {
      ^bb0(%in: f32, %in_0: f32, %out: f32):
        %0 = arith.mulf %in, %in_0 : f32
        %1 = arith.addf %out, %0 : f32
        linalg.yield %1 : f32
      }
      gpu.terminator
    }
    return
  }
  func.func @split(%arg0: memref<128x32xf32>, %arg1: memref<32x128xf32>, %arg2: memref<128x128xf32> {bufferize.result}) {
    call @split_k0(%arg0, %arg1, %arg2) : (memref<128x32xf32>, memref<32x128xf32>, memref<128x128xf32>) -> ()
    return
  }
}

// -----

// Partial tiles clip M and N only: a product whose K range inside the
// block is dynamic is a located error.
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @k(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg3: memref<64x64xf32> {bufferize.result}, %kk: index) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %c2, %arg11 = %c2, %arg12 = %c1) threads(%arg7, %arg8, %arg9) in (%arg13 = %c8, %arg14 = %c8, %arg15 = %c1) {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map(%block_id_x)
      %1 = affine.apply #map(%block_id_y)
      %subview = memref.subview %arg0[%1, 0] [32, %kk] [1, 1] : memref<64x32xf32> to memref<32x?xf32, strided<[32, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %0] [%kk, 32] [1, 1] : memref<32x64xf32> to memref<?x32xf32, strided<[64, 1], offset: ?>>
      %subview_2 = memref.subview %arg3[%1, %0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%subview_2 : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      // expected-error @+1 {{has a dynamic range on loop 2, which is neither an M nor an N loop}}
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview, %subview_0 : memref<32x?xf32, strided<[32, 1], offset: ?>>, memref<?x32xf32, strided<[64, 1], offset: ?>>) outs(%subview_2 : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      gpu.terminator
    }
    return
  }
}
