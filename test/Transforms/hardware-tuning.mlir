// RUN: egg-opt %s -split-input-file -egg-attach-target -egg-form-kernels -egg-algorithm-structure -egg-hardware-tuning | FileCheck %s
// The f32 products' FMA tiles, on the same chip without warpgroup MMA
// (sm_90; on sm_90a they are three TF32 products on split inputs):
// RUN: egg-opt %s -split-input-file -egg-attach-target="chip=sm_90" -egg-form-kernels -egg-algorithm-structure -egg-hardware-tuning | FileCheck %s --check-prefix=FMA

// The expert's stage-2 choices for the generic lowering (docs/principles/tuning.md).

// Elementwise: 256 threads on the innermost loop, one 16-byte vector each.
// CHECK-LABEL: func.func @elementwise
// CHECK: tuning = #egg.tuning<threads = [256], block = [1, 1024], thread = [1, 4], vector = 4>
func.func @elementwise(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %e = tensor.empty() : tensor<4096x4096xf32>
  %r = linalg.exp ins(%x : tensor<4096x4096xf32>) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

// -----

// An f32 product on the H200: three TF32 products on split inputs, B's
// 16-byte pieces copied along N and transposed by the split pass
// (docs/pipeline.md, "Split TF32 products").
// CHECK-LABEL: func.func @gemm
// CHECK: tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>
// FMA tiles through shared memory: a 128x128 output tile per block, 8x8
// per thread, cp.async with two stages; B is copied in 16-byte pieces
// along N, so the K steps are 32 deep and loaded a step ahead (68 KB of
// dynamic shared memory).
// FMA-LABEL: func.func @gemm
// FMA: tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [32], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>
func.func @gemm(%a: tensor<2048x512xf32>, %b: tensor<512x2048xf32>, %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2048x512xf32>, tensor<512x2048xf32>) outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// -----

// FMA tiles smaller than 128x128 only where they lower the busiest SM's
// work: 3000 x 1000 outputs are 192 tiles of 128x128 (two on some SMs) or
// 376 of 64x128 (at most three), which keep 8x8 per thread in 128 threads
// and two stages of 16-deep K steps (32-deep ones loaded ahead are for
// 128x128 tiles only).
// FMA-LABEL: func.func @gemm_uneven_waves
// FMA: tuning = #egg.tuning<threads = [16, 8], block = [64, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>
// CHECK-LABEL: func.func @gemm_uneven_waves
// CHECK: tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>
func.func @gemm_uneven_waves(%a: tensor<3000x1024xf32>, %b: tensor<1024x1000xf32>, %c: tensor<3000x1000xf32>) -> tensor<3000x1000xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<3000x1024xf32>, tensor<1024x1000xf32>) outs(%c : tensor<3000x1000xf32>) -> tensor<3000x1000xf32>
  return %r : tensor<3000x1000xf32>
}

// -----

// 128 tiles of 128x128 for 132 SMs: the few idle SMs do not call for
// 128x64 tiles, two on most SMs.
// FMA-LABEL: func.func @gemm_most_sms
// FMA: tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [32], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>
// CHECK-LABEL: func.func @gemm_most_sms
// CHECK: tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>
func.func @gemm_most_sms(%a: tensor<1024x512xf32>, %b: tensor<512x2048xf32>, %c: tensor<1024x2048xf32>) -> tensor<1024x2048xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1024x512xf32>, tensor<512x2048xf32>) outs(%c : tensor<1024x2048xf32>) -> tensor<1024x2048xf32>
  return %r : tensor<1024x2048xf32>
}

// -----

// Small problems shrink the output tile to give every SM a block (32x32, the
// smallest, with 4x4 per thread); three stages fit.
// CHECK-LABEL: func.func @small_gemm
// CHECK: tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>
func.func @small_gemm(%a: tensor<1024x64xf32>, %b: tensor<64x256xf32>, %c: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1024x64xf32>, tensor<64x256xf32>) outs(%c : tensor<1024x256xf32>) -> tensor<1024x256xf32>
  return %r : tensor<1024x256xf32>
}

