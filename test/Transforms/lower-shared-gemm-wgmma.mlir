// RUN: egg-opt %s -split-input-file -egg-lower-shared-gemm | FileCheck %s

// Warpgroup MMA: a 128x256x128 bf16 GEMM with threads = [128, 1, 2] (two
// warpgroups along M), each computing a 64x128 piece with
// wgmma.mma_async m64n128k16; K steps of 64, cp.async with two stages.
// Both tiles live in dynamic shared memory (2 x (16 + 16) KB plus 1 KB to
// align the start to the 1024-byte swizzle atom), flat per stage, written
// in 16-byte pieces at XOR-swizzled offsets. A ([M][K]) is K-major: its
// descriptor has leading offset 16 and stride 1024 bytes; B ([K][N]) is
// N-major and transposed by wgmma (layout row): leading offset BK x 128 =
// 8192 bytes between its 64-wide columns. Every stage's copies are made
// visible to the async proxy before the barrier; each warpgroup waits for
// its products within the step, so the stage computed one step earlier is
// refilled right after the barrier, before this step's products.
// CHECK-LABEL: func.func private @mm_k0
// CHECK: gpu.launch
// CHECK-SAME: threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c2) dynamic_shared_memory_size %c66560_i32
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK: arith.ceildivui %[[PTR]], %c1024
// CHECK: %[[A:.*]] = memref.view %[[SMEM]]{{.*}} to memref<2x8192xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = memref.view %[[SMEM]]{{.*}} to memref<2x8192xbf16, #gpu.address_space<workgroup>>
// CHECK: arith.constant 4611686293305360384 : i64
// CHECK: arith.constant 4611686293338849280 : i64
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy {{.*}}, %[[A]]{{.*}}, 8 {bypassL1}
// CHECK: nvgpu.device_async_copy {{.*}}, %[[B]]{{.*}}, 8 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} -> (f32
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// 64 accumulators per thread, stored as 32 pairs of adjacent columns (the
// tile staged through shared memory would not fit the two stages).
// CHECK-COUNT-32: vector.store {{.*}} {alignment = 8 : i64} : memref<128x128xf32, strided<[256, 1], offset: ?>>, vector<2xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
#map = affine_map<(d0) -> (d0 * 128)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @mm_k0(%arg0: memref<128x128xbf16>, %arg1: memref<128x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 2, mma = wgmma>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c2, %arg10 = %c1, %arg11 = %c1) threads(%arg6, %arg7, %arg8) in (%arg12 = %c128, %arg13 = %c1, %arg14 = %c2) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg1[0, %0] [128, 128] [1, 1] : memref<128x256xbf16> to memref<128x128xbf16, strided<[256, 1], offset: ?>>
      %subview_0 = memref.subview %arg2[0, %0] [128, 128] [1, 1] : memref<128x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %subview : memref<128x128xbf16>, memref<128x128xbf16, strided<[256, 1], offset: ?>>) outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%in: bf16, %in_1: bf16, %out: f32):
        %1 = arith.extf %in : bf16 to f32
        %2 = arith.extf %in_1 : bf16 to f32
        %3 = arith.mulf %1, %2 : f32
        %4 = arith.addf %out, %3 : f32
        linalg.yield %4 : f32
      }
      gpu.terminator
    }
    return
  }
  func.func @mm(%arg0: memref<128x128xbf16>, %arg1: memref<128x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) {
    call @mm_k0(%arg0, %arg1, %arg2) : (memref<128x128xbf16>, memref<128x256xbf16>, memref<128x256xf32>) -> ()
    return
  }
}

// -----

