// A column mean split along its rows end to end (docs/pipeline.md,
// "Split-K"): 65536 x 256 bf16 gives 8 blocks of a column reduction, so the
// expert splits the rows into 16 slices (principle 6 of structure.md). Two
// kernels: partial column sums into a 16 x 256 f32 workspace, then their sum,
// the divide and the narrowing. Replaying the decisions gives the same
// module; split-k=false keeps the reduction whole.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST
// RUN: egg-opt %s --egg-pipeline="split-k=false record=%t.whole.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=WHOLE --input-file=%t.whole.json

// DECISIONS: "name": "col_mean_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<reduce_two_stage, split_k = 16>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [8, 64], block = [32], vector = 4>"
// DECISIONS-NOT: "name"
// WHOLE: "structure": "#egg.structure<reduce_two_stage>"

// The partial sums: 8-byte bf16 loads, the block's partials combined in
// shared memory, f32 stores into the workspace; the sum waits for them.
// PTX-LABEL: .entry col_mean_k0_kernel
// PTX: griddepcontrol.wait
// PTX: ld.global.v4.b16
// PTX: bar.sync
// PTX: st.global.b32
// PTX-LABEL: .entry col_mean_k0_sum_kernel
// PTX: griddepcontrol.wait
// PTX-COUNT-16: ld.global.v4.b32
// PTX: cvt.rn.bf16x2.f32

// MANIFEST: "bytes": 16384,
// MANIFEST-NEXT: "element_type": "f32",
// MANIFEST-NEXT: "id": 2,
// MANIFEST-NEXT: "role": "temp",
// MANIFEST: "kernel": "col_mean_k0_kernel"
// MANIFEST: "kernel": "col_mean_k0_sum_kernel"
// MANIFEST: "waits_for_previous": true
func.func @col_mean(%x: tensor<65536x256xbf16>) -> tensor<256xbf16> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 65536.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<65536x256xbf16>) outs(%acc : tensor<256xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %ae = arith.extf %a : bf16 to f32
    %s = arith.addf %ae, %b : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xbf16>
  %m = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>], iterator_types = ["parallel"]}
      ins(%r : tensor<256xf32>) outs(%e2 : tensor<256xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %d = arith.divf %a, %n : f32
    %t = arith.truncf %d : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256xbf16>
  return %m : tensor<256xbf16>
}