// -----

// A batched product whose M and N (500, 129) no shared-memory tile divides
// takes partial last tiles through shared memory, 32 x 32 so that its 2 x
// 16 x 5 blocks fill the SMs (128 x 128 tiles would make 16). Before
// partial tiles it kept direct tiles of 50 x 43 outputs, where 2 x 1 per
// thread once gave 1075 threads, over the CUDA limit.
// CHECK-LABEL: func.func @odd_batched_gemm
// CHECK: tuning = #egg.tuning<threads = [8, 8], block = [1, 32, 32], thread = [1, 4, 4], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>
func.func @odd_batched_gemm(%a: tensor<2x500x512xf32>, %b: tensor<2x512x129xf32>, %c: tensor<2x500x129xf32>) -> tensor<2x500x129xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x500x512xf32>, tensor<2x512x129xf32>) outs(%c : tensor<2x500x129xf32>) -> tensor<2x500x129xf32>
  return %r : tensor<2x500x129xf32>
}

// -----

// Softmax rows stay whole (the reduced loop is never tiled): a warp per
// row, four per block, 16-byte accesses along the row.
// CHECK-LABEL: func.func @softmax
// CHECK: tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 4>
func.func @softmax(%x: tensor<8192x1024xf32>) -> tensor<8192x1024xf32> {
  %e = tensor.empty() : tensor<8192x1024xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<8192x1024xf32>) outs(%e : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  return %r : tensor<8192x1024xf32>
}

// -----

// A plain reduction of many rows of 4096: a block per row (more loads in
// flight than a warp per row gives) of at least 256 threads.
// CHECK-LABEL: func.func @row_sum_4096
// CHECK: structure = #egg.structure<reduce_row_per_block>
// CHECK-SAME: tuning = #egg.tuning<threads = [256], block = [1], vector = 8>
func.func @row_sum_4096(%x: tensor<8192x4096xbf16>, %acc: tensor<8192xf32>) -> tensor<8192xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8192x4096xbf16>) outs(%acc : tensor<8192xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.addf %e, %b : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}

// -----

// Many shorter rows (1500 elements) of a plain reduction: a warp per row.
// CHECK-LABEL: func.func @row_sum_1500
// CHECK: structure = #egg.structure<reduce_row_per_warp>
// CHECK-SAME: tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 4>
func.func @row_sum_1500(%x: tensor<6000x1500xf32>, %acc: tensor<6000xf32>) -> tensor<6000xf32> {
  %r = linalg.reduce ins(%x : tensor<6000x1500xf32>) outs(%acc : tensor<6000xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<6000xf32>
}

// -----

// Rows of 4096: a block per row, four 16-byte vectors per thread (held in
// registers across the passes).
// CHECK-LABEL: func.func @softmax_4096
// CHECK: structure = #egg.structure<reduce_row_per_block>
// CHECK-SAME: tuning = #egg.tuning<threads = [256], block = [1], vector = 4>
func.func @softmax_4096(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %e = tensor.empty() : tensor<4096x4096xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4096x4096xf32>) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

// -----

// Rows shorter than a warp's vectors share a warp: 5 vectors of 4 per row
// would take 4 lanes with two steps each (8 rows per warp), the second with
// one lane of four busy; single elements let the 4 lanes cover the row in 5
// whole steps. Eight warps per block.
// CHECK-LABEL: func.func @short_rows
// CHECK: tuning = #egg.tuning<threads = [256], block = [64], warp = [8]>
func.func @short_rows(%x: tensor<65536x20xf32>) -> tensor<65536x20xf32> {
  %e = tensor.empty() : tensor<65536x20xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<65536x20xf32>) outs(%e : tensor<65536x20xf32>) -> tensor<65536x20xf32>
  return %r : tensor<65536x20xf32>
}

// -----

