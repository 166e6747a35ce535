// RUN: egg-opt %s -split-input-file -egg-forward-result-copies | FileCheck %s

// The result is computed straight into the out-parameter.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[IN:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.exp ins(%[[IN]] : memref<8xf32>) outs(%[[OUT]] : memref<8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @forward(%in: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  linalg.exp ins(%in : memref<8xf32>) outs(%a : memref<8xf32>)
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Not when the buffer is still used after the copy.
// CHECK-LABEL: func.func @used_after
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @used_after(%in: memref<8xf32>, %out: memref<8xf32>, %other: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  linalg.exp ins(%in : memref<8xf32>) outs(%a : memref<8xf32>)
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  linalg.negf ins(%a : memref<8xf32>) outs(%other : memref<8xf32>)
  return
}

// -----

// Not when the out-parameter is used elsewhere.
// CHECK-LABEL: func.func @out_read
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @out_read(%in: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  linalg.exp ins(%out : memref<8xf32>) outs(%a : memref<8xf32>)
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A result computed in another shape than it is returned in (a group norm
// over [N, G, C/G*H*W] returned as [N, C, H, W]): the kernel writes a view
// of the out-parameter in its own shape, and the copy disappears.
// CHECK-LABEL: func.func @reshaped
// CHECK-SAME: (%[[IN:.*]]: memref<2x8xf32>, %[[OUT:.*]]: memref<2x2x4xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1, 2]] : memref<2x2x4xf32> into memref<16xf32>
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [2, 8] : memref<16xf32> into memref<2x8xf32>
// CHECK: linalg.exp ins(%[[IN]] : memref<2x8xf32>) outs(%[[VIEW]] : memref<2x8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @reshaped(%in: memref<2x8xf32>, %out: memref<2x2x4xf32>) {
  %a = memref.alloc() : memref<2x8xf32>
  linalg.exp ins(%in : memref<2x8xf32>) outs(%a : memref<2x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x8xf32> into memref<16xf32>
  %r = memref.expand_shape %flat [[0, 1, 2]] output_shape [2, 2, 4] : memref<16xf32> into memref<2x2x4xf32>
  memref.copy %r, %out : memref<2x2x4xf32> to memref<2x2x4xf32>
  return
}

// -----

// Not when a reshape of the buffer has another user.
// CHECK-LABEL: func.func @reshape_used
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @reshape_used(%in: memref<2x8xf32>, %out: memref<16xf32>, %other: memref<16xf32>) {
  %a = memref.alloc() : memref<2x8xf32>
  linalg.exp ins(%in : memref<2x8xf32>) outs(%a : memref<2x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x8xf32> into memref<16xf32>
  linalg.negf ins(%flat : memref<16xf32>) outs(%other : memref<16xf32>)
  memref.copy %flat, %out : memref<16xf32> to memref<16xf32>
  return
}
