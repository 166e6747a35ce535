// FMA thread tiles of up to 128 accumulators are legal: a
// replayed 128 x 256 block over 16 x 16 threads of 8 x 16 each (the shape
// of cuBLAS's SIMT SGEMM tile, transposed) lowers with its 128
// accumulators carried through the K loop, 8 K steps of 128 FMAs per
// iteration. On the H200 such tiles compiled without spills (about 200
// registers) but ran 5-10% slower than the expert's 8 x 8.
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/fma-8x16.json record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// DECISIONS: "tuning": "#egg.tuning<threads = [16, 16], block = [128, 256], thread = [8, 16], reduction = [8], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 4>"

// PTX-LABEL: .entry wide_thread_tile_k0_kernel(
// PTX-COUNT-1024: fma.rn.f32
func.func @wide_thread_tile(%a: tensor<256x64xf32>, %b: tensor<64x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x512xf32>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
