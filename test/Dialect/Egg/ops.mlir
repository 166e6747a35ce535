// RUN: egg-opt %s | egg-opt | FileCheck %s
// RUN: egg-opt %s --mlir-print-op-generic | egg-opt | FileCheck %s

// CHECK-LABEL: func.func @gemm_bias
func.func @gemm_bias(%a: tensor<128x64xf16>, %b: tensor<64x32xf16>,
                     %bias: tensor<32xf32>) -> tensor<128x32xf32> {
  // CHECK: %[[R:.*]] = egg.kernel @gemm_bias_k0 ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xf16>, tensor<64x32xf16>, tensor<32xf32>) -> tensor<128x32xf32>
  // CHECK-SAME: structure = #egg.structure<gemm_direct>
  // CHECK-SAME: tuning = #egg.tuning<threads = [128], block = [64, 32], warp = [32, 16], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 3, mma = mma_sync>
  // CHECK: ^bb0(%[[A:.*]]: tensor<128x64xf16>, %[[B:.*]]: tensor<64x32xf16>, %[[BIAS:.*]]: tensor<32xf32>):
  // CHECK: linalg.matmul ins(%[[A]], %[[B]]
  // CHECK: egg.yield %{{.*}} : tensor<128x32xf32>
  %r = egg.kernel @gemm_bias_k0 ins(%a, %b, %bias : tensor<128x64xf16>, tensor<64x32xf16>, tensor<32xf32>) -> tensor<128x32xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128], block = [64, 32], warp = [32, 16],
                                       reduction = [32], shared = [0, 1], swizzle = xor128,
                                       vector = 8, copy = tma, pipeline = 3, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x32xf16>, %z: tensor<32xf32>):
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x32xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf16>, tensor<64x32xf16>) outs(%f : tensor<128x32xf32>) -> tensor<128x32xf32>
    egg.yield %m : tensor<128x32xf32>
  }
  return %r : tensor<128x32xf32>
}

