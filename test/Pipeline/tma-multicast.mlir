// TMA multicast (docs/pipeline.md, "TMA multicast"): `cluster = 2` on a TMA
// product pairs the blocks of adjacent N tiles, which read the same rows
// of A, into a thread-block cluster. Each block copies half of the A tile's
// 128 rows (a 64-row box at row rank * 64) to both blocks' shared memory
// with one multicast copy; B stays per block. A stage's "empty" barrier
// counts both blocks' consumer warpgroups (4), each consumer arriving on
// its own block's and, through `mapa`, on the peer's; cluster barriers
// follow the barriers' initialisation and precede the end.
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/tma-multicast.json" -o %t.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// PTX-LABEL: .entry multicast_k0_kernel(
// PTX: .reqnctapercluster 2, 1, 1
// PTX: mov.b32 [[FOUR:%r[0-9]+]], 4;
// PTX: mbarrier.init.shared.b64 [__mbarrier_0], [[FOUR]];
// PTX: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// PTX: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// The producer: A's half-tile (row rank * 64 of the block's 128, stored
// rank * 64 rows of 128 bytes into the stage) to both blocks (mask 0b11),
// B's tile to its own. The producer / consumer test is read from the
// warp's first lane (else ptxas serialises every wgmma, warning C7520).
// PTX: shfl.sync.idx.b32
// PTX-DAG: shl.b32 {{%r[0-9]+}}, [[RANK]], 6;
// PTX-DAG: mul.wide.u32 {{%rd[0-9]+}}, [[RANK]], 8192;
// PTX: mov.b32 {{%r[0-9]+}}, 24576;
// PTX: mov.b16 [[MASK:%rs[0-9]+]], 3;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}], [[MASK]];
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// The consumers free a stage in both blocks.
// PTX: mbarrier.arrive.shared.b64
// PTX: mapa.shared::cluster.u64
// PTX: mbarrier.arrive.shared::cluster.b64
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;

// A's map reads boxes of 64 rows, B's of 64 K rows.
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST: "buffer": 0,
// MANIFEST: "grid": [
// MANIFEST-NEXT: 16,
// MANIFEST-NEXT: 8,
func.func @multicast(%a: tensor<1024x4096xbf16>, %b: tensor<4096x1024xbf16>) -> tensor<1024x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1024x4096xbf16>, tensor<4096x1024xbf16>) outs(%f : tensor<1024x1024xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  %e2 = tensor.empty() : tensor<1024x1024xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<1024x1024xf32>) outs(%e2 : tensor<1024x1024xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1024x1024xbf16>
  return %o : tensor<1024x1024xbf16>
}
