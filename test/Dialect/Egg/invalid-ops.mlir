// RUN: egg-opt %s -split-input-file -verify-diagnostics

// Every verifier message of egg.kernel, egg.yield and the dialect attributes.

// expected-error @+1 {{'egg.target' must be an #egg.target attribute, got "sm_90a"}}
module attributes {egg.target = "sm_90a"} {}

// -----

// expected-error @+1 {{unknown egg attribute 'egg.bogus'}}
module attributes {egg.bogus = 1} {}

// -----

// expected-error @+1 {{'egg.rationale' must be a dictionary of strings}}
module attributes {egg.rationale = {structure = 1}} {}

// -----

// expected-error @+1 {{'egg.decided_by' must be a dictionary of dictionaries that each name an agent}}
module attributes {egg.decided_by = {tuning = {model = "m"}}} {}

// -----

func.func @tuning_without_linalg(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has a tuning attribute but no tileable op to apply it to}}
  %r = egg.kernel @k ins(%x : tensor<4xf32>) -> tensor<4xf32>
      attributes {tuning = #egg.tuning<threads = [32], block = [4]>} {
  ^bb0(%a: tensor<4xf32>):
    egg.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @gemm_on_elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{structure gemm_direct needs a contraction (matmul-like) anchor op}}
  %r = egg.kernel @k ins(%x : tensor<4xf32>) -> tensor<4xf32>
      attributes {structure = #egg.structure<gemm_direct>} {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %n = linalg.negf ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    egg.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @conv_on_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{structure conv_implicit_gemm needs a convolution anchor op}}
  %r = egg.kernel @k ins(%a, %b, %c : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>} {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>, %z: tensor<8x8xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    egg.yield %m : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

module attributes {egg.target = #egg.target<chip = "sm_90a", name = "small", sm_count = 1, warp_size = 32, max_threads_per_block = 256, shared_memory_per_block = 1024, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 1, dram_gbps = 1, fp32_gflops = 1, tensor_gflops = 1>} {
  func.func @too_many_threads(%x: tensor<512xf32>) -> tensor<512xf32> {
    // expected-error @+1 {{tuning asks for 512 threads per block but the target allows 256}}
    %r = egg.kernel @k ins(%x : tensor<512xf32>) -> tensor<512xf32>
        attributes {tuning = #egg.tuning<threads = [512], block = [512]>} {
    ^bb0(%a: tensor<512xf32>):
      %e = tensor.empty() : tensor<512xf32>
      %n = linalg.negf ins(%a : tensor<512xf32>) outs(%e : tensor<512xf32>) -> tensor<512xf32>
      egg.yield %n : tensor<512xf32>
    }
    return %r : tensor<512xf32>
  }
}

// -----

module attributes {egg.target = #egg.target<chip = "sm_90a", name = "small", sm_count = 1, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 16384, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 1, dram_gbps = 1, fp32_gflops = 1, tensor_gflops = 1>} {
  func.func @too_much_shared(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
    // 128x32 + 32x128 floats, three stages: 96 KiB.
    // expected-error @+1 {{tuning needs 98304 bytes of shared memory per block but sm_90a allows 16384}}
    %r = egg.kernel @k ins(%a, %b, %c : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
        attributes {tuning = #egg.tuning<threads = [256], block = [128, 128], reduction = [32], shared = [0, 1], copy = cp_async, pipeline = 3>} {
    ^bb0(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>, %z: tensor<256x256xf32>):
      %m = linalg.matmul ins(%x, %y : tensor<256x256xf32>, tensor<256x256xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
      egg.yield %m : tensor<256x256xf32>
    }
    return %r : tensor<256x256xf32>
  }
}

// -----

func.func @block_tile_too_long(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{block tile has 3 entries but the root op has 2 parallel loops}}
  %r = egg.kernel @k ins(%a, %b, %c : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      attributes {tuning = #egg.tuning<threads = [64], block = [8, 8, 8]>} {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>, %z: tensor<8x8xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    egg.yield %m : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @reduction_tile_too_long(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{reduction tile has 2 entries but the anchor op has 1 reduction loops}}
  %r = egg.kernel @k ins(%a, %b, %c : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      attributes {tuning = #egg.tuning<threads = [64], block = [8, 8], reduction = [4, 4]>} {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>, %z: tensor<8x8xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    egg.yield %m : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @shared_operand_out_of_range(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{shared operand 3 is out of range: the anchor op has 3 operands}}
  %r = egg.kernel @k ins(%a, %b, %c : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      attributes {tuning = #egg.tuning<threads = [64], block = [8, 8], shared = [3]>} {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>, %z: tensor<8x8xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    egg.yield %m : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @shared_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{shared-memory promotion needs static loop ranges}}
  %r = egg.kernel @k ins(%a, %b, %c : tensor<?x8xf32>, tensor<8x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
      attributes {tuning = #egg.tuning<threads = [64], block = [8, 8], shared = [0]>} {
  ^bb0(%x: tensor<?x8xf32>, %y: tensor<8x8xf32>, %z: tensor<?x8xf32>):
    %m = linalg.matmul ins(%x, %y : tensor<?x8xf32>, tensor<8x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
    egg.yield %m : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @shared_on_softmax(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{shared-memory promotion needs a structured linalg anchor op}}
  %r = egg.kernel @k ins(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
      attributes {tuning = #egg.tuning<threads = [64], block = [8], shared = [0]>} {
  ^bb0(%x: tensor<8x8xf32>):
    %e = tensor.empty() : tensor<8x8xf32>
    %s = linalg.softmax dimension(1) ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    egg.yield %s : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @shared_of_index(%a: tensor<8xindex>) -> tensor<8xindex> {
  // expected-error @+1 {{cannot size a shared tile of 'index'}}
  %r = egg.kernel @k ins(%a : tensor<8xindex>) -> tensor<8xindex>
      attributes {tuning = #egg.tuning<threads = [64], block = [8], shared = [0]>} {
  ^bb0(%x: tensor<8xindex>):
    %e = tensor.empty() : tensor<8xindex>
    %c = linalg.copy ins(%x : tensor<8xindex>) outs(%e : tensor<8xindex>) -> tensor<8xindex>
    egg.yield %c : tensor<8xindex>
  }
  return %r : tensor<8xindex>
}

// -----

func.func @arg_count(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{body has 0 arguments but the kernel has 1 inputs}}
  %r = "egg.kernel"(%a) <{sym_name = "k"}> ({
    %e = tensor.empty() : tensor<8xf32>
    "egg.yield"(%e) : (tensor<8xf32>) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @arg_type(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{body argument 0 has type 'tensor<8xf16>' but input 0 has type 'tensor<8xf32>'}}
  %r = "egg.kernel"(%a) <{sym_name = "k"}> ({
  ^bb0(%x: tensor<8xf16>):
    %e = tensor.empty() : tensor<8xf32>
    "egg.yield"(%e) : (tensor<8xf32>) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @yield_types(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = egg.kernel @k ins(%a : tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8xf32>):
    %e = tensor.empty() : tensor<4xf32>
    // expected-error @+1 {{yields types 'tensor<4xf32>' that differ from the kernel's result types 'tensor<8xf32>'}}
    egg.yield %e : tensor<4xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @nested(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = egg.kernel @outer ins(%a : tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8xf32>):
    // expected-error @+1 {{cannot be nested in another egg.kernel}}
    %i = egg.kernel @inner ins(%x : tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%y: tensor<8xf32>):
      egg.yield %y : tensor<8xf32>
    }
    egg.yield %i : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @yield_outside() {
  // expected-error @+1 {{expects parent op to be one of 'egg.kernel, egg.recurrence'}}
  egg.yield
}

// -----

// expected-error @+1 {{'egg.structure' must be an #egg.structure attribute}}
func.func private @k() attributes {egg.structure = 1}

// -----

// expected-error @+1 {{'egg.tuning' must be an #egg.tuning attribute}}
func.func private @k() attributes {egg.tuning = #egg.structure<gemm_direct>}

// -----

// A shared-memory footprint that does not fit in 64 bits saturates and is
// rejected (regression: UBSan found the overflow).
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
  func.func @huge(%a: tensor<4611686018427387904x4611686018427387904xf32>, %b: tensor<4611686018427387904x8xf32>, %c: tensor<4611686018427387904x8xf32>) -> tensor<4611686018427387904x8xf32> {
    // expected-error @+1 {{tuning needs 9223372036854775807 bytes of shared memory per block but sm_90a allows 232448}}
    %r = egg.kernel @k ins(%a, %b, %c : tensor<4611686018427387904x4611686018427387904xf32>, tensor<4611686018427387904x8xf32>, tensor<4611686018427387904x8xf32>) -> tensor<4611686018427387904x8xf32>
        attributes {tuning = #egg.tuning<threads = [64], block = [0, 0], shared = [0, 1], copy = cp_async, pipeline = 8>} {
    ^bb0(%x: tensor<4611686018427387904x4611686018427387904xf32>, %y: tensor<4611686018427387904x8xf32>, %z: tensor<4611686018427387904x8xf32>):
      %m = linalg.matmul ins(%x, %y : tensor<4611686018427387904x4611686018427387904xf32>, tensor<4611686018427387904x8xf32>) outs(%z : tensor<4611686018427387904x8xf32>) -> tensor<4611686018427387904x8xf32>
      egg.yield %m : tensor<4611686018427387904x8xf32>
    }
    return %r : tensor<4611686018427387904x8xf32>
  }
}

// -----

func.func @padded_view_shape(%x: memref<4x4xf32>) {
  // expected-error @+1 {{result type must be 'memref<6x4xf32, strided<[4, 1], offset: ?>>' (the padded shape, the source's strides and a dynamic offset)}}
  %v = egg.padded_view %x low [1, 0] high [1, 0] : memref<4x4xf32> to memref<6x6xf32, strided<[4, 1], offset: ?>>
  return
}

// -----

func.func @padded_view_negative(%x: memref<4xf32>) {
  // expected-error @+1 {{takes non-negative padding}}
  %v = egg.padded_view %x low [-1] high [1] : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  return
}

// -----

func.func @padded_view_rank(%x: memref<4xf32>) {
  // expected-error @+1 {{needs a static source with static strides and 1 low and high paddings}}
  %v = egg.padded_view %x low [1, 1] high [1, 1] : memref<4xf32> to memref<6xf32, strided<[1], offset: ?>>
  return
}

// -----

func.func @scan_shape(%x: tensor<8x100xf32>, %e: tensor<8x99xf32>) {
  // expected-error @+1 {{takes an init of the input's shape and element type, got 'tensor<8x99xf32>' for 'tensor<8x100xf32>'}}
  %s = egg.scan add %x into %e : tensor<8x100xf32>, tensor<8x99xf32> -> tensor<8x99xf32>
  return
}

// -----

func.func @scan_mixed(%x: tensor<8x100xf32>, %e: memref<8x100xf32>) {
  // expected-error @+1 {{takes an input and an init that are both tensors or both buffers}}
  egg.scan add %x into %e : tensor<8x100xf32>, memref<8x100xf32>
  return
}

// -----

func.func @scan_result(%x: memref<8x100xf32>, %e: memref<8x100xf32>) {
  // expected-error @+1 {{on buffers returns nothing}}
  %s = egg.scan add %x into %e : memref<8x100xf32>, memref<8x100xf32> -> tensor<8x100xf32>
  return
}

// -----

func.func @recurrence_weight(%x: tensor<5x2x12xf32>, %w: tensor<4x10xf32>, %b: tensor<12xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{weight must be [H, G*H], got 'tensor<4x10xf32>'}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x12xf32>, tensor<4x10xf32>, tensor<12xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b2: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_input(%x: tensor<5x2x8xf32>, %w: tensor<4x12xf32>, %b: tensor<12xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{input must be [T, B, G*H] = [5, 2, 12], got 'tensor<5x2x8xf32>'}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x8xf32>, tensor<4x12xf32>, tensor<12xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %c: f32, %d: f32, %e: f32, %g: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_bias(%x: tensor<5x2x12xf32>, %w: tensor<4x12xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{bias must be [G*H] = [12], got 'tensor<4xf32>'}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x12xf32>, tensor<4x12xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %c: f32, %d: f32, %e: f32, %g: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_sequence(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<4x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{sequence must be [T, B, H] = [5, 2, 4], got 'tensor<4x2x4xf32>'}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<4x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<4x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_states(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{takes one or more initial states and as many finals, got 1 and 2}}
  %r:3 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f, %f : tensor<5x2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_state_shape(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<3x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{states must be [B, H] = [2, 4], got 'tensor<3x4xf32>'}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_rank(%x: tensor<10x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{input must have rank 3, got 'tensor<10x4xf32>'}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<10x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_mixed(%x: tensor<5x2x4xf32>, %w: memref<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{takes operands that are all tensors or all buffers}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, memref<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_results(%x: memref<5x2x4xf32>, %w: memref<4x4xf32>, %b: memref<4xf32>, %h0: memref<2x4xf32>, %s: memref<5x2x4xf32>, %f: memref<2x4xf32>) {
  // expected-error @+1 {{on buffers returns nothing}}
  %r = egg.recurrence ins(%x, %w, %b, %h0 : memref<5x2x4xf32>, memref<4x4xf32>, memref<4xf32>, memref<2x4xf32>)
      outs(%s, %f : memref<5x2x4xf32>, memref<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_result_types(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{on tensors returns the sequence and the final states, of their inits' types}}
  %r = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>
  return
}

// -----

func.func @recurrence_cell_arguments(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{cell takes 3 f32 arguments (1 input gates, 1 hidden gates, 1 states), got 2}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %h: f32):
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_cell_yield(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{cell yields the 1 new states as f32}}
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    egg.yield %h, %a : f32, f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @recurrence_cell_op(%x: tensor<5x2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %h0: tensor<2x4xf32>) {
  %s = tensor.empty() : tensor<5x2x4xf32>
  %f = tensor.empty() : tensor<2x4xf32>
  %r:2 = egg.recurrence ins(%x, %w, %b, %h0 : tensor<5x2x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
      outs(%s, %f : tensor<5x2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b1: f32, %h: f32):
    // expected-error @+1 {{cannot be in a recurrence's cell: it holds scalar ops alone}}
    %t = tensor.empty() : tensor<4xf32>
    egg.yield %h : f32
  } -> tensor<5x2x4xf32>, tensor<2x4xf32>
  return
}