// A kernel with no inputs and several results, and no decisions yet.
// CHECK-LABEL: func.func @two_results
func.func @two_results() -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %{{.*}}:2 = egg.kernel @two_results_k0 -> tensor<4xf32>, tensor<4xf32> {
  %r:2 = egg.kernel @two_results_k0 -> tensor<4xf32>, tensor<4xf32> {
    %cst = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    egg.yield %f, %f : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// A kernel whose only op is a tensor.pad (no linalg anchor) verifies with
// decisions (regression: the verifier dereferenced a missing anchor).
// CHECK-LABEL: func.func @pad_only
// CHECK: egg.kernel @pad_only_k0
// CHECK-SAME: tuning = #egg.tuning<threads = [6], block = [6], thread = [1]>
func.func @pad_only(%x: tensor<4xf32>) -> tensor<6xf32> {
  %r = egg.kernel @pad_only_k0 ins(%x : tensor<4xf32>) -> tensor<6xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [6], block = [6], thread = [1]>} {
  ^bb0(%a: tensor<4xf32>):
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[1] high[1] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<4xf32> to tensor<6xf32>
    egg.yield %p : tensor<6xf32>
  }
  return %r : tensor<6xf32>
}

// A padded view: the padded shape with the source's strides and a dynamic
// offset.
// CHECK-LABEL: func.func @padded_view
// CHECK: egg.padded_view %{{.*}} low [0, 1, 1, 0] high [0, 1, 1, 0] : memref<2x4x4x8xf16> to memref<2x6x6x8xf16, strided<[128, 32, 8, 1], offset: ?>>
func.func @padded_view(%x: memref<2x4x4x8xf16>) -> memref<2x6x6x8xf16, strided<[128, 32, 8, 1], offset: ?>> {
  %v = egg.padded_view %x low [0, 1, 1, 0] high [0, 1, 1, 0] : memref<2x4x4x8xf16> to memref<2x6x6x8xf16, strided<[128, 32, 8, 1], offset: ?>>
  return %v : memref<2x6x6x8xf16, strided<[128, 32, 8, 1], offset: ?>>
}

// CHECK-LABEL: func.func @scans
func.func @scans(%x: tensor<8x100xf32>, %b: memref<4x64xbf16>,
                 %o: memref<4x64xbf16>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  // CHECK: egg.scan add %{{.*}} into %{{.*}} : tensor<8x100xf32>, tensor<8x100xf32> -> tensor<8x100xf32>
  %s = egg.scan add %x into %e : tensor<8x100xf32>, tensor<8x100xf32> -> tensor<8x100xf32>
  // CHECK: egg.scan mul %{{.*}} into %{{.*}} : memref<4x64xbf16>, memref<4x64xbf16>
  egg.scan mul %b into %o : memref<4x64xbf16>, memref<4x64xbf16>
  // CHECK: egg.scan add reverse exclusive %{{.*}} into %{{.*}} : memref<4x64xbf16>, memref<4x64xbf16>
  egg.scan add reverse exclusive %b into %o : memref<4x64xbf16>, memref<4x64xbf16>
  // CHECK: egg.scan mul exclusive %{{.*}} into %{{.*}} : memref<4x64xbf16>, memref<4x64xbf16>
  egg.scan mul exclusive %b into %o : memref<4x64xbf16>, memref<4x64xbf16>
  return %s : tensor<8x100xf32>
}

// A GRU layer's steps on tensors (reversed), and an RNN's on buffers.
// CHECK-LABEL: func.func @recurrences
func.func @recurrences(%x: tensor<5x2x12xf32>, %w: tensor<4x12xf32>, %b: tensor<12xf32>,
                       %h0: tensor<2x4xf32>, %xm: memref<5x2x4xf32>, %wm: memref<4x4xf32>,
                       %bm: memref<4xf32>, %hm: memref<2x4xf32>, %sm: memref<5x2x4xf32>,
                       %fm: memref<2x4xf32>) -> tensor<2x4xf32> {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // CHECK: egg.recurrence ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<5x2x12xf32>, tensor<4x12xf32>, tensor<12xf32>, tensor<2x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<5x2x4xf32>, tensor<2x4xf32>) attributes {reverse} {
  // CHECK: egg.yield %{{.*}} : f32
  // CHECK: } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x12xf32>, tensor<4x12xf32>, tensor<12xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) attributes {reverse} {
  ^bb0(%xr: f32, %xz: f32, %xn: f32, %hr: f32, %hz: f32, %hn: f32, %h: f32):
    %one = arith.constant 1.0 : f32
    %ar = arith.addf %xr, %hr : f32
    %r = math.tanh %ar : f32
    %az = arith.addf %xz, %hz : f32
    %z = math.tanh %az : f32
    %rh = arith.mulf %r, %hn : f32
    %an = arith.addf %xn, %rh : f32
    %n = math.tanh %an : f32
    %omz = arith.subf %one, %z : f32
    %a = arith.mulf %omz, %n : f32
    %c = arith.mulf %z, %h : f32
    %h2 = arith.addf %a, %c : f32
    egg.yield %h2 : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  // CHECK: egg.recurrence ins(%{{.*}} : memref<5x2x4xf32>, memref<4x4xf32>, memref<4xf32>, memref<2x4xf32>) outs(%{{.*}}, %{{.*}} : memref<5x2x4xf32>, memref<2x4xf32>) {
  egg.recurrence ins(%xm, %wm, %bm, %hm : memref<5x2x4xf32>, memref<4x4xf32>, memref<4xf32>, memref<2x4xf32>)
      outs(%sm, %fm : memref<5x2x4xf32>, memref<2x4xf32>) {
  ^bb0(%xi: f32, %hi: f32, %h: f32):
    %a = arith.addf %xi, %hi : f32
    %t = math.tanh %a : f32
    egg.yield %t : f32
  }
  return %r#1 : tensor<2x4xf32>
}
