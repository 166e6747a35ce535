// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// `cluster = C` (rows shared by a thread-block cluster) is implemented for
// column reductions and, as TMA multicast, for TMA products; each of its
// conditions has its own located error.

// A matrix product without TMA cannot take a cluster.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @product(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{cluster = 2 is implemented for column reductions (reduce_two_stage without split_k), TMA products (gemm_direct, copy = tma) and recurrences (recurrence_block) only}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, cluster = 2, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// The cluster's blocks take equal slices of the rows.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @rows(%x: tensor<1020x256xf32>) -> tensor<256xf32> {
  // expected-error @+1 {{cluster = 8 does not divide the 1020 rows into equal slices}}
  %r = egg.kernel @k ins(%x : tensor<1020x256xf32>) -> tensor<256xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 8>} {
  ^bb0(%in: tensor<1020x256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %s = linalg.reduce ins(%in : tensor<1020x256xf32>) outs(%f : tensor<256xf32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}
}

// -----

// Thread-block clusters exist from sm_90 on.
module attributes {egg.target = #egg.target<chip = "sm_80", name = "A100", sm_count = 108, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 166912, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 41943040, dram_gbps = 1555, fp32_gflops = 19500, tensor_gflops = 312000>} {
func.func @old_gpu(%x: tensor<1024x256xf32>) -> tensor<256xf32> {
  // expected-error @+1 {{cluster = 2 needs thread-block clusters (sm_90 or later)}}
  %r = egg.kernel @k ins(%x : tensor<1024x256xf32>) -> tensor<256xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 2>} {
  ^bb0(%in: tensor<1024x256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %s = linalg.reduce ins(%in : tensor<1024x256xf32>) outs(%f : tensor<256xf32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}
}

// -----

// The cluster takes the grid's z dimension: at most two parallel loops.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @three_loops(%x: tensor<4x8x64x32xf32>) -> tensor<4x8x32xf32> {
  // expected-error @+1 {{cluster = 2 needs the grid's z dimension: at most two parallel loops, got 3}}
  %r = egg.kernel @k ins(%x : tensor<4x8x64x32xf32>) -> tensor<4x8x32xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [8, 64], block = [1, 1, 32], vector = 4, cluster = 2>} {
  ^bb0(%in: tensor<4x8x64x32xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
    %s = linalg.reduce ins(%in : tensor<4x8x64x32xf32>) outs(%f : tensor<4x8x32xf32>) dimensions = [2]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<4x8x32xf32>
  }
  return %r : tensor<4x8x32xf32>
}
}

// -----

// TMA multicast pairs the blocks along N: clusters of two only.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_cluster4(%a: tensor<256x1024xbf16>, %b: tensor<1024x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{cluster = 4: TMA products take clusters of 2 only}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x1024xbf16>, tensor<1024x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 64], warp = [64, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 4, cluster = 4, mma = wgmma>} {
  ^bb0(%x: tensor<256x1024xbf16>, %y: tensor<1024x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x1024xbf16>, tensor<1024x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// TMA multicast pairs the blocks along N: an even number of N tiles.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_odd_tiles(%a: tensor<256x1024xbf16>, %b: tensor<1024x192xbf16>) -> tensor<256x192xf32> {
  // expected-error @+1 {{cluster = 2 pairs the 3 tiles along N: their number must be even}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x1024xbf16>, tensor<1024x192xbf16>) -> tensor<256x192xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 64], warp = [64, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 4, cluster = 2, mma = wgmma>} {
  ^bb0(%x: tensor<256x1024xbf16>, %y: tensor<1024x192xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x192xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x1024xbf16>, tensor<1024x192xbf16>) outs(%f : tensor<256x192xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x192xf32>
    egg.yield %m : tensor<256x192xf32>
  }
  return %r : tensor<256x192xf32>
}
}

// -----

// TMA multicast computed correctly on 128 x 64 tiles only (docs/pipeline.md,
// "TMA multicast").
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_wide_tiles(%a: tensor<256x1024xbf16>, %b: tensor<1024x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{cluster = 2 is limited to 128 x 64 tiles, the only ones that computed correctly on the GPU (got 128 x 128;}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x1024xbf16>, tensor<1024x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 4, cluster = 2, mma = wgmma>} {
  ^bb0(%x: tensor<256x1024xbf16>, %y: tensor<1024x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x1024xbf16>, tensor<1024x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
