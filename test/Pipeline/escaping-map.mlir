// A map whose value is a result of its kernel and also feeds the kernel's
// last op (eval-mode DenseNet's transition: the average pool's divide goes
// to the concatenation and to the next batch norm): it is not fused into
// its consumer, which would compute it twice and leave a loop nest that
// feeds nothing; the root's loops yield it. One launch, two stores.
// RUN: egg-opt %s --egg-pipeline -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX

// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// PTX: .entry f_k0_kernel
// PTX-COUNT-2: st.global
#m4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @f(%x: tensor<10x128x56x56xf32>, %s: tensor<128xf32>) -> (tensor<10x128x28x28xf32>, tensor<10x128x28x28xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x128x28x28xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<10x128x28x28xf32>) -> tensor<10x128x28x28xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<10x128x56x56xf32>, tensor<2x2xf32>) outs(%f : tensor<10x128x28x28xf32>) -> tensor<10x128x28x28xf32>
  %e1 = tensor.empty() : tensor<10x128x28x28xf32>
  %d = linalg.generic {indexing_maps = [#m4, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<10x128x28x28xf32>) outs(%e1 : tensor<10x128x28x28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %k = arith.constant 4.0 : f32
    %t = arith.divf %a, %k : f32
    linalg.yield %t : f32
  } -> tensor<10x128x28x28xf32>
  %e2 = tensor.empty() : tensor<10x128x28x28xf32>
  %b = linalg.generic {indexing_maps = [#m4, #c, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %s : tensor<10x128x28x28xf32>, tensor<128xf32>) outs(%e2 : tensor<10x128x28x28xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %t = arith.mulf %a, %sc : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %t, %z : f32
    linalg.yield %r : f32
  } -> tensor<10x128x28x28xf32>
  return %d, %b : tensor<10x128x28x28xf32>, tensor<10x128x28x28xf32>
}
