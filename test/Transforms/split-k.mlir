// RUN: egg-opt %s -split-input-file -egg-attach-target -egg-split-k -egg-hardware-tuning | FileCheck %s

// A product split into 4 K slices with a bias and a narrowing epilogue:
// the partial products keep the kernel's name and tuning (the slice loop in
// front, tiled by 1) and read A and B through expand_shapes that make the
// slice a dimension; the sum kernel, elementwise with 16-byte accesses,
// adds the slices to the fill's value (the fill itself is gone), keeps the
// epilogue, takes the bias but no longer A and B, and is tuned by the
// expert.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear
// CHECK: %[[PARTIAL:.*]] = egg.kernel @linear_k0 ins(%{{.*}}, %{{.*}} : tensor<64x1024xbf16>, tensor<1024x256xbf16>) -> tensor<4x64x256xf32>
// CHECK-SAME: structure = #egg.structure<gemm_direct>
// CHECK-SAME: tuning = #egg.tuning<threads = [32, 2, 2], block = [1, 32, 32], warp = [1, 16, 16], reduction = [32], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 3, mma = mma_sync>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 4, 256] : tensor<64x1024xbf16> into tensor<64x4x256xbf16>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, 256, 256] : tensor<1024x256xbf16> into tensor<4x256x256xbf16>
// CHECK: linalg.fill {{.*}} -> tensor<4x64x256xf32>
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[P]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.extf
// CHECK: egg.yield %{{.*}} : tensor<4x64x256xf32>
// CHECK: egg.kernel @linear_k0_sum ins(%{{.*}}, %[[PARTIAL]] : tensor<256xf32>, tensor<4x64x256xf32>) -> tensor<64x256xf16>
// CHECK-SAME: egg.overlap_previous
// CHECK-SAME: structure = #egg.structure<elementwise_flat>
// CHECK-SAME: tuning = #egg.tuning<{{.*}}vector = 4>
// CHECK: ^bb0(%[[BIAS:.*]]: tensor<256xf32>, %[[S:.*]]: tensor<4x64x256xf32>):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.0
// CHECK-NOT: linalg.fill
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[S]][0, 0, 0] [1, 64, 256] [1, 1, 1] : tensor<4x64x256xf32> to tensor<64x256xf32>
// CHECK: %[[S3:.*]] = tensor.extract_slice %[[S]][3, 0, 0] [1, 64, 256] [1, 1, 1]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[S0]], %{{.*}}, %{{.*}}, %[[S3]] : {{.*}}) outs(%{{.*}} : tensor<64x256xf32>)
// CHECK: ^bb0(%[[P0:.*]]: f32, %[[P1:.*]]: f32, %[[P2:.*]]: f32, %[[P3:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[A0:.*]] = arith.addf %[[ZERO]], %[[P0]]
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[P1]]
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[P2]]
// CHECK-NEXT: %[[A3:.*]] = arith.addf %[[A2]], %[[P3]]
// CHECK-NEXT: linalg.yield %[[A3]]
// CHECK: linalg.generic {{.*}} ins(%[[R]], %[[BIAS]] : tensor<64x256xf32>, tensor<256xf32>)
// CHECK: arith.truncf
func.func @linear(%a: tensor<64x1024xbf16>, %b: tensor<1024x256xbf16>, %bias: tensor<256xf32>) -> tensor<64x256xf16> {
  %r = egg.kernel @linear_k0 ins(%a, %b, %bias : tensor<64x1024xbf16>, tensor<1024x256xbf16>, tensor<256xf32>) -> tensor<64x256xf16>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 4>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [32, 32], warp = [16, 16], reduction = [32], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 3, mma = mma_sync>} {
  ^bb0(%x: tensor<64x1024xbf16>, %y: tensor<1024x256xbf16>, %z: tensor<256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %p = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %y : tensor<64x1024xbf16>, tensor<1024x256xbf16>) outs(%f : tensor<64x256xf32>) {
    ^bb0(%u: bf16, %v: bf16, %acc: f32):
      %ue = arith.extf %u : bf16 to f32
      %ve = arith.extf %v : bf16 to f32
      %m = arith.mulf %ue, %ve : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<64x256xf32>
    %e2 = tensor.empty() : tensor<64x256xf16>
    %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%p, %z : tensor<64x256xf32>, tensor<256xf32>) outs(%e2 : tensor<64x256xf16>) {
    ^bb0(%u: f32, %w: f32, %out: f16):
      %s = arith.addf %u, %w : f32
      %t = arith.truncf %s : f32 to f16
      linalg.yield %t : f16
    } -> tensor<64x256xf16>
    egg.yield %o : tensor<64x256xf16>
  }
  return %r : tensor<64x256xf16>
}

// -----

