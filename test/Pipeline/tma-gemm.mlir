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
// RUN: egg-translate --egg-to-ptx %t.mlir | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

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