// 100 short rows: 8 rows per warp do not divide them, 4 do; 5 warps per
// block (the largest divisor of the 25 warps up to 8). No access width lets
// 8 lanes cover 20 elements in whole steps, so the vector stays.
// CHECK-LABEL: func.func @short_rows_100
// CHECK: tuning = #egg.tuning<threads = [160], block = [20], warp = [4], vector = 4>
func.func @short_rows_100(%x: tensor<100x20xf32>) -> tensor<100x20xf32> {
  %e = tensor.empty() : tensor<100x20xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<100x20xf32>) outs(%e : tensor<100x20xf32>) -> tensor<100x20xf32>
  return %r : tensor<100x20xf32>
}

// -----

// A transposed operand is not contiguous along the innermost loop: it is
// staged through shared memory in 64x64 tiles (tuning principle 11), rows
// padded by one element (65 words apart: 32 banks for a column).
// CHECK-LABEL: func.func @transpose
// CHECK: tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1>
func.func @transpose(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %e = tensor.empty() : tensor<4096x4096xf32>
  %r = linalg.transpose ins(%x : tensor<4096x4096xf32>) outs(%e : tensor<4096x4096xf32>) permutation = [1, 0]
  return %r : tensor<4096x4096xf32>
}

// -----

// Batched bf16: the batch loop takes tiles of 1; runs of eight bf16 (16-byte
// global accesses), rows padded by one element (an odd number of 16-bit
// elements: stage 2's reads across the runs hit 32 different banks).
// CHECK-LABEL: func.func @batched_transpose_bf16
// CHECK: tuning = #egg.tuning<threads = [256], block = [1, 64, 64], shared = [0], padding = 1, vector = 8>
func.func @batched_transpose_bf16(%x: tensor<8x1024x512xbf16>) -> tensor<8x512x1024xbf16> {
  %e = tensor.empty() : tensor<8x512x1024xbf16>
  %r = linalg.transpose ins(%x : tensor<8x1024x512xbf16>) outs(%e : tensor<8x512x1024xbf16>) permutation = [0, 2, 1]
  return %r : tensor<8x512x1024xbf16>
}

// -----

// Tiles of 32 where 64 does not divide the loops.
// CHECK-LABEL: func.func @transpose_96
// CHECK: tuning = #egg.tuning<threads = [256], block = [32, 32], shared = [0], padding = 1>
func.func @transpose_96(%x: tensor<96x160xf32>) -> tensor<160x96xf32> {
  %e = tensor.empty() : tensor<160x96xf32>
  %r = linalg.transpose ins(%x : tensor<96x160xf32>) outs(%e : tensor<160x96xf32>) permutation = [1, 0]
  return %r : tensor<160x96xf32>
}

// -----

// Loops that 32 does not divide keep the unstaged map with scalar accesses.
// CHECK-LABEL: func.func @transpose_odd
// CHECK: tuning = #egg.tuning<threads = [{{[0-9]+}}, {{[0-9]+}}], block = [{{[0-9]+}}, {{[0-9]+}}], thread = [1, 1]>
func.func @transpose_odd(%x: tensor<100x4096xf32>) -> tensor<4096x100xf32> {
  %e = tensor.empty() : tensor<4096x100xf32>
  %r = linalg.transpose ins(%x : tensor<100x4096xf32>) outs(%e : tensor<4096x100xf32>) permutation = [1, 0]
  return %r : tensor<4096x100xf32>
}

// -----

// f16: 8 elements make 16 bytes.
// CHECK-LABEL: func.func @half
// CHECK: tuning = #egg.tuning<threads = [256], block = [1, 2048], thread = [1, 8], vector = 8>
func.func @half(%x: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %e = tensor.empty() : tensor<4096x4096xf16>
  %r = linalg.exp ins(%x : tensor<4096x4096xf16>) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}

// -----

