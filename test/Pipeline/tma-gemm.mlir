// copy = tma (docs/pipeline.md, "TMA copies"): the expert's warpgroup-MMA
// tuning of an f16 product whose K (200) leaves a partial last K step,
// replayed with TMA copies instead of cp.async. The PTX holds a producer
// warpgroup's 2-D bulk tensor copies completing on "full" mbarriers once
// the consumers free a stage ("empty" ones), and no cp.async; the kernel
// takes
// the two tensor maps as pointer arguments, and the manifest says how to
// encode them (buffer, its 2-D shape, box [rows, columns], 128-byte
// swizzle).
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o /dev/null
// RUN: sed 's/copy = cp_async/copy = tma/' %t.json > %t.tma.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.tma.json" -o %t.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST
// Two and four computing warpgroups: the producer gives registers back.
// RUN: sed -e 's/copy = cp_async/copy = tma/' -e 's/threads = \[128, 1, 1\], block = \[64, 128\]/threads = [128, 1, 2], block = [128, 128]/' %t.json > %t.wg2.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.wg2.json" -o %t.wg2.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.wg2.mlir.ptx.d %t.wg2.mlir | xargs cat | FileCheck %s --check-prefix=WG2
// RUN: sed -e 's/copy = cp_async/copy = tma/' -e 's/threads = \[128, 1, 1\], block = \[64, 128\]/threads = [128, 2, 2], block = [128, 256]/' %t.json > %t.wg4.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.wg4.json" -o %t.wg4.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.wg4.mlir.ptx.d %t.wg4.mlir | xargs cat | FileCheck %s --check-prefix=WG4

// PTX-LABEL: .entry odd_k_tma_k0_kernel(
// PTX-NEXT: .param .u64 .ptr .align 1 odd_k_tma_k0_kernel_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 odd_k_tma_k0_kernel_param_1,
// PTX-NEXT: .param .u64 .ptr .align 1 odd_k_tma_k0_kernel_param_2
// One computing warpgroup (64x128) and the producer's.
// PTX: .maxntid 256, 1, 1
// PTX: mbarrier.init.shared.b64
// PTX: prefetch.tensormap
// PTX: fence.mbarrier_init.release.cluster
// PTX: bar.sync 0
// The producer (K = 200: four K steps of 64, unrolled).
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, {{\[}}[[FULL:__mbarrier(_0)?]]{{\]}}
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}, {{\[}}[[FULL]]{{\]}};
// The consumers free each stage but the last.
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.wait_group.sync.aligned 1
// PTX: mbarrier.arrive.shared.b64
// PTX: wgmma.wait_group.sync.aligned 0
// The epilogue goes through shared memory, the computing threads meeting
// at a named barrier (the producer's do not), and out in 16-byte stores.
// PTX: bar.sync 1, 128;
// PTX: st.shared.v2.b32
// PTX: bar.sync 1, 128;
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
// PTX-NOT: bar.sync 0
// PTX-NOT: cp.async.cg
// PTX-NOT: cp.async.wait_group

// setmaxnreg: ptxas caps a launch of 384 threads at 168 registers each,
// which the block owns (64512): the producer keeps 56, the 256 computing
// threads take 224. At 640 threads the cap is 96 (61440 owned): 104 each,
// not what the whole SM's registers would allow (an increase beyond the
// block's registers would wait forever).
// WG2: .maxntid 384, 1, 1
// WG2: setmaxnreg.dec.sync.aligned.u32 56;
// WG2: setmaxnreg.inc.sync.aligned.u32 224;
// WG4: .maxntid 640, 1, 1
// WG4: setmaxnreg.dec.sync.aligned.u32 56;
// WG4: setmaxnreg.inc.sync.aligned.u32 104;

// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 2
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "l2_promotion": "256B",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 1024,
// MANIFEST-NEXT: 200
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "swizzle": "128B"
// MANIFEST: "tensor_map": {
// MANIFEST: "buffer": 1,
func.func @odd_k_tma(%a: tensor<1024x200xf16>, %b: tensor<200x1024xf16>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x200xf16>, tensor<200x1024xf16>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
