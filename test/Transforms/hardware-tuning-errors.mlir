// RUN: egg-opt %s -egg-attach-target -egg-hardware-tuning -verify-diagnostics

// A kernel with nothing to tile gets a located error from the expert.
module {
  func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{kernel has no tileable op}}
    %r = egg.kernel @nothing_k0 ins(%x : tensor<4xf32>) -> tensor<4xf32>
        attributes {structure = #egg.structure<elementwise_flat>} {
    ^bb0(%a: tensor<4xf32>):
      egg.yield %a : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
}
