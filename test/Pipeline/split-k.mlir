// Split-K end to end (docs/pipeline.md, "Split-K"): a 32 x 4096 x 4096 bf16
// product has 32 output tiles of 128 x 128 for 132 SMs, so the expert
// splits K into 8 slices of 512 (principle 9 of structure.md). Two kernels:
// the partial products on warpgroup MMA into an 8 x 32 x 4096 f32
// workspace (a temporary of the function), then their sum with 16-byte
// accesses. Replaying the decisions gives the same module; split-k=false
// keeps the product whole.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST
// RUN: egg-opt %s --egg-pipeline="split-k=false record=%t.whole.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=WHOLE --input-file=%t.whole.json

// The decisions stay on the one kernel the input formed.
// DECISIONS: "name": "skinny_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<gemm_split_k, split_k = 8>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 1], block = [64, 128], warp = [64, 128], reduction = [64]
// DECISIONS-NOT: "name"
// WHOLE: "structure": "#egg.structure<gemm_direct>"

// Each kernel first waits for the grid before it, then lets the next one
// be scheduled (egg-overlap-launches: the sum may launch while the partial
// products run).
// PTX-LABEL: .entry skinny_k0_kernel
// PTX: griddepcontrol.wait
// PTX-NEXT: griddepcontrol.launch_dependents
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-LABEL: .entry skinny_k0_sum_kernel
// PTX: griddepcontrol.wait
// PTX-NEXT: griddepcontrol.launch_dependents
// PTX-COUNT-8: ld.global.v4.b32
// PTX: cvt.rn.bf16x2.f32
// PTX: st.global.v2.b32

// The workspace, then the partial products writing it (buffer 3) and the
// sum reading it.
// MANIFEST: "bytes": 4194304,
// MANIFEST-NEXT: "element_type": "f32",
// MANIFEST-NEXT: "id": 3,
// MANIFEST-NEXT: "role": "temp",
// MANIFEST: "buffer": 3
// MANIFEST: "kernel": "skinny_k0_kernel"
// MANIFEST: "buffer": 3
// MANIFEST: "kernel": "skinny_k0_sum_kernel"
// MANIFEST: "waits_for_previous": true
func.func @skinny(%a: tensor<32x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<32x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %p = linalg.matmul ins(%a, %b : tensor<32x4096xbf16>, tensor<4096x4096xbf16>) outs(%f : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %e2 = tensor.empty() : tensor<32x4096xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<32x4096xf32>) outs(%e2 : tensor<32x4096xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x4096xbf16>
  return %r : tensor<32x4096xbf16>
}
