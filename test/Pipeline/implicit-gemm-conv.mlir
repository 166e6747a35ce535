// Convolutions whose loops split into GEMM roles run as implicit GEMMs
// (principle 6 of docs/principles/structure.md, docs/pipeline.md
// "Convolutions as implicit GEMM"): no im2col buffer; the copies into shared
// memory compute each element's input address from the decoded (n, oh, ow)
// and (kh, kw, c) positions. NHWC f16 takes warpgroup MMA, NCHW f32 FMA
// tiles (its input is contiguous along neither M nor K, so it is copied an
// element at a time); a depthwise convolution has no N loop and stays
// direct. A zero pad of the image joins the convolution's kernel, whose
// copies read the unpadded input and zero-fill the border (cp.async with a
// source size in a register). Replaying the decisions gives the same
// module.
// RUN: egg-opt %s --egg-pipeline="record=%t.decisions.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.decisions.json
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%t.decisions.json" -o %t.replay.mlir
// RUN: diff %t.mlir %t.replay.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// DECISIONS: "name": "nhwc_f16_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 1], block = [1, 2, 32, 128], warp = [1, 2, 32, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 4, mma = wgmma>"
// DECISIONS: "name": "nchw_f32_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [8, 8], block = [1, 32, 1, 32], thread = [1, 4, 1, 4], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>"
// DECISIONS: "name": "depthwise_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_direct>"
// DECISIONS: "name": "padded_nhwc_f16_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NOT: "name": "padded_nhwc_f16_k1"
// DECISIONS: "name": "padded_nchw_f32_k0"
// DECISIONS-NEXT: "signature": "{{[0-9a-f]+}}"
// DECISIONS-NEXT: "structure": "#egg.structure<conv_implicit_gemm>"
// DECISIONS-NOT: "name": "padded_nchw_f32_k1"

// The NHWC input's 16-byte pieces (8 channels of one (kh, kw)) are copied
// with cp.async into the swizzled tiles that wgmma reads.
// PTX-LABEL: .entry nhwc_f16_k0_kernel
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// NCHW: one 4-byte element at a time, FMAs.
// PTX-LABEL: .entry nchw_f32_k0_kernel
// PTX: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4
// PTX: fma.rn.f32
// PTX-LABEL: .entry depthwise_k0_kernel
// PTX-NOT: cp.async
// Padded: the input's pieces read a source size of 16 or 0 bytes (4 or 0
// for NCHW f32); the weights' copies read whole pieces.
// PTX-LABEL: .entry padded_nhwc_f16_k0_kernel
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// PTX: wgmma.mma_async
// PTX-LABEL: .entry padded_nchw_f32_k0_kernel
// PTX: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, %r{{[0-9]+}};
// PTX: fma.rn.f32

func.func @nhwc_f16(%x: tensor<8x34x34x64xf16>, %w: tensor<3x3x64x128xf16>) -> tensor<8x32x32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32x32x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x34x34x64xf16>, tensor<3x3x64x128xf16>) outs(%f : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  return %c : tensor<8x32x32x128xf32>
}

func.func @nchw_f32(%x: tensor<4x32x34x34xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  return %r : tensor<4x64x32x32xf32>
}

func.func @depthwise(%x: tensor<4x34x34x64xf32>, %w: tensor<3x3x64xf32>) -> tensor<4x32x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x32x64xf32>) -> tensor<4x32x32x64xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x34x34x64xf32>, tensor<3x3x64xf32>) outs(%f : tensor<4x32x32x64xf32>) -> tensor<4x32x32x64xf32>
  return %r : tensor<4x32x32x64xf32>
}

func.func @padded_nhwc_f16(%x: tensor<8x32x32x64xf16>, %w: tensor<3x3x64x128xf16>) -> tensor<8x32x32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<8x32x32x64xf16> to tensor<8x34x34x64xf16>
  %e = tensor.empty() : tensor<8x32x32x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<8x34x34x64xf16>, tensor<3x3x64x128xf16>) outs(%f : tensor<8x32x32x128xf32>) -> tensor<8x32x32x128xf32>
  return %c : tensor<8x32x32x128xf32>
}

func.func @padded_nchw_f32(%x: tensor<4x32x32x32xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<4x32x32x32xf32> to tensor<4x32x34x34xf32>
  %e = tensor.empty() : tensor<4x64x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<4x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  return %r : tensor<4x64x32x32xf32>
}
