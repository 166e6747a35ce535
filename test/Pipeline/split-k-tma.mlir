// A split product's partial products through TMA (docs/pipeline.md, "TMA
// copies"): 512 x 1024 x 8192 bf16 gives 64 tiles of 128 x 64 for 132
// SMs, so the expert splits K into 2 slices of 4096, and each slice's
// partial product (K of 4096) takes 128 x 64 tiles in a deep TMA pipeline
// (principle 9 of tuning.md). The partial products read A as [M, 2, 4096]
// and B as [2, 4096, N] through expand_shapes of the 2-D buffers: the
// tensor maps cover the 2-D buffers, and each box's K coordinate is the
// slice's start plus the K step's (slice * 4096 + k), which 64 | 4096
// keeps inside the slice.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir --mlir-print-ir-after=egg-lower-shared-gemm 2> %t.ir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// DECISIONS: "structure": "#egg.structure<gemm_split_k, split_k = 2>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 2], block = [128, 64], warp = [64, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 8, mma = wgmma>"

// The maps are built on the 2-D buffers, not on their expand_shapes.
// IR-LABEL: func.func private @split_tma_k0(
// IR: %[[A:.*]] = memref.cast %arg0 : memref<512x8192xbf16> to memref<*xbf16>
// IR: %[[MAPA:.*]] = nvgpu.tma.create.descriptor %[[A]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16
// IR: %[[B:.*]] = memref.cast %arg1 : memref<8192x1024xbf16> to memref<*xbf16>
// IR: %[[MAPB:.*]] = nvgpu.tma.create.descriptor %[[B]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16
// IR: gpu.launch
// IR: %[[SLICE:.*]] = gpu.block_id z
// The producer's loop over the slice's 64 K steps of 64 (kt * 64).
// IR: scf.for %[[KT:.*]] = %{{.*}} to %c64
// IR: %[[KSTEP:.*]] = arith.muli %[[KT]], %c64{{.*}} : index
// A's box at (m, slice * 4096 + kt * 64), innermost first (the additions
// of zero are the box's column and the view's offset along K).
// IR: %[[KA0:.*]] = arith.addi %[[KSTEP]], %c0{{.*}} : index
// IR: %[[S:.*]] = arith.addi %{{.*}}, %[[SLICE]] : index
// IR: %[[KA:.*]] = arith.addi %[[KA0]], %c0{{.*}} : index
// IR: %[[SK:.*]] = arith.muli %[[S]], %c4096{{.*}} : index
// IR: %[[K:.*]] = arith.addi %[[SK]], %[[KA]] : index
// IR: nvgpu.tma.async.load %[[MAPA]][%[[K]], %{{.*}}]
// B's boxes at (slice * 4096 + kt * 64, n).
// IR: %[[S2:.*]] = arith.addi %{{.*}}, %[[SLICE]] : index
// IR: %[[KB:.*]] = arith.addi %[[KSTEP]], %c0{{.*}} : index
// IR: %[[SK2:.*]] = arith.muli %[[S2]], %c4096{{.*}} : index
// IR: %[[K2:.*]] = arith.addi %[[SK2]], %[[KB]] : index
// IR: nvgpu.tma.async.load %[[MAPB]][%{{.*}}, %[[K2]]]
// IR-LABEL: func.func private @split_tma_k0_sum(

// PTX-LABEL: .entry split_tma_k0_kernel(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: cp.async.cg
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-LABEL: .entry split_tma_k0_sum_kernel(

// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "l2_promotion": "256B",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 512,
// MANIFEST-NEXT: 8192
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "buffer": 1,
// MANIFEST-NEXT: "l2_promotion": "256B",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 8192,
// MANIFEST-NEXT: 1024
func.func @split_tma(%a: tensor<512x8192xbf16>, %b: tensor<8192x1024xbf16>) -> tensor<512x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<512x8192xbf16>, tensor<8192x1024xbf16>) outs(%f : tensor<512x1024xf32>) {
  ^bb0(%x: bf16, %y: bf16, %c: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x1024xf32>
  %e2 = tensor.empty() : tensor<512x1024xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<512x1024xf32>) outs(%e2 : tensor<512x1024xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x1024xbf16>
  return %o : tensor<512x1024xbf16>
}
