// REQUIRES: egg-plugin
// RUN: mlir-opt --load-dialect-plugin=%egg_libs/EggPlugin.so %s | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%egg_libs/EggPlugin.so --load-pass-plugin=%egg_libs/EggPlugin.so --pass-pipeline="builtin.module(egg-attach-target,func.func(egg-form-kernels))" %s | FileCheck %s --check-prefix=PASS

// Upstream mlir-opt parses and prints EGG IR through the dialect plugin, and
// runs EGG passes through the pass plugin.
// CHECK: egg.kernel @f_k0 ins(%{{.*}} : tensor<8xf32>) -> tensor<8xf32> attributes {structure = #egg.structure<elementwise_flat>}
// PASS: module attributes {egg.target = #egg.target<chip = "sm_90a"
// PASS: egg.kernel @f_k0
// PASS: egg.kernel @g_k0
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = egg.kernel @f_k0 ins(%x : tensor<8xf32>) -> tensor<8xf32>
      attributes {structure = #egg.structure<elementwise_flat>} {
  ^bb0(%a: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %n = linalg.negf ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    egg.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

func.func @g(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.negf ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %n : tensor<8xf32>
}
