// Split TF32 products (docs/pipeline.md, "Split TF32 products") for an
// f32 NCHW convolution, from a decisions file (the expert keeps FMA tiles
// for convolutions, which ran faster on most of KernelBench's): the image
// is contiguous along neither N (the output positions) nor K, and the
// filter's 3 taps give no 16-byte pieces along K, so cp.async copies both
// an element at a time into the K-major tiles. No whole output rows fill
// wgmma's 64 positions of a 62-wide row, so the block's tile runs past the
// row's end: its copies there read nothing (a source size in a register)
// and its stores are guarded. K (27) is a partial tile of 32, zero-filled.
// RUN: egg-opt %s --egg-pipeline="record=%t.expert.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=EXPERT --input-file=%t.expert.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/split-tf32-conv.json record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// EXPERT: "tuning": "#egg.tuning<threads = [8, 16], block = [1, 64, 1, 32], thread = [1, 4, 1, 4]

// DECISIONS: "name": "odd_rows_k0"
// DECISIONS: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 1], block = [1, 64, 1, 64], warp = [1, 64, 1, 64], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>"

// PTX-LABEL: .entry odd_rows_k0_kernel
// PTX-DAG: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, %r{{[0-9]+}};
// PTX-DAG: and.b32 {{.*}}, -8192
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// PTX-DAG: setp.{{.*}}, 62;
// PTX-DAG: st.global.v2.b32

func.func @odd_rows(%x: tensor<2x3x64x64xf32>, %w: tensor<64x3x3x3xf32>) -> tensor<2x64x62x62xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x62x62xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x62x62xf32>) -> tensor<2x64x62x62xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x64x64xf32>, tensor<64x3x3x3xf32>) outs(%f : tensor<2x64x62x62xf32>) -> tensor<2x64x62x62xf32>
  return %r : tensor<2x64x62x62xf32>
}
