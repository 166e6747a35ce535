// RUN: egg-opt %s | egg-opt | FileCheck %s

// Every attribute prints back the way it was written, with defaults elided.

// CHECK: module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  // CHECK-LABEL: func.func @structures
  func.func @structures() attributes {
    // CHECK-SAME: a = #egg.structure<elementwise_flat>
    a = #egg.structure<elementwise_flat>,
    // CHECK-SAME: b = #egg.structure<gemm_split_k, split_k = 4>
    b = #egg.structure<gemm_split_k, split_k = 4>,
    // CHECK-SAME: c = #egg.structure<softmax_three_pass>
    c = #egg.structure<softmax_three_pass>,
    // CHECK-SAME: d = #egg.structure<norm_two_pass>
    d = #egg.structure<norm_two_pass>,
    // CHECK-SAME: e = #egg.structure<conv_implicit_gemm>
    e = #egg.structure<conv_implicit_gemm>,
    // The default split_k = 1 is elided.
    // CHECK-SAME: f = #egg.structure<reduce_two_stage>
    f = #egg.structure<reduce_two_stage, split_k = 1>
  } {
    return
  }

  // CHECK-LABEL: func.func @tunings
  func.func @tunings() attributes {
    // CHECK-SAME: a = #egg.tuning<threads = [256], block = [1024]>
    a = #egg.tuning<threads = [256], block = [1024]>,
    // CHECK-SAME: b = #egg.tuning<threads = [32, 8], block = [64, 0], thread = [8, 4], reduction = [16], shared = [0], registers = [2], padding = 4, vector = 4, copy = cp_async, pipeline = 2>
    b = #egg.tuning<threads = [32, 8], block = [64, 0], thread = [8, 4], reduction = [16], shared = [0], registers = [2], padding = 4, vector = 4, copy = cp_async, pipeline = 2>,
    // Explicit defaults are elided.
    // CHECK-SAME: c = #egg.tuning<threads = [64], block = [64]>
    c = #egg.tuning<threads = [64], block = [64], padding = 0, swizzle = none, vector = 1, copy = sync, pipeline = 1, cluster = 1>,
    // Rows shared by the blocks of a cluster.
    // CHECK-SAME: d = #egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 4>
    d = #egg.tuning<cluster = 4, threads = [8, 64], block = [32], vector = 4>,
    // CHECK-SAME: e = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>
    e = #egg.tuning<fragments_ahead = 1, threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2>,
    // CHECK-SAME: f = #egg.tuning<threads = [64], block = [64]>
    f = #egg.tuning<threads = [64], block = [64], fragments_ahead = 0, tf32_terms = 1>,
    // f32 products as three TF32 products on split inputs.
    // CHECK-SAME: g = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>
    g = #egg.tuning<tf32_terms = 3, threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, mma = wgmma>
  } {
    return
  }
}
