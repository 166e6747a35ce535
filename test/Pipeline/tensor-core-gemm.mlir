// f16/bf16 matrix products take tensor cores by default (principle 9 of
// docs/principles/tuning.md): the expert gives them a warp tile, and the
// PTX holds mma.sync m16n8k16 fed by ldmatrix (plain where the tile is
// contiguous along K, transposing where it is contiguous along M or N) and
// 16-byte cp.async copies; products large enough to fill the SMs with
// 128x256 tiles take warpgroup MMA (wgmma) on sm_90a. Replaying the
// decisions gives the same module.
// RUN: egg-opt %s --egg-pipeline="split-k=false record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// RUN: egg-opt %s --egg-pipeline="split-k=false agent=replay decisions=%t.decisions.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// DECISIONS: "name": "at_f16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [32, {{[0-9]+}}, {{[0-9]+}}], block = [{{[0-9]+}}, {{[0-9]+}}], warp = [{{[0-9]+}}, {{[0-9]+}}], reduction = [32], shared = [0, 1], padding = 8, vector = 8, copy = cp_async
// DECISIONS: "name": "mm_bf16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [32, {{[0-9]+}}, {{[0-9]+}}], block = [{{[0-9]+}}, {{[0-9]+}}], warp = [{{[0-9]+}}, {{[0-9]+}}], reduction = [32], shared = [0, 1], padding = 8, vector = 8, copy = cp_async
// DECISIONS: "name": "wide_bf16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [32, 2, 2], block = [128, 128], warp = [64, 64], reduction = [32], shared = [0, 1], padding = 8, vector = 4, copy = cp_async, pipeline = 3, mma = mma_sync>"
// DECISIONS: "name": "wg_bf16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [128, 2, 1], block = [128, 256], warp = [128, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 4, mma = wgmma>"
// DECISIONS: "name": "wg_short_k_bf16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>"
// DECISIONS: "name": "oddk_f16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [128, 2, 1], block = [128, 256], warp = [128, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 4, mma = wgmma>"
// DECISIONS: "name": "skinny_bf16_k0"
// DECISIONS: "tuning": "#egg.tuning<threads = [32, 2, 2], block = [32, 32], warp = [16, 16], reduction = [128], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 4, mma = mma_sync>"

// A^T B in f16 with A stored [K][M] and B stored [N][K]: both fragments
// are loaded with the opposite transposition from the usual layout.
// PTX-LABEL: .entry at_f16_k0_kernel
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @at_f16(%at: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %b : tensor<128x64xf16>, tensor<64x128xf16>) outs(%f : tensor<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %c: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// The usual layout in bf16: A [M][K] plain, B [K][N] transposed.
// PTX-LABEL: .entry mm_bf16_k0_kernel
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @mm_bf16(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xbf16>, tensor<128x64xbf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// A product whose K (100) is no multiple of 8: rows of 200 bytes allow
// 8-byte copies, not the 16-byte pieces of wgmma's swizzled tiles. Hence
// mma.sync over 128x128 tiles, with four K steps of 32 (the last partial,
// zero-filled past K) in three stages that need 56832 bytes, more than the 48 KB a block may hold statically, so the
// tiles are views of the dynamic shared memory and the manifest asks for it.
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-LABEL: .entry wide_bf16_k0_kernel
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8, %r{{[0-9]+}};
// MANIFEST: "kernel": "wide_bf16_k0_kernel"
// MANIFEST: "shared_bytes": 56832
func.func @wide_bf16(%a: tensor<2048x100xbf16>, %b: tensor<100x2048xbf16>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2048x100xbf16>, tensor<100x2048xbf16>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// Large enough for 128x256 tiles on 128 of the 132 SMs, with K a multiple
// of 64 and long (4096): warpgroup MMA (principle 9). Two warpgroups, each
// 128x128 as two m64n128k16 instructions per K step of 16, B (N-contiguous)
// transposed by wgmma; four stages of 48 KB plus the 1 KB alignment slack,
// with one group of products in flight across the next K step. K is long
// enough for TMA copies from a producer warpgroup (docs/pipeline.md, "TMA
// copies"; 384 threads) instead of cp.async.
// PTX-LABEL: .entry wg_bf16_k0_kernel
// PTX: .maxntid 384, 1, 1
// PTX-NOT: cp.async.cg.shared.global
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: cp.async.cg.shared.global
// PTX: setmaxnreg.inc.sync.aligned.u32 224
// PTX: wgmma.fence.sync.aligned
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  1;
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned 1
// PTX: wgmma.wait_group.sync.aligned 0
// PTX-NOT: cp.async.cg.shared.global
// MANIFEST: "kernel": "wg_bf16_k0_kernel"
// MANIFEST: "shared_bytes": 197632
func.func @wg_bf16(%a: tensor<2048x4096xbf16>, %b: tensor<4096x2048xbf16>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2048x4096xbf16>, tensor<4096x2048xbf16>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// The same product with a short K (128): two blocks per SM pay more than the
// wide tile's rate (principle 9), so 128x128 tiles (two warpgroups of 64x128)
// at three stages of 32 KB, 97 KB with the alignment slack.
// PTX-LABEL: .entry wg_short_k_bf16_k0_kernel
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// MANIFEST: "kernel": "wg_short_k_bf16_k0_kernel"
// MANIFEST: "shared_bytes": 99328
func.func @wg_short_k_bf16(%a: tensor<2048x128xbf16>, %b: tensor<128x2048xbf16>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2048x128xbf16>, tensor<128x2048xbf16>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// K = 1000 is no multiple of the 64-deep K step: the last of 16 steps is
// partial, and copies past K zero-fill their piece (cp.async with a source
// size in a register, 16 or 0), so the product stays on warpgroup MMA.
// PTX-LABEL: .entry oddk_f16_k0_kernel
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
func.func @oddk_f16(%a: tensor<2048x1000xf16>, %b: tensor<1000x2048xf16>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2048x1000xf16>, tensor<1000x2048xf16>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// A skinny product (M = 32): 32x32 tiles give 128 blocks, one per SM, so
// each block's own copies must hide the memory latency. The K step deepens
// to 128 so that four stages keep 48 KB in flight (principle 9), in
// dynamic shared memory: four stages of A (32 x (128 + 8)) and B
// (128 x (32 + 8)) with padded rows, 75776 bytes.
// MANIFEST: "kernel": "skinny_bf16_k0_kernel"
// MANIFEST: "shared_bytes": 75776
func.func @skinny_bf16(%a: tensor<32x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<32x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x4096xbf16>, tensor<4096x4096xbf16>) outs(%f : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  return %r : tensor<32x4096xf32>
}
