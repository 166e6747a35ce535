// RUN: egg-translate --egg-to-decisions %s | FileCheck %s

// CHECK: "format": "egg-decisions"
// CHECK: "kernels": [
// CHECK: "anchor": "linalg.matmul"
// CHECK: "name": "mm_k0"
// CHECK: "structure": "#egg.structure<gemm_split_k, split_k = 2>"
// CHECK: "tuning": "#egg.tuning<threads = [128], block = [64, 64], reduction = [32]>"
// CHECK: "target": "#egg.target<chip = \"sm_90a\"
// CHECK: "version": 1
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func @mm(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
    %r = egg.kernel @mm_k0 ins(%a, %b, %c : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
        attributes {structure = #egg.structure<gemm_split_k, split_k = 2>,
                    tuning = #egg.tuning<threads = [128], block = [64, 64], reduction = [32]>} {
    ^bb0(%x: tensor<128x128xf32>, %y: tensor<128x128xf32>, %z: tensor<128x128xf32>):
      %m = linalg.matmul ins(%x, %y : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
      egg.yield %m : tensor<128x128xf32>
    }
    return %r : tensor<128x128xf32>
  }
}
