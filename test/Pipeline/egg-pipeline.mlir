// The whole compile path on one fusion chain: kernels, decisions, PTX.
// RUN: egg-opt %s --egg-pipeline="record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: FileCheck %s --check-prefix=BINARY --input-file=%t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// Replaying the recorded decisions gives byte-identical output.
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.decisions.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// The kernel function launches one kernel on the caller's buffers.
// CHECK-LABEL: func.func private @chain_k0
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func  @chain_k0_kernel::@chain_k0_kernel
// CHECK-NOT: memref.copy
// The result is written straight into the out-parameter: no temporaries.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: memref<64x128xf32>, %[[B:.*]]: memref<128xf32>, %[[OUT:.*]]: memref<64x128xf32> {bufferize.result})
// CHECK-NEXT: call @chain_k0(%[[X]], %[[B]], %[[OUT]])
// CHECK-NEXT: return
// BINARY: gpu.binary @chain_k0_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {O = 3 : i32}, assembly = "

// DECISIONS: "name": "chain_k0"
// DECISIONS: "structure": "#egg.structure<elementwise_flat>"
// DECISIONS: "tuning": "#egg.tuning<threads = [32, 8], block = [8, 128], thread = [1, 4], vector = 4>"

// PTX: // egg-ptx-module: chain_k0_kernel
// PTX: .target sm_90a
// PTX: .entry chain_k0_kernel(
// Each thread moves 16 bytes per access (vector = 4).
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32

// MANIFEST: "format": "egg-manifest"
// MANIFEST: "functions": [
// MANIFEST: "role": "input"
// MANIFEST: "role": "output"
// MANIFEST: "name": "chain"
// MANIFEST: "steps": [
// MANIFEST: "block": [
// MANIFEST-NEXT: 32,
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 1
// MANIFEST: "grid": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 1
// MANIFEST: "kind": "launch"
// MANIFEST: "modules": [
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @chain(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %s = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<64x128xf32>
  %r = linalg.exp ins(%s : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
