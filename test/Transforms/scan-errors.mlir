// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// Decisions the scan lowering cannot build get located errors from its
// legality check (docs/pipeline.md, "Scans").

func.func @warp_tile(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  // expected-error @+1 {{a warp scans one row: warp tile 1 on every row loop, got 2}}
  %r = egg.kernel @k ins(%x : tensor<64x4096xf32>) -> tensor<64x4096xf32>
      attributes {structure = #egg.structure<scan_warp>,
                  tuning = #egg.tuning<threads = [128], block = [8], warp = [2], vector = 4>} {
  ^bb0(%a: tensor<64x4096xf32>):
    %e = tensor.empty() : tensor<64x4096xf32>
    %s = egg.scan add %a into %e : tensor<64x4096xf32>, tensor<64x4096xf32> -> tensor<64x4096xf32>
    egg.yield %s : tensor<64x4096xf32>
  }
  return %r : tensor<64x4096xf32>
}

// -----

func.func @block_tile(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  // expected-error @+1 {{block tile 3 does not divide row loop 0 of extent 64}}
  %r = egg.kernel @k ins(%x : tensor<64x4096xf32>) -> tensor<64x4096xf32>
      attributes {structure = #egg.structure<scan_warp>,
                  tuning = #egg.tuning<threads = [96], block = [3], warp = [1], vector = 4>} {
  ^bb0(%a: tensor<64x4096xf32>):
    %e = tensor.empty() : tensor<64x4096xf32>
    %s = egg.scan add %a into %e : tensor<64x4096xf32>, tensor<64x4096xf32> -> tensor<64x4096xf32>
    egg.yield %s : tensor<64x4096xf32>
  }
  return %r : tensor<64x4096xf32>
}

// -----

func.func @vector(%x: tensor<64x4094xf32>) -> tensor<64x4094xf32> {
  // expected-error @+1 {{vector = 4 does not divide the row of 4094}}
  %r = egg.kernel @k ins(%x : tensor<64x4094xf32>) -> tensor<64x4094xf32>
      attributes {structure = #egg.structure<scan_warp>,
                  tuning = #egg.tuning<threads = [32], block = [1], warp = [1], vector = 4>} {
  ^bb0(%a: tensor<64x4094xf32>):
    %e = tensor.empty() : tensor<64x4094xf32>
    %s = egg.scan add %a into %e : tensor<64x4094xf32>, tensor<64x4094xf32> -> tensor<64x4094xf32>
    egg.yield %s : tensor<64x4094xf32>
  }
  return %r : tensor<64x4094xf32>
}

// -----

func.func @structure(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  // expected-error @+1 {{a scan kernel takes the scan_warp structure}}
  %r = egg.kernel @k ins(%x : tensor<64x4096xf32>) -> tensor<64x4096xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32], block = [1], thread = [1]>} {
  ^bb0(%a: tensor<64x4096xf32>):
    %e = tensor.empty() : tensor<64x4096xf32>
    %s = egg.scan add %a into %e : tensor<64x4096xf32>, tensor<64x4096xf32> -> tensor<64x4096xf32>
    egg.yield %s : tensor<64x4096xf32>
  }
  return %r : tensor<64x4096xf32>
}
