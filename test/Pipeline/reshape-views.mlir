// Reshapes between kernels stay views of one buffer on the host; the
// manifest binds both kernels to it.
// RUN: egg-opt %s --egg-pipeline -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// CHECK-LABEL: func.func @views
// CHECK: %[[T:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: call @views_k0(%{{.*}}, %[[T]])
// CHECK: %[[V:.*]] = memref.expand_shape %[[T]]
// CHECK: call @views_k1(%[[V]], %{{.*}})

// MANIFEST: "role": "temp"
// MANIFEST: "steps": [
// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0
// MANIFEST: "buffer": 2
// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 2
func.func @views(%x: tensor<8x16xf32>) -> tensor<8x4x4xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.exp ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>
  %e2 = tensor.empty() : tensor<8x4x4xf32>
  %t = linalg.transpose ins(%r : tensor<8x4x4xf32>) outs(%e2 : tensor<8x4x4xf32>) permutation = [0, 2, 1]
  return %t : tensor<8x4x4xf32>
}