// A block per long row: about two 16-byte accesses per thread, up to 1024
// threads.
// CHECK-LABEL: func.func @long_rows
// CHECK: tuning = #egg.tuning<threads = [1024], block = [1], vector = 4>
func.func @long_rows(%x: tensor<64x65536xf32>, %acc: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.reduce ins(%x : tensor<64x65536xf32>) outs(%acc : tensor<64xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

// A column reduction (reduce_two_stage): 16-byte loads, 8 threads along the
// columns (4096 / 32 = 128 blocks, as near two per SM as 8 allows) and 64
// rows in flight.
// CHECK-LABEL: func.func @column_max
// CHECK: tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>
func.func @column_max(%x: tensor<1024x4096xf32>, %acc: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.reduce ins(%x : tensor<1024x4096xf32>) outs(%acc : tensor<4096xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4096xf32>
}

// -----

// A bf16 row summed in f32, and a bf16 matrix-vector product: 16-byte
// accesses of the bf16 rows (vector 8), four rows (warps) per block.
// CHECK-LABEL: func.func @row_sum_bf16
// CHECK: tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 8>
func.func @row_sum_bf16(%x: tensor<4096x1024xbf16>, %acc: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x1024xbf16>) outs(%acc : tensor<4096xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.addf %e, %b : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// CHECK-LABEL: func.func @matvec_bf16
// CHECK: structure = #egg.structure<reduce_row_per_warp>, tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 8>
func.func @matvec_bf16(%a: tensor<4096x2048xbf16>, %x: tensor<2048xbf16>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<4096x2048xbf16>, tensor<2048xbf16>) outs(%y : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// A channels-last pad (H and W padded, C not) takes 16-byte vectors of
// channels; its fourth loop takes tiles of 1 and C, whole, is left untiled.
// CHECK-LABEL: func.func @channels_last_pad
// CHECK: tuning = #egg.tuning<threads = [8, 22], block = [1, 1, 22, 64], thread = [1, 1, 1, 8], vector = 8>
func.func @channels_last_pad(%x: tensor<16x64x64x64xf16>) -> tensor<16x66x66x64xf16> {
  %zero = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f16
  } : tensor<16x64x64x64xf16> to tensor<16x66x66x64xf16>
  return %p : tensor<16x66x66x64xf16>
}

// -----

// Eight channels: one vector spans C, so C's tile is whole too and is left
// untiled with the batch loop's; H and W take the threads (x along W).
// CHECK-LABEL: func.func @narrow_channels_last_pad
// CHECK: tuning = #egg.tuning<threads = [14, 12], block = [1, 12, 14, 8], thread = [1, 1, 1, 8], vector = 8>
func.func @narrow_channels_last_pad(%x: tensor<2x10x12x8xf16>) -> tensor<2x12x14x8xf16> {
  %zero = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f16
  } : tensor<2x10x12x8xf16> to tensor<2x12x14x8xf16>
  return %p : tensor<2x12x14x8xf16>
}

// -----

// Sixteen rows of bf16 (a decode step's tokens): below every tile, so one
// partial 32-row tile holds them on mma.sync, with deep K steps (one block
// per 32 columns); before partial tiles, direct FMA tiles.
// CHECK-LABEL: func.func @skinny_m16
// CHECK: tuning = #egg.tuning<threads = [32, 2, 2], block = [32, 32], warp = [16, 16], reduction = [128], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 4, mma = mma_sync>
func.func @skinny_m16(%a: tensor<16x4096xbf16>, %b: tensor<4096x4096xbf16>, %c: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<16x4096xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}

// -----

// An FCHW weight transposed to FHWC: the 3x3 window's loops give their
// thread places to the 128 filters (beside the innermost 64 channels); the
// window's column loop takes the grid, a block per index.
// CHECK-LABEL: func.func @weight_to_fhwc
// CHECK: tuning = #egg.tuning<threads = [32, 3, 2], block = [2, 3, 1, 32], thread = [1, 1, 0, 1]>
func.func @weight_to_fhwc(%w: tensor<128x64x3x3xf16>) -> tensor<128x3x3x64xf16> {
  %e = tensor.empty() : tensor<128x3x3x64xf16>
  %r = linalg.transpose ins(%w : tensor<128x64x3x3xf16>) outs(%e : tensor<128x3x3x64xf16>) permutation = [0, 2, 3, 1]
  return %r : tensor<128x3x3x64xf16>
}

// -----

// A 3-D convolution: an implicit GEMM whose block tile leaves four loops
// to the grid (n, d and h of the output positions, and the filters), which
// a linear block index takes (tuning.md, principle 6).
// CHECK-LABEL: func.func @conv3d
// CHECK: structure = #egg.structure<conv_implicit_gemm>, tuning = #egg.tuning<threads = [16, 8], block = [1, 64, 1, 4, 32], thread = [1, 8, 1, 1, 8], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>
func.func @conv3d(%x: tensor<16x16x18x34x34xf32>, %w: tensor<256x16x3x3x3xf32>) -> tensor<16x256x16x32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256x16x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x256x16x32x32xf32>) -> tensor<16x256x16x32x32xf32>
  %r = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<16x16x18x34x34xf32>, tensor<256x16x3x3x3xf32>) outs(%f : tensor<16x256x16x32x32xf32>) -> tensor<16x256x16x32x32xf32>
  return %r : tensor<16x256x16x32x32xf32>
}

