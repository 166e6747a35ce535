// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// Decisions the column-reduction lowering cannot build get located errors
// from its legality check (docs/pipeline.md, "Column reductions").


func.func @case0(%x: tensor<1024x4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{reduce_two_stage takes threads = [block tile / vector, rows in flight] = [8, R]}}
  %r = egg.kernel @k ins(%x : tensor<1024x4096xf32>) -> tensor<4096xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [16, 16], block = [32], vector = 4>} {
  ^bb0(%a: tensor<1024x4096xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4096xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
    %s = linalg.reduce ins(%a : tensor<1024x4096xf32>) outs(%f : tensor<4096xf32>) dimensions = [0]
      (%u: f32, %w: f32) {
        %t = arith.addf %u, %w : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<4096xf32>
  }
  return %r : tensor<4096xf32>
}
// -----

func.func @case1(%x: tensor<1024x4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{block tile 48 does not divide the innermost loop of extent 4096}}
  %r = egg.kernel @k ins(%x : tensor<1024x4096xf32>) -> tensor<4096xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [12, 16], block = [48], vector = 4>} {
  ^bb0(%a: tensor<1024x4096xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4096xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
    %s = linalg.reduce ins(%a : tensor<1024x4096xf32>) outs(%f : tensor<4096xf32>) dimensions = [0]
      (%u: f32, %w: f32) {
        %t = arith.addf %u, %w : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<4096xf32>
  }
  return %r : tensor<4096xf32>
}
// -----

func.func @case2(%x: tensor<1024x4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{reduce_two_stage takes block tiles, threads and a vector width only}}
  %r = egg.kernel @k ins(%x : tensor<1024x4096xf32>) -> tensor<4096xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [8, 16], block = [32], thread = [4], vector = 4>} {
  ^bb0(%a: tensor<1024x4096xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4096xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
    %s = linalg.reduce ins(%a : tensor<1024x4096xf32>) outs(%f : tensor<4096xf32>) dimensions = [0]
      (%u: f32, %w: f32) {
        %t = arith.addf %u, %w : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<4096xf32>
  }
  return %r : tensor<4096xf32>
}
// -----

// Rows along the innermost loop are not columns.
func.func @rows(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{reduce_two_stage needs one reduction loop that is not innermost, inputs contiguous along the innermost loop and a result in loop order}}
  %r = egg.kernel @k ins(%x : tensor<64x4096xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [8, 16], block = [32], vector = 4>} {
  ^bb0(%a: tensor<64x4096xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    %s = linalg.reduce ins(%a : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
      (%u: f32, %w: f32) {
        %t = arith.addf %u, %w : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// Each parallel loop is a grid dimension: four are too many.
func.func @four_parallel_loops(%x: tensor<2x8x3x4x64xf32>) -> tensor<2x3x4x64xf32> {
  // expected-error @+1 {{reduce_two_stage spreads at most 3 parallel loops over the grid, got 4}}
  %r = egg.kernel @k ins(%x : tensor<2x8x3x4x64xf32>) -> tensor<2x3x4x64xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [16, 8], block = [1, 1, 1, 64], vector = 4>} {
  ^bb0(%a: tensor<2x8x3x4x64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x3x4x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
    %s = linalg.reduce ins(%a : tensor<2x8x3x4x64xf32>) outs(%f : tensor<2x3x4x64xf32>) dimensions = [1]
      (%u: f32, %w: f32) {
        %t = arith.addf %u, %w : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<2x3x4x64xf32>
  }
  return %r : tensor<2x3x4x64xf32>
}

// -----

// A value and its index (argmax) leave the kernel as reduced: an op after
// the reduction is refused.
func.func @indexed_epilogue(%x: tensor<512x4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{reduce_two_stage of a value and its index takes no ops after the reduction in its kernel}}
  %r = egg.kernel @k ins(%x : tensor<512x4096xf32>) -> tensor<4096xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [32, 8], block = [32]>} {
  ^bb0(%a: tensor<512x4096xf32>):
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<4096xf32>
    %best = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4096xf32>) -> tensor<4096xf32>
    %e1 = tensor.empty() : tensor<4096xf32>
    %at = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4096xf32>) -> tensor<4096xf32>
    %m:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<512x4096xf32>) outs(%best, %at : tensor<4096xf32>, tensor<4096xf32>) {
    ^bb0(%u: f32, %b: f32, %i: f32):
      %row = linalg.index 0 : index
      %row32 = arith.index_cast %row : index to i32
      %rowf = arith.uitofp %row32 : i32 to f32
      %gt = arith.cmpf ogt, %u, %b : f32
      %v = arith.select %gt, %u, %b : f32
      %j = arith.select %gt, %rowf, %i : f32
      linalg.yield %v, %j : f32, f32
    } -> (tensor<4096xf32>, tensor<4096xf32>)
    %e2 = tensor.empty() : tensor<4096xf32>
    %d = linalg.add ins(%m#1, %m#1 : tensor<4096xf32>, tensor<4096xf32>) outs(%e2 : tensor<4096xf32>) -> tensor<4096xf32>
    egg.yield %d : tensor<4096xf32>
  }
  return %r : tensor<4096xf32>
}

// -----

// Nor does it take a cluster (the cluster's combine carries one value).
func.func @indexed_cluster(%x: tensor<512x4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{reduce_two_stage of a value and its index takes no cluster}}
  %r = egg.kernel @k ins(%x : tensor<512x4096xf32>) -> tensor<4096xf32>
      attributes {structure = #egg.structure<reduce_two_stage>,
                  tuning = #egg.tuning<threads = [32, 8], block = [32], cluster = 2>} {
  ^bb0(%a: tensor<512x4096xf32>):
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<4096xf32>
    %best = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4096xf32>) -> tensor<4096xf32>
    %e1 = tensor.empty() : tensor<4096xf32>
    %at = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4096xf32>) -> tensor<4096xf32>
    %m:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<512x4096xf32>) outs(%best, %at : tensor<4096xf32>, tensor<4096xf32>) {
    ^bb0(%u: f32, %b: f32, %i: f32):
      %row = linalg.index 0 : index
      %row32 = arith.index_cast %row : index to i32
      %rowf = arith.uitofp %row32 : i32 to f32
      %gt = arith.cmpf ogt, %u, %b : f32
      %v = arith.select %gt, %u, %b : f32
      %j = arith.select %gt, %rowf, %i : f32
      linalg.yield %v, %j : f32, f32
    } -> (tensor<4096xf32>, tensor<4096xf32>)
    egg.yield %m#1 : tensor<4096xf32>
  }
  return %r : tensor<4096xf32>
}
