// RUN: egg-opt %s -egg-lower-shared-gemm | FileCheck %s

// Tensor cores: a 64x64x32 bf16 GEMM + bias with a warp tile (16x32 per
// warp, two warps per 32x32 block), K steps of 16, cp.async with two
// stages. A ([M][K], contiguous along K) keeps its layout in shared memory
// and is read with plain ldmatrix; B ([K][N]) keeps its layout too and is
// read with ldmatrix.trans. Each warp issues 1x4 mma.sync m16n8k16 per K
// step on bf16 pairs packed as i32, carrying 16 f32 accumulators per
// thread; the bias is added in registers and stored once.
// CHECK-LABEL: func.func private @mm_k0
// CHECK: gpu.launch
// CHECK-SAME: threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c1, {{.*}} = %c2)
// CHECK-SAME: workgroup(%[[A:.*]] : memref<2x32x24xbf16, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<2x16x40xbf16, #gpu.address_space<workgroup>>)
// CHECK: gpu.thread_id  z
// CHECK: nvgpu.device_async_copy {{.*}}, %[[A]]{{.*}}, 8
// CHECK: nvgpu.device_async_copy {{.*}}, %[[B]]{{.*}}, 8
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.ldmatrix %[[A]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvgpu.ldmatrix %[[B]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix %[[B]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-4: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-16: arith.addf
// Each thread's two adjacent columns are stored together (8-byte aligned).
// CHECK-COUNT-8: vector.store {{.*}} {alignment = 8 : i64} : memref<32x32xf32, strided<[64, 1], offset: ?>>, vector<2xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @mm_k0(%arg0: memref<64x32xbf16>, %arg1: memref<32x64xbf16>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [32, 1, 2], block = [32, 32], warp = [16, 32], reduction = [16], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 2, mma = mma_sync>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %c2, %arg11 = %c2, %arg12 = %c1) threads(%arg7, %arg8, %arg9) in (%arg13 = %c32, %arg14 = %c1, %arg15 = %c2) {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %0 = affine.apply #map(%block_id_x)
      %1 = affine.apply #map(%block_id_y)
      %subview = memref.subview %arg0[%1, 0] [32, 32] [1, 1] : memref<64x32xbf16> to memref<32x32xbf16, strided<[32, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %0] [32, 32] [1, 1] : memref<32x64xbf16> to memref<32x32xbf16, strided<[64, 1], offset: ?>>
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%alloc : memref<32x32xf32>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview, %subview_0 : memref<32x32xbf16, strided<[32, 1], offset: ?>>, memref<32x32xbf16, strided<[64, 1], offset: ?>>) outs(%alloc : memref<32x32xf32>) {
      ^bb0(%in: bf16, %in_3: bf16, %out: f32):
        %2 = arith.extf %in : bf16 to f32
        %3 = arith.extf %in_3 : bf16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      %subview_1 = memref.subview %arg2[%0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg3[%1, %0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel"]} ins(%alloc, %subview_1 : memref<32x32xf32>, memref<32xf32, strided<[1], offset: ?>>) outs(%subview_2 : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.addf %in, %in_3 : f32
        linalg.yield %2 : f32
      }
      gpu.terminator
    }
    return
  }
  func.func @mm(%arg0: memref<64x32xbf16>, %arg1: memref<32x64xbf16>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32> {bufferize.result}) {
    call @mm_k0(%arg0, %arg1, %arg2, %arg3) : (memref<64x32xbf16>, memref<32x64xbf16>, memref<64xf32>, memref<64x64xf32>) -> ()
    return
  }
}


