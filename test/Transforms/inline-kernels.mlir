// RUN: egg-opt %s -egg-form-kernels -egg-inline-kernels | FileCheck %s
// RUN: egg-opt %s -egg-form-kernels -egg-inline-kernels -egg-form-kernels | FileCheck %s --check-prefix=AGAIN

// Forming and inlining kernels gives back the original computation.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NOT: egg.
// CHECK: %[[E:.*]] = linalg.exp ins(%[[X]]
// CHECK: %[[N:.*]] = linalg.negf ins(%[[E]]
// CHECK: return %[[N]]
// AGAIN: egg.kernel @chain_k0
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = linalg.negf ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %b : tensor<8xf32>
}
