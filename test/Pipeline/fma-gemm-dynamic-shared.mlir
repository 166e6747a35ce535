// FMA tiles (f32) beyond 48 KB of shared memory: legal on a target with
// more (the H200's 227 KB), they live in the block's dynamic shared memory
// like tensor-core tiles. The expert takes split TF32 products for this
// product (docs/pipeline.md, "Split TF32 products"); egg-tune proposes FMA
// tiles with deeper pipelines. Replayed as 128x128 FMA tiles with four
// stages of 32: 4 x 32 x (128 + 4) x 4 bytes for each operand, 135168 in
// all, which the manifest asks the driver for.
// RUN: egg-opt %s --egg-pipeline="split-k=false record=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=EXPERT --input-file=%t.json
// RUN: sed -e 's/#egg.tuning<[^>]*>/#egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [32], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 4>/' %t.json > %t.deep.json
// RUN: egg-opt %s --egg-pipeline="split-k=false agent=replay decisions=%t.deep.json" -o %t.mlir
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// EXPERT: tf32_terms = 3, mma = wgmma>
// MANIFEST: "shared_bytes": 135168
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: cp.async.wait_group 2;
// PTX: fma.rn.f32
func.func @mm(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %m : tensor<1024x1024xf32>
}
