// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// Decisions the recurrence lowering cannot build get located errors from its
// legality check (docs/pipeline.md, "Recurrences").

func.func @structure(%x: tensor<3x4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %h0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{a recurrence kernel takes the recurrence_block structure}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32], block = [2]>} {
  ^bb0(%ax: tensor<3x4x8xf32>, %aw: tensor<8x8xf32>, %ab: tensor<8xf32>, %ah: tensor<4x8xf32>):
    %s = tensor.empty() : tensor<3x4x8xf32>
    %f = tensor.empty() : tensor<4x8xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>)
        outs(%s, %f : tensor<3x4x8xf32>, tensor<4x8xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x4x8xf32>, tensor<4x8xf32>
    egg.yield %y#1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @other_tiles(%x: tensor<3x4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %h0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{recurrence_block takes a block tile, threads and a cluster only}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [32], block = [2], thread = [1]>} {
  ^bb0(%ax: tensor<3x4x8xf32>, %aw: tensor<8x8xf32>, %ab: tensor<8xf32>, %ah: tensor<4x8xf32>):
    %s = tensor.empty() : tensor<3x4x8xf32>
    %f = tensor.empty() : tensor<4x8xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>)
        outs(%s, %f : tensor<3x4x8xf32>, tensor<4x8xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x4x8xf32>, tensor<4x8xf32>
    egg.yield %y#1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @block_tile(%x: tensor<3x4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %h0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{recurrence_block takes block = [rows per block], a divisor of the batch of 4}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [32], block = [3]>} {
  ^bb0(%ax: tensor<3x4x8xf32>, %aw: tensor<8x8xf32>, %ab: tensor<8xf32>, %ah: tensor<4x8xf32>):
    %s = tensor.empty() : tensor<3x4x8xf32>
    %f = tensor.empty() : tensor<4x8xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>)
        outs(%s, %f : tensor<3x4x8xf32>, tensor<4x8xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x4x8xf32>, tensor<4x8xf32>
    egg.yield %y#1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @sums(%x: tensor<3x20x32xf32>, %w: tensor<8x32xf32>, %b: tensor<32xf32>, %h0: tensor<20x8xf32>) -> tensor<20x8xf32> {
  // expected-error @+1 {{a thread holds rows per block x gates = 80 sums, at most 64}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x20x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<20x8xf32>) -> tensor<20x8xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [32], block = [20]>} {
  ^bb0(%ax: tensor<3x20x32xf32>, %aw: tensor<8x32xf32>, %ab: tensor<32xf32>, %ah: tensor<20x8xf32>):
    %s = tensor.empty() : tensor<3x20x8xf32>
    %f = tensor.empty() : tensor<20x8xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x20x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<20x8xf32>)
        outs(%s, %f : tensor<3x20x8xf32>, tensor<20x8xf32>) {
    ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %x4: f32, %x5: f32, %x6: f32, %x7: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x20x8xf32>, tensor<20x8xf32>
    egg.yield %y#1 : tensor<20x8xf32>
  }
  return %r : tensor<20x8xf32>
}

// -----

func.func @shared(%x: tensor<3x8x2048xf32>, %w: tensor<2048x2048xf32>, %b: tensor<2048xf32>, %h0: tensor<8x2048xf32>) -> tensor<8x2048xf32> {
  // expected-error @+1 {{the block's hidden states and partial sums take 65536 bytes of shared memory, more than 49152}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x8x2048xf32>, tensor<2048x2048xf32>, tensor<2048xf32>, tensor<8x2048xf32>) -> tensor<8x2048xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [256], block = [8]>} {
  ^bb0(%ax: tensor<3x8x2048xf32>, %aw: tensor<2048x2048xf32>, %ab: tensor<2048xf32>, %ah: tensor<8x2048xf32>):
    %s = tensor.empty() : tensor<3x8x2048xf32>
    %f = tensor.empty() : tensor<8x2048xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x8x2048xf32>, tensor<2048x2048xf32>, tensor<2048xf32>, tensor<8x2048xf32>)
        outs(%s, %f : tensor<3x8x2048xf32>, tensor<8x2048xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x8x2048xf32>, tensor<8x2048xf32>
    egg.yield %y#1 : tensor<8x2048xf32>
  }
  return %r : tensor<8x2048xf32>
}

// -----

module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @cluster_units(%x: tensor<3x4x6xf32>, %w: tensor<6x6xf32>, %b: tensor<6xf32>, %h0: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{cluster = 4 must divide the 6 units into equal slices, at most 8 blocks}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x4x6xf32>, tensor<6x6xf32>, tensor<6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [32], block = [2], cluster = 4>} {
  ^bb0(%ax: tensor<3x4x6xf32>, %aw: tensor<6x6xf32>, %ab: tensor<6xf32>, %ah: tensor<4x6xf32>):
    %s = tensor.empty() : tensor<3x4x6xf32>
    %f = tensor.empty() : tensor<4x6xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x4x6xf32>, tensor<6x6xf32>, tensor<6xf32>, tensor<4x6xf32>)
        outs(%s, %f : tensor<3x4x6xf32>, tensor<4x6xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x4x6xf32>, tensor<4x6xf32>
    egg.yield %y#1 : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}
}

// -----

func.func @slices(%x: tensor<3x4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %h0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{24 threads for 8 units per block: more threads than units must split k (8) into equal slices, threads = units per block x slices}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [24], block = [2]>} {
  ^bb0(%ax: tensor<3x4x8xf32>, %aw: tensor<8x8xf32>, %ab: tensor<8xf32>, %ah: tensor<4x8xf32>):
    %s = tensor.empty() : tensor<3x4x8xf32>
    %f = tensor.empty() : tensor<4x8xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>)
        outs(%s, %f : tensor<3x4x8xf32>, tensor<4x8xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x4x8xf32>, tensor<4x8xf32>
    egg.yield %y#1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

module attributes {egg.target = #egg.target<chip = "sm_80", name = "A100", sm_count = 108, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 166912, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 41943040, dram_gbps = 1555, fp32_gflops = 19500, tensor_gflops = 312000>} {
func.func @cluster_sm80(%x: tensor<3x4x6xf32>, %w: tensor<6x6xf32>, %b: tensor<6xf32>, %h0: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{cluster = 2 needs thread-block clusters (sm_90 or later)}}
  %r = egg.kernel @k ins(%x, %w, %b, %h0 : tensor<3x4x6xf32>, tensor<6x6xf32>, tensor<6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
      attributes {structure = #egg.structure<recurrence_block>,
                  tuning = #egg.tuning<threads = [32], block = [2], cluster = 2>} {
  ^bb0(%ax: tensor<3x4x6xf32>, %aw: tensor<6x6xf32>, %ab: tensor<6xf32>, %ah: tensor<4x6xf32>):
    %s = tensor.empty() : tensor<3x4x6xf32>
    %f = tensor.empty() : tensor<4x6xf32>
    %y:2 = egg.recurrence ins(%ax, %aw, %ab, %ah : tensor<3x4x6xf32>, tensor<6x6xf32>, tensor<6xf32>, tensor<4x6xf32>)
        outs(%s, %f : tensor<3x4x6xf32>, tensor<4x6xf32>) {
    ^bb0(%x0: f32, %x1: f32, %h: f32):
      egg.yield %h : f32
    } -> tensor<3x4x6xf32>, tensor<4x6xf32>
    egg.yield %y#1 : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}
}