// The same product with four stages (128 KB of tiles): the epilogue goes
// through them. After a barrier (other warpgroups may still read the
// stages), each thread writes its pairs into a 128 x (128 + 4) f32 tile
// (rows padded by 16 bytes), and after a second barrier stores 16 of its
// 16-byte pieces, a warp covering 512 contiguous bytes of a row. With two
// stages (64 KB, @mm_k0) the staged tile does not fit and the pairs go out
// directly.
// CHECK-LABEL: func.func private @mm_staged_k0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[STAGED:.*]] = memref.view %{{.*}} to memref<128x132xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-32: vector.store %{{.*}}, %[[STAGED]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x132xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NEXT: gpu.barrier
// CHECK: vector.load %[[STAGED]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<128x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %subview{{.*}} {alignment = 16 : i64} : memref<128x128xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
// CHECK-NOT: vector<2xf32>
// CHECK-LABEL: func.func @mm_staged(
#map = affine_map<(d0) -> (d0 * 128)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @mm_staged_k0(%arg0: memref<128x128xbf16>, %arg1: memref<128x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 4, mma = wgmma>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c2, %arg10 = %c1, %arg11 = %c1) threads(%arg6, %arg7, %arg8) in (%arg12 = %c128, %arg13 = %c1, %arg14 = %c2) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg1[0, %0] [128, 128] [1, 1] : memref<128x256xbf16> to memref<128x128xbf16, strided<[256, 1], offset: ?>>
      %subview_0 = memref.subview %arg2[0, %0] [128, 128] [1, 1] : memref<128x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %subview : memref<128x128xbf16>, memref<128x128xbf16, strided<[256, 1], offset: ?>>) outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%in: bf16, %in_1: bf16, %out: f32):
        %1 = arith.extf %in : bf16 to f32
        %2 = arith.extf %in_1 : bf16 to f32
        %3 = arith.mulf %1, %2 : f32
        %4 = arith.addf %out, %3 : f32
        linalg.yield %4 : f32
      }
      gpu.terminator
    }
    return
  }
  func.func @mm_staged(%arg0: memref<128x128xbf16>, %arg1: memref<128x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) {
    call @mm_staged_k0(%arg0, %arg1, %arg2) : (memref<128x128xbf16>, memref<128x256xbf16>, memref<128x256xf32>) -> ()
    return
  }
}

// -----

// K = 96 with K steps of 64: the second tile is partial. Copies past K read
// nothing (source size 0) from the clamped address 0 and zero-fill their
// 16-byte piece, which adds nothing to the products; the loop runs
// ceil(96 / 64) = 2 steps.
// CHECK-LABEL: func.func private @mm96_k0
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[K:.*]], %c96{{.*}} : index
// CHECK: %[[AT:.*]] = arith.select %[[IN]], %[[K]], %c0{{.*}} : index
// CHECK: %[[N:.*]] = arith.select %[[IN]], %c8{{.*}}, %c0{{.*}} : index
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %[[AT]]], %{{.*}}, 8, %[[N]] {bypassL1} : memref<128x96xbf16>
// CHECK: arith.cmpi ult, %{{.*}}, %c96
// CHECK: nvgpu.device_async_copy %subview[%{{.*}}, %{{.*}}], %{{.*}}, 8, %{{.*}} {bypassL1} : memref<96x128xbf16
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
#map = affine_map<(d0) -> (d0 * 128)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @mm96_k0(%arg0: memref<128x96xbf16>, %arg1: memref<96x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 2, mma = wgmma>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c2, %arg10 = %c1, %arg11 = %c1) threads(%arg6, %arg7, %arg8) in (%arg12 = %c128, %arg13 = %c1, %arg14 = %c2) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg1[0, %0] [96, 128] [1, 1] : memref<96x256xbf16> to memref<96x128xbf16, strided<[256, 1], offset: ?>>
      %subview_0 = memref.subview %arg2[0, %0] [128, 128] [1, 1] : memref<128x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %subview : memref<128x96xbf16>, memref<96x128xbf16, strided<[256, 1], offset: ?>>) outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%in: bf16, %in_1: bf16, %out: f32):
        %1 = arith.extf %in : bf16 to f32
        %2 = arith.extf %in_1 : bf16 to f32
        %3 = arith.mulf %1, %2 : f32
        %4 = arith.addf %out, %3 : f32
        linalg.yield %4 : f32
      }
      gpu.terminator
    }
    return
  }
  func.func @mm96(%arg0: memref<128x96xbf16>, %arg1: memref<96x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) {
    call @mm96_k0(%arg0, %arg1, %arg2) : (memref<128x96xbf16>, memref<96x256xbf16>, memref<128x256xf32>) -> ()
    return
  }
}

// -----

