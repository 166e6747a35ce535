// RUN: egg-opt %s -split-input-file -egg-form-kernels | FileCheck %s
// RUN: egg-opt %s -split-input-file -egg-form-kernels=fuse=false | FileCheck %s --check-prefix=NOFUSE

// GEMM + bias + relu: the fill (prologue) and both elementwise ops
// (epilogue) join the matmul's kernel.
// CHECK-LABEL: func.func @gemm_bias_relu
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<32x16xf32>, %[[BIAS:.*]]: tensor<64x16xf32>)
// CHECK: %[[K:.*]] = egg.kernel @gemm_bias_relu_k0 ins(%[[A]], %[[B]], %[[BIAS]] : {{.*}}) -> tensor<64x16xf32> {
// CHECK:   arith.constant
// CHECK:   tensor.empty
// CHECK:   linalg.fill
// CHECK:   linalg.matmul
// CHECK:   linalg.add
// CHECK:   linalg.max
// CHECK:   egg.yield
// CHECK-NOT: egg.kernel
// CHECK: return %[[K]]
// NOFUSE-LABEL: func.func @gemm_bias_relu
// NOFUSE-COUNT-5: egg.kernel
func.func @gemm_bias_relu(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %bias: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  %s = linalg.add ins(%m, %bias : tensor<64x16xf32>, tensor<64x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.max ins(%s, %z : tensor<64x16xf32>, tensor<64x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// Two matmuls never share a kernel; the elementwise op between them joins
// the first (epilogue), and the second matmul's result is returned.
// CHECK-LABEL: func.func @two_gemms
// NOFUSE-LABEL: func.func @two_gemms
// CHECK: %[[K0:.*]] = egg.kernel @two_gemms_k0
// CHECK:   linalg.matmul
// CHECK:   linalg.exp
// CHECK: egg.kernel @two_gemms_k1 ins(%[[K0]]
// CHECK:   linalg.matmul
// CHECK-NOT: egg.kernel
func.func @two_gemms(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x = linalg.exp ins(%m : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %n = linalg.matmul ins(%x, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}

// -----

// Scale + mask + softmax: the elementwise prologue joins the softmax.
// CHECK-LABEL: func.func @scale_mask_softmax
// CHECK: egg.kernel @scale_mask_softmax_k0
// CHECK:   linalg.mul
// CHECK:   linalg.add
// CHECK:   linalg.softmax
// CHECK-NOT: egg.kernel
func.func @scale_mask_softmax(%x: tensor<4x128xf32>, %scale: tensor<4x128xf32>, %mask: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %e = tensor.empty() : tensor<4x128xf32>
  %s = linalg.mul ins(%x, %scale : tensor<4x128xf32>, tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  %m = linalg.add ins(%s, %mask : tensor<4x128xf32>, tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  %r = linalg.softmax dimension(1) ins(%m : tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  return %r : tensor<4x128xf32>
}

// -----

// Layer norm written as generics: two reductions over the same rows and the
// normalising epilogue form one kernel.
#row = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: egg.kernel @layer_norm_k0
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: egg.kernel
func.func @layer_norm(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#row, #red, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<16x64xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %b : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [#row, #red, #red, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %sd = math.sqrt %var : f32
    %d = arith.subf %a, %mean : f32
    %t = arith.divf %d, %sd : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

// A value used by the kernel and by the caller is yielded; an intermediate
// used only inside is not.
// CHECK-LABEL: func.func @escaping
// CHECK: %[[K:.*]]:2 = egg.kernel @escaping_k0 {{.*}} -> tensor<8xf32>, tensor<8xf32>
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @escaping(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = linalg.negf ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %c = linalg.abs ins(%b : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %a, %c : tensor<8xf32>, tensor<8xf32>
}

// -----

// Reductions over different rows stay apart, and a reduction does not join
// an elementwise group that feeds two kernels.
// CHECK-LABEL: func.func @different_rows
// CHECK-COUNT-2: egg.kernel
// CHECK-NOT: egg.kernel
func.func @different_rows(%x: tensor<8x4xf32>, %acc0: tensor<8xf32>, %acc1: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %r0 = linalg.reduce ins(%x : tensor<8x4xf32>) outs(%acc0 : tensor<8xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  %r1 = linalg.reduce ins(%x : tensor<8x4xf32>) outs(%acc1 : tensor<4xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  return %r0, %r1 : tensor<8xf32>, tensor<4xf32>
}

// -----

// A scale before a product is a kernel of its own: the product copies its
// inputs from global memory into shared-memory tiles. The fill of its init
// still joins it.
// CHECK-LABEL: func.func @scale_then_matmul
// CHECK: %[[S:.*]] = egg.kernel @scale_then_matmul_k0
// CHECK:   linalg.mul
// CHECK-NOT: linalg.matmul
// CHECK: egg.kernel @scale_then_matmul_k1 ins({{.*}}%[[S]]
// CHECK:   linalg.fill
// CHECK:   linalg.matmul
// CHECK-NOT: egg.kernel
func.func @scale_then_matmul(%a: tensor<64x32xf16>, %s: tensor<64x32xf16>, %b: tensor<32x16xf16>) -> tensor<64x16xf32> {
  %e = tensor.empty() : tensor<64x32xf16>
  %as = linalg.mul ins(%a, %s : tensor<64x32xf16>, tensor<64x32xf16>) outs(%e : tensor<64x32xf16>) -> tensor<64x32xf16>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%as, %b : tensor<64x32xf16>, tensor<32x16xf16>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %m : tensor<64x16xf32>
}

// -----

// A ReLU before a padded convolution: the zero pad joins the convolution
// (its implicit GEMM's copies zero-fill the border, or a direct convolution
// gathers through it), and the ReLU stays apart: the copies read the pad's
// source from global memory. Two kernels.
// CHECK-LABEL: func.func @relu_pad_conv
// CHECK: %[[R:.*]] = egg.kernel @relu_pad_conv_k0
// CHECK:   linalg.max
// CHECK-NOT: tensor.pad
// CHECK: egg.kernel @relu_pad_conv_k1 ins({{.*}}%[[R]]
// CHECK:   tensor.pad
// CHECK:   linalg.fill
// CHECK:   linalg.conv_2d_nchw_fchw
// CHECK-NOT: egg.kernel
func.func @relu_pad_conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.max ins(%x, %zeros : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %z : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// A ReLU before a padded max pooling: the -inf pad joins the pooling (a
// direct loop nest, whose gather selects -inf at the border), and the ReLU,
// whose result the gather reads directly, stays apart. Two kernels.
// CHECK-LABEL: func.func @relu_pad_max_pool
// CHECK: %[[R:.*]] = egg.kernel @relu_pad_max_pool_k0
// CHECK:   linalg.max
// CHECK-NOT: tensor.pad
// CHECK: egg.kernel @relu_pad_max_pool_k1 ins({{.*}}%[[R]]
// CHECK:   tensor.pad
// CHECK-NOT: egg.kernel
// CHECK:   linalg.pooling_nchw_max
// CHECK-NOT: egg.kernel
func.func @relu_pad_max_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.max ins(%x, %zeros : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e2 = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %window : tensor<1x4x10x10xf32>, tensor<3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %m : tensor<1x4x8x8xf32>
}

// -----

// A pad with another value than zero (copies zero-fill only) stays a kernel
// of its own.
// CHECK-LABEL: func.func @one_pad_conv
// CHECK: %[[P:.*]] = egg.kernel @one_pad_conv_k0
// CHECK:   tensor.pad
// CHECK-NOT: linalg.conv
// CHECK: egg.kernel @one_pad_conv_k1 ins({{.*}}%[[P]]
// CHECK:   linalg.conv_2d_nchw_fchw
func.func @one_pad_conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %one : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// A product's epilogue runs over its result in its order: an add in order
// joins it, a transposing copy after it (NHWC written NCHW) does not.
// CHECK-LABEL: func.func @matmul_bias_transposed
// CHECK: %[[K:.*]] = egg.kernel @matmul_bias_transposed_k0
// CHECK:   linalg.matmul
// CHECK:   linalg.add
// CHECK-NOT: linalg.transpose
// CHECK: egg.kernel @matmul_bias_transposed_k1 ins(%[[K]]
// CHECK:   linalg.transpose
func.func @matmul_bias_transposed(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %bias: tensor<64x16xf32>) -> tensor<16x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  %s = linalg.add ins(%m, %bias : tensor<64x16xf32>, tensor<64x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %t = linalg.transpose ins(%s : tensor<64x16xf32>) outs(%e2 : tensor<16x64xf32>) permutation = [1, 0]
  return %t : tensor<16x64xf32>
}

// -----

// Every value an epilogue reads from the product's kernel counts: the
// generic reads the product in order but the bias-added result transposed,
// so it is a kernel of its own.
// CHECK-LABEL: func.func @two_reads
// CHECK: %[[K:.*]]:2 = egg.kernel @two_reads_k0
// CHECK:   linalg.matmul
// CHECK:   linalg.add
// CHECK-NOT: linalg.generic
// CHECK: egg.kernel @two_reads_k1 ins(%[[K]]#{{[01]}}, %[[K]]#{{[01]}}
// CHECK:   linalg.generic
func.func @two_reads(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %bias: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.add ins(%m, %bias : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %s : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}

// -----

// Channels padded to a multiple of 8 (an NHWC image's innermost dimension,
// read as a loop of its own): fused, the copies would move single elements,
// so the pad stays a kernel of its own.
// CHECK-LABEL: func.func @pad_channels_conv
// CHECK: %[[P:.*]] = egg.kernel @pad_channels_conv_k0
// CHECK:   tensor.pad
// CHECK-NOT: linalg.conv
// CHECK: egg.kernel @pad_channels_conv_k1 ins({{.*}}%[[P]]
// CHECK:   linalg.conv_2d_nhwc_hwcf
func.func @pad_channels_conv(%x: tensor<2x18x18x3xf16>, %w: tensor<3x3x8x64xf16>) -> tensor<2x16x16x64xf32> {
  %z = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, 5] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zh : f16
  } : tensor<2x18x18x3xf16> to tensor<2x18x18x8xf16>
  %e = tensor.empty() : tensor<2x16x16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<2x18x18x8xf16>, tensor<3x3x8x64xf16>) outs(%f : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
  return %c : tensor<2x16x16x64xf32>
}

// -----

// A whole-tensor sum read by a map over the tensor (x / sum(x)): the map
// is a kernel of its own that reads the sum, not the sum's epilogue (it
// would run in the one block that reduces the row).
// CHECK-LABEL: func.func @divide_by_whole_sum
// CHECK: %[[S:.*]] = egg.kernel @divide_by_whole_sum_k0
// CHECK:   linalg.generic
// CHECK-SAME: "reduction"
// CHECK: egg.kernel @divide_by_whole_sum_k1 ins(%{{.*}}, %[[S]]
// CHECK:   arith.divf
// CHECK-NOT: egg.kernel
func.func @divide_by_whole_sum(%x: tensor<64x256xf32>, %row: tensor<1x16384xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%row : tensor<1x16384xf32>) outs(%f : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %e = tensor.empty() : tensor<64x256xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<64x256xf32>, tensor<1xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.divf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  return %d : tensor<64x256xf32>
}

// -----

// A map that spreads a reduction's results over loops the reduction never
// walked (batch statistics summed over N, read across N, H and W) is no row
// epilogue: it is a kernel of its own. The scale of the sums, a map over
// the reduction's own results, stays in its kernel.
// CHECK-LABEL: func.func @batch_stats_broadcast
// CHECK: %[[S:.*]] = egg.kernel @batch_stats_broadcast_k0
// CHECK:   linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK:   linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK:   egg.yield
// CHECK: egg.kernel @batch_stats_broadcast_k1 ins(%{{.*}}, %[[S]] :
// CHECK:   linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// NOFUSE-LABEL: func.func @batch_stats_broadcast
func.func @batch_stats_broadcast(%part: tensor<8x16xf32>, %x: tensor<8x16x64xf32>) -> tensor<8x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 8.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%part : tensor<8x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.divf %a, %k : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %ex = tensor.empty() : tensor<8x16x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %m : tensor<8x16x64xf32>, tensor<16xf32>) outs(%ex : tensor<8x16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x16x64xf32>
  return %y : tensor<8x16x64xf32>
}

// -----

// Work nothing reads is dropped rather than made a kernel that writes
// nothing: one kernel, the square.
// CHECK-LABEL: func.func @unused_fill
// CHECK-NOT: linalg.fill
// CHECK: egg.kernel @unused_fill_k0
// CHECK-NOT: egg.kernel
func.func @unused_fill(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %dead = linalg.fill ins(%c : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Every result of a recurrence leaves its kernel, read or not: the blocks
// of a step share its sequence and states, which need the function's
// buffers.
// CHECK-LABEL: func.func @recurrence_results
// CHECK: egg.kernel @recurrence_results_k0
// CHECK-SAME: -> tensor<3x2x4xf32>, tensor<2x4xf32>
// CHECK: egg.yield %{{.*}}#0, %{{.*}}#1 : tensor<3x2x4xf32>, tensor<2x4xf32>
func.func @recurrence_results(%x: tensor<3x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = tensor.empty() : tensor<3x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<3x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<3x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%xi: f32, %hi: f32, %h: f32):
    %a = arith.addf %xi, %hi : f32
    egg.yield %a : f32
  } -> tensor<3x2x4xf32>, tensor<2x4xf32>
  return %r#1 : tensor<2x4xf32>
}

// -----

// A map that gathers from another map's result (tensor.extract in its
// payload, as `(x * 2)[:, i]` reads its source) reads any element of it:
// the producer's loop nest is a kernel of its own, not a prologue.
// CHECK-LABEL: func.func @gather_from_a_map
// CHECK: egg.kernel @gather_from_a_map_k0 ins(%{{.*}} : tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK: egg.kernel @gather_from_a_map_k1 ins(%{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x5xf32>
func.func @gather_from_a_map(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>) -> tensor<4x5xf32> {
  %e = tensor.empty() : tensor<4x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x2xf32>
  %e2 = tensor.empty() : tensor<4x5xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e2 : tensor<4x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %ja = arith.minsi %j, %c2 : index
    %a = tensor.extract %x[%i, %ja] : tensor<4x3xf32>
    %jb0 = arith.subi %j, %c3 : index
    %jb1 = arith.maxsi %jb0, %c0 : index
    %jb = arith.minsi %jb1, %c1 : index
    %b = tensor.extract %r[%i, %jb] : tensor<4x2xf32>
    %lt = arith.cmpi slt, %j, %c3 : index
    %v = arith.select %lt, %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}
