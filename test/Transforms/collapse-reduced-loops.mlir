// RUN: egg-opt %s --split-input-file --egg-collapse-reduced-loops | FileCheck %s
// RUN: egg-opt %s --split-input-file --egg-attach-target --egg-collapse-reduced-loops --egg-form-kernels --egg-algorithm-structure --egg-hardware-tuning | FileCheck %s --check-prefix=PIPE

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0)>

// A mean over C x H x W of a squared input: the three reduced loops become
// one of 4 * 30 * 30 = 3600, and the square (a prologue on a function
// argument) runs on the same shape so that it still shares the kernel.
// CHECK-LABEL: func.func @mean_of_squares
// CHECK: %[[IN:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<64x4x30x30xf32> into tensor<64x3600xf32>
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : tensor<64x3600xf32>)
// CHECK-NOT: expand_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[SQ]] : tensor<64x3600xf32>) outs(%{{.*}} : tensor<64xf32>)
// PIPE-LABEL: func.func @mean_of_squares
// PIPE: egg.kernel @mean_of_squares_k0 ins(%{{.*}} : tensor<64x3600xf32>) -> tensor<64xf32> attributes {structure = #egg.structure<reduce_row_per_block>
// PIPE-NOT: egg.kernel
func.func @mean_of_squares(%x: tensor<64x4x30x30xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x4x30x30xf32>
  %sq = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<64x4x30x30xf32>) outs(%e : tensor<64x4x30x30xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<64x4x30x30xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "reduction", "reduction", "reduction"]} ins(%sq : tensor<64x4x30x30xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// An epilogue of a convolution stays in the convolution's shape (its
// kernel is the convolution's); only the reduction reads it collapsed.
// CHECK-LABEL: func.func @pool_after_conv
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[CONV]], %{{.*}} : tensor<8x16x30x30xf32>, tensor<16xf32>)
// CHECK: %[[IN:.*]] = tensor.collapse_shape %[[BIAS]] {{\[}}[0], [1], [2, 3]] : tensor<8x16x30x30xf32> into tensor<8x16x900xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[IN]] : tensor<8x16x900xf32>)
// PIPE-LABEL: func.func @pool_after_conv
// PIPE: egg.kernel @pool_after_conv_k0 ins({{.*}}) -> tensor<8x16x30x30xf32>
// PIPE: linalg.conv_2d_nchw_fchw
// PIPE: egg.kernel @pool_after_conv_k1 ins(%{{.*}} : tensor<8x16x900xf32>) -> tensor<8x16xf32>
func.func @pool_after_conv(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16x30x30xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16x30x30xf32>) -> tensor<8x16x30x30xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<8x16x30x30xf32>) -> tensor<8x16x30x30xf32>
  %e2 = tensor.empty() : tensor<8x16x30x30xf32>
  %bias = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<8x16x30x30xf32>, tensor<16xf32>) outs(%e2 : tensor<8x16x30x30xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %t = arith.addf %a, %bb : f32
    linalg.yield %t : f32
  } -> tensor<8x16x30x30xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%bias : tensor<8x16x30x30xf32>) outs(%f1 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// A row read twice (a variance after its mean): both readers keep the
// shape they share, so their kernel holds one row layout.
// CHECK-LABEL: func.func @read_twice
// CHECK-NOT: collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @read_twice(%x: tensor<8x4x3x100xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<8x4x3x100xf32>) outs(%f1 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<8x4xf32>
  %v = linalg.generic {indexing_maps = [#id4, #row, #row], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %s : tensor<8x4x3x100xf32>, tensor<8x4xf32>) outs(%f1 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    %t = arith.addf %q, %o : f32
    linalg.yield %t : f32
  } -> tensor<8x4xf32>
  return %v : tensor<8x4xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2, d1)>
#row = affine_map<(d0, d1, d2, d3) -> (d0)>

// Reduced dimensions stored out of order are not one row.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: collapse_shape
// CHECK: iterator_types = ["parallel", "reduction", "reduction", "reduction"]
func.func @transposed(%x: tensor<8x5x6x7xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction", "reduction", "reduction"]} ins(%x : tensor<8x5x6x7xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

#img = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d2, d3)>
#win = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// A window's loops index the image inside compound indices: not a row.
// CHECK-LABEL: func.func @window
// CHECK-NOT: collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @window(%x: tensor<8x9x3xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = tensor.empty() : tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#img, #win, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<8x9x3xf32>, tensor<3x3xf32>) outs(%f1 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
