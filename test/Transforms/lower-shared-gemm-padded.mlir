// RUN: egg-opt %s -split-input-file -egg-lower-shared-gemm -verify-diagnostics | FileCheck %s

// A zero pad fused into an NCHW convolution (egg-apply-schedule made it an
// egg.padded_view): the input's copies read the unpadded source at the
// view's position less the low padding, bounded by unsigned comparisons
// against the source's extents (H and W, 8), with a source size of 0
// outside (and past K: K = 72 leaves a partial last step of 16). A copy of
// 0 bytes reads nothing, so its address is left outside the source: no
// selects. No view of the border is left.
// CHECK-LABEL: func.func private @padded_k0
// CHECK-SAME: (%[[X:.*]]: memref<1x8x8x8xf32>, %[[W:.*]]: memref<32x8x3x3xf32>
// CHECK-NOT: egg.padded_view
// CHECK: gpu.launch
// CHECK: nvgpu.device_async_copy %[[W]][
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c1{{(_[0-9]+)?}} : index
// CHECK: %[[INH:.*]] = arith.cmpi ult, %[[H]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[WI:.*]] = arith.subi %{{.*}}, %c1{{(_[0-9]+)?}} : index
// CHECK: %[[INW:.*]] = arith.cmpi ult, %[[WI]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[IN:.*]] = arith.andi %[[INH]], %[[INW]] : i1
// CHECK-NOT: arith.select %[[IN]]
// CHECK: %[[READ:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
// CHECK: %[[N:.*]] = arith.select %[[READ]], %c1{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}} : index
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %{{.*}}, %[[H]], %[[WI]]], %{{.*}}[{{.*}}], 1, %[[N]] : memref<1x8x8x8xf32>
// CHECK-NOT: strided<[512, 64, 8, 1], offset: ?>
#map = affine_map<(d0) -> (d0 * 4)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func private @padded_k0(%arg0: memref<1x8x8x8xf32>, %arg1: memref<32x8x3x3xf32>, %arg2: memref<1x32x8x8xf32> {bufferize.result}) attributes {egg.structure = #egg.structure<conv_implicit_gemm>, egg.tuning = #egg.tuning<threads = [8, 8], block = [1, 32, 4, 8], thread = [1, 4, 1, 4], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = egg.padded_view %arg0 low [0, 0, 1, 1] high [0, 0, 1, 1] : memref<1x8x8x8xf32> to memref<1x8x10x10xf32, strided<[512, 64, 8, 1], offset: ?>>
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c8_0 = arith.constant 8 : index
    %c1_1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1_2 = arith.constant 1 : index
    %c1_3 = arith.constant 1 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c2, %arg10 = %c1_2, %arg11 = %c1_3) threads(%arg6, %arg7, %arg8) in (%arg12 = %c8, %arg13 = %c8_0, %arg14 = %c1_1) {
      %c0 = arith.constant 0 : index
      %c0_4 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %1 = affine.apply #map(%block_id_x)
      %subview = memref.subview %0[0, 0, %1, 0] [1, 8, 6, 10] [1, 1, 1, 1] : memref<1x8x10x10xf32, strided<[512, 64, 8, 1], offset: ?>> to memref<1x8x6x10xf32, strided<[512, 64, 8, 1], offset: ?>>
      %subview_5 = memref.subview %arg2[0, 0, %1, 0] [1, 32, 4, 8] [1, 1, 1, 1] : memref<1x32x8x8xf32> to memref<1x32x4x8xf32, strided<[2048, 64, 8, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%subview_5 : memref<1x32x4x8xf32, strided<[2048, 64, 8, 1], offset: ?>>) {
      ^bb0(%out: f32):
        linalg.yield %cst : f32
      }
      linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%subview, %arg1 : memref<1x8x6x10xf32, strided<[512, 64, 8, 1], offset: ?>>, memref<32x8x3x3xf32>) outs(%subview_5 : memref<1x32x4x8xf32, strided<[2048, 64, 8, 1], offset: ?>>) {
      ^bb0(%in: f32, %in_6: f32, %out: f32):
        %2 = arith.mulf %in, %in_6 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      gpu.terminator
    }
    return
  }
}

// -----

// Nothing but an implicit GEMM's copies can read a padded view's border.
func.func @other_reader(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{is read by an op other than an implicit GEMM's copies (egg-lower-shared-gemm): nothing else can read its border}}
  %v = egg.padded_view %x low [1] high [1] : memref<4xf32> to memref<6xf32, strided<[1], offset: ?>>
  %r = memref.load %v[%c0] : memref<6xf32, strided<[1], offset: ?>>
  return %r : f32
}
