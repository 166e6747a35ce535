// RUN: egg-opt %s -split-input-file -egg-attach-target -egg-split-k -verify-diagnostics
// RUN: not egg-opt %s -split-input-file -egg-attach-target -egg-apply-schedule 2>&1 | FileCheck %s --check-prefix=SCHEDULE

// egg-apply-schedule builds no split kernel itself:
// SCHEDULE: split-k-invalid.mlir:[[@LINE+5]]:8: error: 'egg.kernel' op is split along its reduced loop: run egg-split-k first (it builds the partial results and their sum)

// Slices must divide K.
func.func @uneven(%a: tensor<64x1000xf32>, %b: tensor<1000x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{gemm_split_k: 3 slices do not divide K = 1000 into slices of 16 or more}}
  %r = egg.kernel @uneven_k0 ins(%a, %b, %c : tensor<64x1000xf32>, tensor<1000x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 3>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%x: tensor<64x1000xf32>, %y: tensor<1000x64xf32>, %z: tensor<64x64xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<64x1000xf32>, tensor<1000x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// The sum is tuned when the kernel is split, after the decision stages.
func.func @untuned(%a: tensor<64x1024xf32>, %b: tensor<1024x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{is split along its reduced loop but has no tuning: run the decision stages first}}
  %r = egg.kernel @untuned_k0 ins(%a, %b, %c : tensor<64x1024xf32>, tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 2>} {
  ^bb0(%x: tensor<64x1024xf32>, %y: tensor<1024x64xf32>, %z: tensor<64x64xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<64x1024xf32>, tensor<1024x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// A prologue fused before the product would run once per slice.
func.func @prologue(%a: tensor<64x1024xf32>, %b: tensor<1024x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{gemm_split_k needs the product's inputs to be kernel inputs (no fused prologue)}}
  %r = egg.kernel @prologue_k0 ins(%a, %b, %c : tensor<64x1024xf32>, tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 2>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%x: tensor<64x1024xf32>, %y: tensor<1024x64xf32>, %z: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x1024xf32>
    %n = linalg.negf ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %m = linalg.matmul ins(%n, %y : tensor<64x1024xf32>, tensor<1024x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// Only products split (the verifier says so).
func.func @map(%a: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  // expected-error @+1 {{structure gemm_split_k needs a contraction (matmul-like) anchor op}}
  %r = egg.kernel @map_k0 ins(%a : tensor<64x1024xf32>) -> tensor<64x1024xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 2>,
                  tuning = #egg.tuning<threads = [256], block = [1, 1024], thread = [1, 4], vector = 4>} {
  ^bb0(%x: tensor<64x1024xf32>):
    %e = tensor.empty() : tensor<64x1024xf32>
    %n = linalg.negf ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    egg.yield %n : tensor<64x1024xf32>
  }
  return %r : tensor<64x1024xf32>
}

// -----

// A batched product: the slice loop would make four parallel loops.
func.func @batched(%a: tensor<2x256x4096xf32>, %b: tensor<2x4096x256xf32>, %c: tensor<2x256x256xf32>) -> tensor<2x256x256xf32> {
  // expected-error @+1 {{gemm_split_k splits kernels of at most two parallel loops, not 3: the slices would need a fourth grid dimension}}
  %r = egg.kernel @batched_k0 ins(%a, %b, %c : tensor<2x256x4096xf32>, tensor<2x4096x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
      attributes {structure = #egg.structure<gemm_split_k, split_k = 2>,
                  tuning = #egg.tuning<threads = [8, 8], block = [1, 32, 32], thread = [1, 4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%x: tensor<2x256x4096xf32>, %y: tensor<2x4096x256xf32>, %z: tensor<2x256x256xf32>):
    %m = linalg.batch_matmul ins(%x, %y : tensor<2x256x4096xf32>, tensor<2x4096x256xf32>) outs(%z : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
    egg.yield %m : tensor<2x256x256xf32>
  }
  return %r : tensor<2x256x256xf32>
}


// -----

// A decaying column sum (acc / 2 + x) cannot be recombined from slices.
func.func @col_decay(%a: tensor<4096x256xf32>) -> tensor<256xf32> {
  // expected-error @+1 {{reduce_two_stage combines the slices afterwards: the reduction's body must fold its value into the accumulator by an add, a maximum or a minimum}}
  %r = egg.kernel @col_decay_k0 ins(%a : tensor<4096x256xf32>) -> tensor<256xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 4>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
  ^bb0(%x: tensor<4096x256xf32>):
    %zero = arith.constant 0.0 : f32
    %half = arith.constant 0.5 : f32
    %e = tensor.empty() : tensor<256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %m = linalg.reduce ins(%x : tensor<4096x256xf32>) outs(%f : tensor<256xf32>) dimensions = [0]
      (%u: f32, %v: f32) {
        %d = arith.mulf %v, %half : f32
        %s = arith.addf %d, %u : f32
        linalg.yield %s : f32
      }
    egg.yield %m : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}

// -----

// The slices must divide the rows.
func.func @col_uneven(%a: tensor<1000x256xf32>) -> tensor<256xf32> {
  // expected-error @+1 {{reduce_two_stage: 16 slices do not divide the reduced loop = 1000 into slices of 16 or more}}
  %r = egg.kernel @col_uneven_k0 ins(%a : tensor<1000x256xf32>) -> tensor<256xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 16>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
  ^bb0(%x: tensor<1000x256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %m = linalg.reduce ins(%x : tensor<1000x256xf32>) outs(%f : tensor<256xf32>) dimensions = [0]
      (%u: f32, %v: f32) {
        %s = arith.addf %u, %v : f32
        linalg.yield %s : f32
      }
    egg.yield %m : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}

// -----

// A split column reduction must be one: a product splits as gemm_split_k.
func.func @product_as_columns(%a: tensor<64x1024xf32>, %b: tensor<1024x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{reduce_two_stage splits a column reduction: the kernel's anchor is not one}}
  %r = egg.kernel @product_as_columns_k0 ins(%a, %b, %c : tensor<64x1024xf32>, tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 2>,
                  tuning = #egg.tuning<threads = [8, 64], block = [1, 32], vector = 4>} {
  ^bb0(%x: tensor<64x1024xf32>, %y: tensor<1024x64xf32>, %z: tensor<64x64xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<64x1024xf32>, tensor<1024x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// At most 64 slices: the sum would read more partial results than the split
// saves.
func.func @too_many(%a: tensor<65536x256xf32>) -> tensor<256xf32> {
  // expected-error @+1 {{reduce_two_stage: 128 slices exceed 64}}
  %r = egg.kernel @too_many_k0 ins(%a : tensor<65536x256xf32>) -> tensor<256xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 128>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4>} {
  ^bb0(%x: tensor<65536x256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %m = linalg.reduce ins(%x : tensor<65536x256xf32>) outs(%f : tensor<256xf32>) dimensions = [0]
      (%u: f32, %v: f32) {
        %s = arith.addf %u, %v : f32
        linalg.yield %s : f32
      }
    egg.yield %m : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}

// -----

// A split kernel's partial results take its tuning less the slice loop: a
// cluster there would be dropped, so it is refused.
func.func @split_cluster(%x: tensor<65536x256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  // expected-error @+1 {{is split along its reduced loop and asks for cluster = 2: clusters are implemented for unsplit column reductions only}}
  %r = egg.kernel @split_cluster_k0 ins(%x, %f : tensor<65536x256xf32>, tensor<256xf32>) -> tensor<256xf32>
      attributes {structure = #egg.structure<reduce_two_stage, split_k = 16>,
                  tuning = #egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 2>} {
  ^bb0(%in: tensor<65536x256xf32>, %acc: tensor<256xf32>):
    %s = linalg.reduce ins(%in : tensor<65536x256xf32>) outs(%acc : tensor<256xf32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}
