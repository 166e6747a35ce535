// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// Legality of maps staged through shared memory (elementwise_flat with
// `shared`; tuning principle 11): one diagnostic per rule.

func.func @not_transposed(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{shared operand 0 is not an input the map reads across its results' innermost loop (staged inputs: [])}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %n = linalg.exp ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %n : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @two_ops(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{inputs are staged through shared memory for kernels of one op only}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    %n = linalg.exp ins(%t : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %n : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @vector_too_wide(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{vector = 8 of 'f32' exceeds 16-byte accesses}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1, vector = 8>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @vector_across_tile(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{vector = 8 does not divide the block tile 4 of the innermost loop}}
  %r = egg.kernel @k ins(%x : tensor<64x64xbf16>) -> tensor<64x64xbf16>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32], block = [64, 4], shared = [0], padding = 1, vector = 8>} {
  ^bb0(%a: tensor<64x64xbf16>):
    %e = tensor.empty() : tensor<64x64xbf16>
    %t = linalg.transpose ins(%a : tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xbf16>
  }
  return %r : tensor<64x64xbf16>
}

// -----

func.func @vector_threads(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{1024 threads do not divide the block's 512 vectors of 8}}
  %r = egg.kernel @k ins(%x : tensor<64x64xbf16>) -> tensor<64x64xbf16>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [1024], block = [64, 64], shared = [0], padding = 1, vector = 8>} {
  ^bb0(%a: tensor<64x64xbf16>):
    %e = tensor.empty() : tensor<64x64xbf16>
    %t = linalg.transpose ins(%a : tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xbf16>
  }
  return %r : tensor<64x64xbf16>
}

// -----

func.func @thread_tile(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{a map staged through shared memory takes block tiles, threads, shared inputs and padding only}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [64, 64], thread = [4, 4], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @async_copy(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{a map staged through shared memory copies with plain loads and stores (copy = sync, pipeline = 1, no swizzle)}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1, copy = cp_async>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @partial_tile(%x: tensor<64x96xf32>) -> tensor<96x64xf32> {
  // expected-error @+1 {{block tile 64 does not divide loop 0 of extent 96 (the generic lowering needs whole tiles)}}
  %r = egg.kernel @k ins(%x : tensor<64x96xf32>) -> tensor<96x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [64, 64], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<64x96xf32>):
    %e = tensor.empty() : tensor<96x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x96xf32>) outs(%e : tensor<96x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<96x64xf32>
  }
  return %r : tensor<96x64xf32>
}

// -----

func.func @not_warps(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{100 threads: a staged map takes whole warps, at most 1024 threads}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [100], block = [64, 64], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @uneven(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{768 threads do not divide the block's 1024 elements}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [768], block = [32, 32], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @too_big(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{the staged tiles need 66048 bytes of shared memory; a block may have 49152}}
  %r = egg.kernel @k ins(%x : tensor<256x256xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [128, 128], shared = [0], padding = 1>} {
  ^bb0(%a: tensor<256x256xf32>):
    %e = tensor.empty() : tensor<256x256xf32>
    %t = linalg.transpose ins(%a : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) permutation = [1, 0]
    egg.yield %t : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
