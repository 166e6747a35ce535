// RUN: egg-opt %s -split-input-file -egg-attach-target -egg-form-kernels -egg-algorithm-structure | FileCheck %s

// The expert picks, per op class, the first structure of the legal set.

// CHECK-LABEL: func.func @elementwise
// CHECK: structure = #egg.structure<elementwise_flat>
func.func @elementwise(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @contraction
// CHECK: structure = #egg.structure<gemm_direct>
func.func @contraction(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A matrix-vector product has no N loop: its rows, read contiguously, are
// shared by a warp's lanes like a row sum's.
// CHECK-LABEL: func.func @matvec
// CHECK: structure = #egg.structure<reduce_row_per_warp>
func.func @matvec(%a: tensor<64x128xf32>, %x: tensor<128xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x128xf32>, tensor<128xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Batched, in bf16 with an f32 accumulator: the same.
// CHECK-LABEL: func.func @batch_matvec_bf16
// CHECK: structure = #egg.structure<reduce_row_per_warp>
func.func @batch_matvec_bf16(%a: tensor<4x64x128xbf16>, %x: tensor<4x128xbf16>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = linalg.batch_matvec ins(%a, %x : tensor<4x64x128xbf16>, tensor<4x128xbf16>) outs(%y : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// A linear layer over 8 rows (x @ W^T, both read along K): a skinny
// product whose 1.3 MB weight each row re-reads from L2. Its 2048 outputs
// are rows of K = 1280 shared by lanes, not GEMM tiles of 8 rows.
// CHECK-LABEL: func.func @skinny_linear
// CHECK: structure = #egg.structure<reduce_row_per_block>
func.func @skinny_linear(%x: tensor<8x1280xf32>, %w: tensor<256x1280xf32>, %y: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x1280xf32>, tensor<256x1280xf32>) outs(%y : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}

// -----

// The same over 8 rows of K = 25088 with a 411 MB weight (VGG's first
// classifier layer): each row would read it from DRAM again, so it stays
// a product.
// CHECK-LABEL: func.func @skinny_large_weight
// CHECK: structure = #egg.structure<gemm
func.func @skinny_large_weight(%x: tensor<8x25088xf32>, %w: tensor<4096x25088xf32>, %y: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x25088xf32>, tensor<4096x25088xf32>) outs(%y : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}

// -----

// A vector-matrix product reduces across rows of the matrix (its reduction
// is not the innermost loop): it stays a direct GEMM.
// CHECK-LABEL: func.func @vecmat
// CHECK: structure = #egg.structure<gemm_direct>
func.func @vecmat(%x: tensor<128xf32>, %a: tensor<128x64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.vecmat ins(%x, %a : tensor<128xf32>, tensor<128x64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @convolution
// CHECK: structure = #egg.structure<conv_direct>
func.func @convolution(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// Reductions along the innermost loop share each row among a warp's lanes.
// CHECK-LABEL: func.func @reduction
// CHECK: structure = #egg.structure<reduce_row_per_warp>
func.func @reduction(%x: tensor<8x64xf32>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.reduce ins(%x : tensor<8x64xf32>) outs(%acc : tensor<8xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK: structure = #egg.structure<reduce_row_per_warp>
func.func @softmax(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// Two reductions over the same rows make a normalisation.
// CHECK-LABEL: func.func @normalization
// CHECK: structure = #egg.structure<reduce_row_per_warp>
func.func @normalization(%x: tensor<8x64xf32>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  %s = linalg.reduce ins(%x : tensor<8x64xf32>) outs(%acc : tensor<8xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %s : tensor<8x64xf32>, tensor<8xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%a: f32, %m: f32, %b: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %b : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %q : tensor<8xf32>
}

// -----

// A reduction over a non-contiguous axis is reduced in two stages (partials
// per thread over strided rows, combined per block).
// CHECK-LABEL: func.func @column_reduction
// CHECK: structure = #egg.structure<reduce_two_stage>
func.func @column_reduction(%x: tensor<16x8xf32>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.reduce ins(%x : tensor<16x8xf32>) outs(%acc : tensor<8xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

// A column sum of 256 columns gives 8 blocks (4096 threads): its 65536
// rows split into the fewest slices that give 384 threads per SM, 16
// (principle 6 of structure.md). 4096 columns give 128 blocks of 512
// threads and stay whole, as do 1000 rows too few for two slices of 16
// rows per thread.
// CHECK-LABEL: func.func @narrow_columns
// CHECK: structure = #egg.structure<reduce_two_stage, split_k = 16>
// CHECK-LABEL: func.func @wide_columns
// CHECK: structure = #egg.structure<reduce_two_stage>
// CHECK-LABEL: func.func @few_rows
// CHECK: structure = #egg.structure<reduce_two_stage>
// A narrow column maximum splits alike (its slices combined by maximumf).
// CHECK-LABEL: func.func @narrow_max
// CHECK: structure = #egg.structure<reduce_two_stage, split_k = 16>
func.func @narrow_columns(%x: tensor<65536x256xf32>, %acc: tensor<256xf32>) -> tensor<256xf32> {
  %r = linalg.reduce ins(%x : tensor<65536x256xf32>) outs(%acc : tensor<256xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<256xf32>
}
func.func @wide_columns(%x: tensor<4096x4096xf32>, %acc: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.reduce ins(%x : tensor<4096x4096xf32>) outs(%acc : tensor<4096xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4096xf32>
}
func.func @few_rows(%x: tensor<1000x384xf32>, %acc: tensor<384xf32>) -> tensor<384xf32> {
  %r = linalg.reduce ins(%x : tensor<1000x384xf32>) outs(%acc : tensor<384xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<384xf32>
}
func.func @narrow_max(%x: tensor<65536x256xf32>, %acc: tensor<256xf32>) -> tensor<256xf32> {
  %r = linalg.reduce ins(%x : tensor<65536x256xf32>) outs(%acc : tensor<256xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.maximumf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<256xf32>
}

// -----

// Few long rows (fewer than 16 warps per SM): a block per row.
// CHECK-LABEL: func.func @long_rows
// CHECK: structure = #egg.structure<reduce_row_per_block>
func.func @long_rows(%x: tensor<64x65536xf32>, %acc: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.reduce ins(%x : tensor<64x65536xf32>) outs(%acc : tensor<64xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

//
