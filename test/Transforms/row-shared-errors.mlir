// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// `row_shared = K` (the last K row steps of a block's held rows in shared
// memory) has a located error for each of its conditions.

// Only a block per row holds rows that way.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @per_warp(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{row_shared = 2 is for rows held by a block (reduce_row_per_block) only}}
  %r = egg.kernel @k ins(%x : tensor<64x1024xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<reduce_row_per_warp>,
                  tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 4, row_shared = 2>} {
  ^bb0(%in: tensor<64x1024xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    %s = linalg.reduce ins(%in : tensor<64x1024xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
}

// -----

// K is at most the row steps of each thread: 32768 f32 over 1024 threads
// in vectors of 4 are 8 steps.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @too_many(%x: tensor<4x32768xf32>) -> tensor<4x32768xf32> {
  // expected-error @+1 {{row_shared = 9 exceeds the 8 whole row steps of each thread (32768 elements, 1024 threads x vector 4)}}
  %r = egg.kernel @k ins(%x : tensor<4x32768xf32>) -> tensor<4x32768xf32>
      attributes {structure = #egg.structure<reduce_row_per_block>,
                  tuning = #egg.tuning<threads = [1024], block = [1, 0], vector = 4, row_shared = 9>} {
  ^bb0(%in: tensor<4x32768xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %s = linalg.reduce ins(%in : tensor<4x32768xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    %e2 = tensor.empty() : tensor<4x32768xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%in, %s : tensor<4x32768xf32>, tensor<4xf32>) outs(%e2 : tensor<4x32768xf32>) {
    ^bb1(%v: f32, %m: f32, %o: f32):
      %t = arith.subf %v, %m : f32
      linalg.yield %t : f32
    } -> tensor<4x32768xf32>
    egg.yield %d : tensor<4x32768xf32>
  }
  return %r : tensor<4x32768xf32>
}
}
// -----

// The slots must fit a block's shared memory: 64 steps of 4 f32 for 1024
// threads are 1 MB (the legal space bounds them; rows so long are not held
// in registers in the first place, which the expert checks).
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @too_large(%x: tensor<4x262144xf32>) -> tensor<4x262144xf32> {
  // expected-error @+1 {{row_shared = 64 needs 1048576 bytes of shared memory for its held rows; a block may have 232448}}
  %r = egg.kernel @k ins(%x : tensor<4x262144xf32>) -> tensor<4x262144xf32>
      attributes {structure = #egg.structure<reduce_row_per_block>,
                  tuning = #egg.tuning<threads = [1024], block = [1, 0], vector = 4, row_shared = 64>} {
  ^bb0(%in: tensor<4x262144xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %s = linalg.reduce ins(%in : tensor<4x262144xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    %e2 = tensor.empty() : tensor<4x262144xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%in, %s : tensor<4x262144xf32>, tensor<4xf32>) outs(%e2 : tensor<4x262144xf32>) {
    ^bb1(%v: f32, %m: f32, %o: f32):
      %t = arith.subf %v, %m : f32
      linalg.yield %t : f32
    } -> tensor<4x262144xf32>
    egg.yield %d : tensor<4x262144xf32>
  }
  return %r : tensor<4x262144xf32>
}
}

// -----

// A row read once (a plain reduction) is held nowhere: row_shared has
// nothing to place.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @read_once(%x: tensor<4x32768xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{row_shared = 2 needs an input row that two ops or more read (held across them); none is}}
  %r = egg.kernel @k ins(%x : tensor<4x32768xf32>) -> tensor<4xf32>
      attributes {structure = #egg.structure<reduce_row_per_block>,
                  tuning = #egg.tuning<threads = [1024], block = [1], vector = 4, row_shared = 2>} {
  ^bb0(%in: tensor<4x32768xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %s = linalg.reduce ins(%in : tensor<4x32768xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
}