// -----

// A 3-D convolution to 62-wide output rows: a thread tile along a row
// covers 1, 2, 31 or 62 positions, so the block takes 4 whole rows and
// each thread 8 filters x 2 positions of each row (row thread tiles,
// tuning.md, principle 9).
// CHECK-LABEL: func.func @conv3d_odd_rows
// CHECK: tuning = #egg.tuning<threads = [31, 8], block = [1, 64, 1, 4, 62], thread = [1, 8, 1, 4, 2]
func.func @conv3d_odd_rows(%x: tensor<16x3x64x64x64xf32>, %w: tensor<64x3x3x3x3xf32>) -> tensor<16x64x62x62x62xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64x62x62x62xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x64x62x62x62xf32>) -> tensor<16x64x62x62x62xf32>
  %r = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<16x3x64x64x64xf32>, tensor<64x3x3x3x3xf32>) outs(%f : tensor<16x64x62x62x62xf32>) -> tensor<16x64x62x62x62xf32>
  return %r : tensor<16x64x62x62x62xf32>
}

// -----

// The same rows with 16 filters: 8 filters per thread would leave the
// block fewer than four warps (one per scheduler), so each thread takes
// 4 filters x 4 rows x 2 positions (124 threads: four warps).
// CHECK-LABEL: func.func @conv3d_odd_rows_few_filters
// CHECK: tuning = #egg.tuning<threads = [31, 4], block = [1, 16, 1, 4, 62], thread = [1, 4, 1, 4, 2]
func.func @conv3d_odd_rows_few_filters(%x: tensor<16x3x64x64x64xf32>, %w: tensor<16x3x3x3x3xf32>) -> tensor<16x16x62x62x62xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16x62x62x62xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x16x62x62x62xf32>) -> tensor<16x16x62x62x62xf32>
  %r = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<16x3x64x64x64xf32>, tensor<16x3x3x3x3xf32>) outs(%f : tensor<16x16x62x62x62xf32>) -> tensor<16x16x62x62x62xf32>
  return %r : tensor<16x16x62x62x62xf32>
}

// -----

// Rows of a prime length (65537): no divisor from a warp up takes the
// threads, so the innermost loop gets partial last tiles of 256 threads
// with scalar accesses, rather than consecutive threads a row apart.
// CHECK-LABEL: func.func @prime_rows
// CHECK: tuning = #egg.tuning<threads = [256, 2], block = [2, 256], thread = [1, 1]>
func.func @prime_rows(%x: tensor<128x65537xf32>) -> tensor<128x65537xf32> {
  %e = tensor.empty() : tensor<128x65537xf32>
  %r = linalg.exp ins(%x : tensor<128x65537xf32>) outs(%e : tensor<128x65537xf32>) -> tensor<128x65537xf32>
  return %r : tensor<128x65537xf32>
}

// -----

