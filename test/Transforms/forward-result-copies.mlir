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
