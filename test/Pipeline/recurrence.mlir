// A reversed LSTM layer end to end (docs/pipeline.md, "Recurrences"): the
// recurrence is a kernel of its own, `recurrence_block`. The expert gives a
// block 5 of the 10 batch rows (the most, up to 8, that divide the batch),
// splits the 256 units over clusters of 8 blocks (32 units each) and k
// into 8 slices (256 threads). Each step copies the rows' previous h into
// shared memory, sums h . weight for 5 rows x 4 gates per thread over its
// slice with the weights of 8 k loaded ahead, adds the slices' sums in
// shared memory, runs the cell and stores; a cluster barrier ends the step
// (laid out before the step's first block).
// Replaying the decisions gives the same module.
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST
// RUN: egg-translate --egg-to-ptx --egg-ptx-module=lstm_k0_kernel %t.mlir | FileCheck %s --check-prefix=PTX

// DECISIONS: "anchor": "egg.recurrence"
// DECISIONS-NEXT: "name": "lstm_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<recurrence_block>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [256], block = [5], cluster = 8>"

// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST: "grid": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 8

// PTX: .maxntid 256, 1, 1
// PTX: .reqnctapercluster 1, 1, 8
// PTX: .shared .align 16 .b8 {{.*}}[5120];
// PTX: .shared .align 16 .b8 {{.*}}[20480];
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: $L__BB0_[[DOT:[0-9]+]]:
// PTX-COUNT-4: ld.global.b32
// PTX-COUNT-5: ld.shared.v4.b32
// PTX: fma.rn.f32
// PTX: bra{{.*}}$L__BB0_[[DOT]];
// PTX-COUNT-20: st.shared.b32
// PTX: bar.sync 0;
// PTX: ex2.approx
// PTX: st.global.b32

func.func @lstm(%xg: tensor<16x10x1024xf32>, %w: tensor<256x1024xf32>, %b: tensor<1024xf32>, %h0: tensor<10x256xf32>, %c0: tensor<10x256xf32>) -> (tensor<16x10x256xf32>, tensor<10x256xf32>, tensor<10x256xf32>) {
  %s = tensor.empty() : tensor<16x10x256xf32>
  %h = tensor.empty() : tensor<10x256xf32>
  %c = tensor.empty() : tensor<10x256xf32>
  %r:3 = egg.recurrence ins(%xg, %w, %b, %h0, %c0 : tensor<16x10x1024xf32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<10x256xf32>, tensor<10x256xf32>) outs(%s, %h, %c : tensor<16x10x256xf32>, tensor<10x256xf32>, tensor<10x256xf32>) attributes {reverse} {
  ^bb0(%xi: f32, %xf: f32, %xg_: f32, %xo: f32, %hi: f32, %hf: f32, %hg: f32, %ho: f32, %hp: f32, %cp: f32):
    %one = arith.constant 1.0 : f32
    %ai = arith.addf %xi, %hi : f32
    %ni = arith.negf %ai : f32
    %ei = math.exp %ni : f32
    %di = arith.addf %one, %ei : f32
    %i = arith.divf %one, %di : f32
    %af = arith.addf %xf, %hf : f32
    %nf = arith.negf %af : f32
    %ef = math.exp %nf : f32
    %df = arith.addf %one, %ef : f32
    %f = arith.divf %one, %df : f32
    %ag = arith.addf %xg_, %hg : f32
    %g = math.tanh %ag : f32
    %ao = arith.addf %xo, %ho : f32
    %no = arith.negf %ao : f32
    %eo = math.exp %no : f32
    %do = arith.addf %one, %eo : f32
    %o = arith.divf %one, %do : f32
    %fc = arith.mulf %f, %cp : f32
    %ig = arith.mulf %i, %g : f32
    %c2 = arith.addf %fc, %ig : f32
    %tc = math.tanh %c2 : f32
    %h2 = arith.mulf %o, %tc : f32
    egg.yield %h2, %c2 : f32, f32
  } -> tensor<16x10x256xf32>, tensor<10x256xf32>, tensor<10x256xf32>
  return %r#0, %r#1, %r#2 : tensor<16x10x256xf32>, tensor<10x256xf32>, tensor<10x256xf32>
}