// A product that accumulates into C (a named matmul, no fill): the slices
// are added to C in the sum kernel; the partial products start from zero.
// CHECK-LABEL: func.func @acc
// CHECK: %[[PARTIAL:.*]] = egg.kernel @acc_k0 ins(%{{.*}}, %{{.*}} : tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<2x128x128xf32>
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: egg.kernel @acc_k0_sum ins(%{{.*}}, %[[PARTIAL]] : tensor<128x128xf32>, tensor<2x128x128xf32>) -> tensor<128x128xf32>
// CHECK: ^bb0(%[[C:.*]]: tensor<128x128xf32>, %[[S:.*]]: tensor<2x128x128xf32>):
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]], %{{.*}}, %{{.*}} : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>)
// CHECK: ^bb0(%[[CV:.*]]: f32, %[[P0:.*]]: f32, %[[P1:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[A0:.*]] = arith.addf %[[CV]], %[[P0]]
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[P1]]
// CHECK: egg.yield %[[R]]
func.func @acc(%a: tensor<128x512xf32>, %b: tensor<512x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = egg.kernel @acc_k0 ins(%a, %b, %c : tensor<128x512xf32>, tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 2>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%x: tensor<128x512xf32>, %y: tensor<512x128xf32>, %z: tensor<128x128xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<128x512xf32>, tensor<512x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}

// -----

// A column mean split into 4 slices of its 8192 rows: the partial kernel is
// an unsplit column reduction over [4, 2048, 4096] (the slice loop in front,
// tiled by 1) into a 4 x 4096 f32 workspace; the sum kernel adds the slices
// and keeps the divide and the narrowing.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @col_mean
// CHECK: %[[PARTIAL:.*]] = egg.kernel @col_mean_k0 ins(%{{.*}} : tensor<8192x4096xbf16>) -> tensor<4x4096xf32>
// CHECK-SAME: structure = #egg.structure<reduce_two_stage>, tuning = #egg.tuning<threads = [8, 64], block = [1, 32], vector = 4>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, 2048, 4096] : tensor<8192x4096xbf16> into tensor<4x2048x4096xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: egg.kernel @col_mean_k0_sum ins(%[[PARTIAL]] : tensor<4x4096xf32>) -> tensor<4096xbf16>
// CHECK-SAME: egg.overlap_previous
// CHECK-SAME: structure = #egg.structure<elementwise_flat>
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [1, 4096] [1, 1] : tensor<4x4096xf32> to tensor<4096xf32>
// CHECK-COUNT-4: arith.addf
// CHECK: arith.divf
// CHECK: arith.truncf
func.func @col_mean(%a: tensor<8192x4096xbf16>) -> tensor<4096xbf16> {
  %r = egg.kernel @col_mean_k0 ins(%a : tensor<8192x4096xbf16>) -> tensor<4096xbf16>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 4>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
  ^bb0(%x: tensor<8192x4096xbf16>):
    %zero = arith.constant 0.0 : f32
    %count = arith.constant 8192.0 : f32
    %e = tensor.empty() : tensor<4096xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>],
                         iterator_types = ["reduction", "parallel"]}
        ins(%x : tensor<8192x4096xbf16>) outs(%f : tensor<4096xf32>) {
    ^bb0(%u: bf16, %acc: f32):
      %ue = arith.extf %u : bf16 to f32
      %t = arith.addf %ue, %acc : f32
      linalg.yield %t : f32
    } -> tensor<4096xf32>
    %e2 = tensor.empty() : tensor<4096xbf16>
    %m = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>],
                         iterator_types = ["parallel"]}
        ins(%s : tensor<4096xf32>) outs(%e2 : tensor<4096xbf16>) {
    ^bb0(%u: f32, %o: bf16):
      %d = arith.divf %u, %count : f32
      %t = arith.truncf %d : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<4096xbf16>
    egg.yield %m : tensor<4096xbf16>
  }
  return %r : tensor<4096xbf16>
}

// -----

// A batch of column reductions (the rows are the middle loop) that
// accumulate into a kernel input and read a broadcast input: the slice loop
// comes in front of the batch loop, only the input that reads the rows is
// expanded, the partial results start from zero and the sum kernel adds the
// slices to the input the reduction accumulated into.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @weighted_columns
// CHECK: %[[PARTIAL:.*]] = egg.kernel @weighted_columns_k0 ins(%{{.*}}, %{{.*}} : tensor<4x1024x256xf32>, tensor<256xf32>) -> tensor<4x4x256xf32>
// CHECK-SAME: tuning = #egg.tuning<threads = [8, 64], block = [1, 1, 32], vector = 4>
// CHECK: ^bb0(%[[IN:.*]]: tensor<4x1024x256xf32>, %[[WI:.*]]: tensor<256xf32>):
// CHECK: %[[E:.*]] = tensor.expand_shape %[[IN]] {{\[}}[0], [1, 2], [3]] output_shape [4, 4, 256, 256]
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[P]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[E]], %[[WI]] :
// CHECK: egg.kernel @weighted_columns_k0_sum ins(%{{.*}}, %[[PARTIAL]] : tensor<4x256xf32>, tensor<4x4x256xf32>) -> tensor<4x256xf32>
// CHECK: ^bb0(%[[C:.*]]: tensor<4x256xf32>, %{{.*}}: tensor<4x4x256xf32>):
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-COUNT-4: arith.addf
func.func @weighted_columns(%a: tensor<4x1024x256xf32>, %w: tensor<256xf32>, %c: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %r = egg.kernel @weighted_columns_k0 ins(%a, %w, %c : tensor<4x1024x256xf32>, tensor<256xf32>, tensor<4x256xf32>) -> tensor<4x256xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 4>,
                  tuning = #egg.tuning<threads = [8, 64], block = [1, 32], vector = 4>} {
  ^bb0(%x: tensor<4x1024x256xf32>, %y: tensor<256xf32>, %z: tensor<4x256xf32>):
    %s = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (c)>, affine_map<(b, r, c) -> (b, c)>],
                         iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%x, %y : tensor<4x1024x256xf32>, tensor<256xf32>) outs(%z : tensor<4x256xf32>) {
    ^bb0(%u: f32, %v: f32, %acc: f32):
      %m = arith.subf %u, %v : f32
      %t = arith.addf %acc, %m : f32
      linalg.yield %t : f32
    } -> tensor<4x256xf32>
    egg.yield %s : tensor<4x256xf32>
  }
  return %r : tensor<4x256xf32>
}