// A column sum over 4095 columns (no power-of-two divisor): blocks of 63
// columns, the largest divisor up to 64, so that each block's unaligned
// row segments share few sectors with its neighbours' (tuning.md,
// principle 5).
// CHECK-LABEL: func.func @odd_columns
// CHECK: structure = #egg.structure<reduce_two_stage>, tuning = #egg.tuning<threads = [63, 8], block = [1, 63]>
func.func @odd_columns(%x: tensor<128x4096x4095xf32>) -> tensor<128x4095xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x4095xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x4095xf32>) -> tensor<128x4095xf32>
  %r = linalg.reduce ins(%x : tensor<128x4096x4095xf32>) outs(%f : tensor<128x4095xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<128x4095xf32>
}

// -----

// A 3x3 stride-1 max pool: neighbouring output rows share two of their
// three input rows, so each thread takes a run of output rows (the largest
// divisor of 64 up to 8) whose loads it shares in registers; the grid
// still fills every SM's thread slots.
// CHECK-LABEL: func.func @overlapping_windows
// CHECK: structure = #egg.structure<conv_direct>, tuning = #egg.tuning<threads = [64, 8], block = [1, 1, 64, 64], thread = [0, 1, 8, 1]>
func.func @overlapping_windows(%x: tensor<32x32x66x66xf32>) -> tensor<32x32x64x64xf32> {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<32x32x64x64xf32>
  %f = linalg.fill ins(%low : f32) outs(%e : tensor<32x32x64x64xf32>) -> tensor<32x32x64x64xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<32x32x66x66xf32>, tensor<3x3xf32>) outs(%f : tensor<32x32x64x64xf32>) -> tensor<32x32x64x64xf32>
  return %r : tensor<32x32x64x64xf32>
}

// -----

// Windows of stride 2 share one tap of three between neighbours: one
// output per thread.
// CHECK-LABEL: func.func @disjoint_windows
// CHECK: structure = #egg.structure<conv_direct>, tuning = #egg.tuning<{{.*}}thread = [0, 1, 1, 1]>
func.func @disjoint_windows(%x: tensor<32x32x129x129xf32>) -> tensor<32x32x64x64xf32> {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<32x32x64x64xf32>
  %f = linalg.fill ins(%low : f32) outs(%e : tensor<32x32x64x64xf32>) -> tensor<32x32x64x64xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<32x32x129x129xf32>, tensor<3x3xf32>) outs(%f : tensor<32x32x64x64xf32>) -> tensor<32x32x64x64xf32>
  return %r : tensor<32x32x64x64xf32>
}

// -----

// The same pool on a small image: runs of rows would leave SMs without
// threads, so one output per thread.
// CHECK-LABEL: func.func @overlapping_windows_small
// CHECK: structure = #egg.structure<conv_direct>, tuning = #egg.tuning<{{.*}}thread = [0, 1, 1, 1]>
func.func @overlapping_windows_small(%x: tensor<2x32x66x66xf32>) -> tensor<2x32x64x64xf32> {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x32x64x64xf32>
  %f = linalg.fill ins(%low : f32) outs(%e : tensor<2x32x64x64xf32>) -> tensor<2x32x64x64xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x32x66x66xf32>, tensor<3x3xf32>) outs(%f : tensor<2x32x64x64xf32>) -> tensor<2x32x64x64xf32>
  return %r : tensor<2x32x64x64xf32>
}

// -----

// Runs of 7 rows on 511-wide rows (7 x 73): 73 threads would be left along
// the row, so the row takes 511 threads instead.
// CHECK-LABEL: func.func @overlapping_windows_odd
// CHECK: structure = #egg.structure<conv_direct>, tuning = #egg.tuning<threads = [511], block = [1, 1, 7, 511], thread = [0, 1, 7, 1]>
func.func @overlapping_windows_odd(%x: tensor<8x64x514x514xf32>) -> tensor<8x64x511x511xf32> {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x64x511x511xf32>
  %f = linalg.fill ins(%low : f32) outs(%e : tensor<8x64x511x511xf32>) -> tensor<8x64x511x511xf32>
  %w = tensor.empty() : tensor<4x4xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x64x514x514xf32>, tensor<4x4xf32>) outs(%f : tensor<8x64x511x511xf32>) -> tensor<8x64x511x511xf32>
  return %r : tensor<8x64x511x511xf32>
}
