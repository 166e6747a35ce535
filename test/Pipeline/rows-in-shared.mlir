// A group norm's groups of 32768 f32 (128 KB, 8 steps of 16 bytes per
// thread of a 1024-thread block) end to end: the expert keeps 6 of each
// thread's 8 steps in shared memory (row_shared = 6, principle 8 of
// tuning.md), so that the registers allow two blocks per SM, and the PTX
// asks ptxas for them (.minnctapersm 2). The row is read from global memory
// once; replaying the decisions gives the same module.
// RUN: egg-opt %s --egg-pipeline="chip=sm_90a record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: egg-opt %s --egg-pipeline="chip=sm_90a agent=replay decisions=%t.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | grep -c "st.shared.v4.b32" | FileCheck %s --check-prefix=SLOTS
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// DECISIONS: "name": "group_norm_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<reduce_row_per_block>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [1024], block = [1, 0], vector = 4, row_shared = 6>"

// PTX-LABEL: .entry group_norm_k0_kernel
// PTX: .maxntid 1024, 1, 1
// PTX-NEXT: .minnctapersm 2
// The last of the 8 loads, and the last of the 6 slots.
// PTX: ld.global.v4.b32 {{.*}}+114688];
// PTX: st.shared.v4.b32 [%rd{{[0-9]+}}+81920]
// PTX-NOT: ld.global
// PTX: bar.sync
// PTX: ld.shared.v4.b32
// PTX-NOT: ld.global
// PTX: st.global.v4.b32
// SLOTS: {{^}}6{{$}}
// MANIFEST: "shared_bytes": 98304

#x = affine_map<(g, d) -> (g, d)>
#row = affine_map<(g, d) -> (g)>
func.func @group_norm(%x: tensor<16x32768xf32>) -> tensor<16x32768xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32768xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<16x32768xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %b : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x32768xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<16x32768xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16x32768xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %t = arith.mulf %d, %rs : f32
    linalg.yield %t : f32
  } -> tensor<16x32768xf32>
  return %y : tensor<16x32768xf32>
}