// The same product with copy = tma: before the launch, a tensor map of each
// whole operand (128-byte swizzle, zero fill): A in boxes of 128 rows x 64
// (its K-major tile), B in boxes of 64 K rows x 64 columns, two per tile.
// The block gains a producer warpgroup: thread 0 initialises a "full" and
// an "empty" mbarrier per stage; the producer's first thread issues each
// stage's boxes after announcing their bytes (2 x 16 KB) once the stage is
// free; the computing warpgroups wait on its "full" parity instead of
// cp.async groups (no proxy fence: TMA writes through the async proxy) and
// free it when its products complete.
// CHECK-LABEL: func.func private @mm_tma_k0
// CHECK: %[[CA:.*]] = memref.cast %arg0 : memref<128x128xbf16> to memref<*xbf16>
// CHECK: %[[MA:.*]] = nvgpu.tma.create.descriptor %[[CA]] box[%c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK: %[[CB:.*]] = memref.cast %arg1 : memref<128x256xbf16> to memref<*xbf16>
// CHECK: %[[MB:.*]] = nvgpu.tma.create.descriptor %[[CB]] box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16
// A 1-D block: two computing warpgroups, then the producer's.
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c384, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: scf.if
// CHECK: nvgpu.mbarrier.init %[[FULL]][%c0{{.*}}], %c1
// CHECK: nvgpu.mbarrier.init %[[EMPTY]][%c0{{.*}}], %c2
// CHECK: nvgpu.mbarrier.init %[[FULL]][%c1{{.*}}], %c1
// CHECK: nvgpu.mbarrier.init %[[EMPTY]][%c1{{.*}}], %c2
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// The producer warpgroup gives registers back; its first thread waits for
// a free stage, then fills it.
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %c256
// CHECK: scf.if %[[PRODUCER]]
// CHECK-NEXT: nvvm.setmaxregister decrease 56
// CHECK: scf.if
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c32768
// CHECK: nvgpu.tma.async.load %[[MA]][%{{.*}}, %{{.*}}], %[[FULL]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvgpu.tma.async.load %[[MB]]
// The consumers: wait for a full stage, free the previous one once its
// products complete, and store the epilogue; no block barrier.
// CHECK: %[[CONSUMER:.*]] = arith.cmpi ult, %[[TID]], %c256
// CHECK: scf.if %[[CONSUMER]]
// CHECK-NEXT: nvvm.setmaxregister increase 224
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.if
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY]]
// The last K step, peeled off the loop, waits for all its products.
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvgpu.mbarrier.arrive
// CHECK: vector.store
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvgpu.tma.async.load
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: nvvm.cp.async
#map = affine_map<(d0) -> (d0 * 128)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @mm_tma_k0(%arg0: memref<128x128xbf16>, %arg1: memref<128x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<gemm_direct>, egg.tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 2, mma = wgmma>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c2, %arg10 = %c1, %arg11 = %c1) threads(%arg6, %arg7, %arg8) in (%arg12 = %c128, %arg13 = %c1, %arg14 = %c2) {
      %block_id_x = gpu.block_id  x
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg1[0, %0] [128, 128] [1, 1] : memref<128x256xbf16> to memref<128x128xbf16, strided<[256, 1], offset: ?>>
      %subview_0 = memref.subview %arg2[0, %0] [128, 128] [1, 1] : memref<128x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %subview : memref<128x128xbf16>, memref<128x128xbf16, strided<[256, 1], offset: ?>>) outs(%subview_0 : memref<128x128xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%in: bf16, %in_1: bf16, %out: f32):
        %1 = arith.extf %in : bf16 to f32
        %2 = arith.extf %in_1 : bf16 to f32
        %3 = arith.mulf %1, %2 : f32
        %4 = arith.addf %out, %3 : f32
        linalg.yield %4 : f32
      }
      gpu.terminator
    }
    return
  }
  func.func @mm_tma(%arg0: memref<128x128xbf16>, %arg1: memref<128x256xbf16>, %arg2: memref<128x256xf32> {bufferize.result}) {
    call @mm_tma_k0(%arg0, %arg1, %arg2) : (memref<128x128xbf16>, memref<128x256xbf16>, memref<128x256xf32>) -> ()
    return
  }
}
