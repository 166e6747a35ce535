// A block tile that spans every loop of its kernel (a small convolution of
// one image) still tiles one loop, into a grid of one block: a kernel
// needs one block loop (tiledLoops in lib/Analysis/KernelAnalysis.cpp).
// RUN: egg-opt %s --egg-pipeline -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// CHECK: gpu.launch_func @one_image_k0_kernel::@one_image_k0_kernel blocks in (%c1, %c1, %c1)
// PTX: .entry one_image_k0_kernel
func.func @one_image(%x: tensor<1x3x5x6xf32>, %w: tensor<24x3x2x2xf32>) -> tensor<1x24x4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x24x4x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x24x4x5xf32>) -> tensor<1x24x4x5xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x3x5x6xf32>, tensor<24x3x2x2xf32>) outs(%init : tensor<1x24x4x5xf32>) -> tensor<1x24x4x5xf32>
  return %y : tensor<1x24x4x5xf32>
}
