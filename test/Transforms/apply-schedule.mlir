// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics | FileCheck %s

// A kernel becomes a private function with the decisions attached, tiled
// into a block loop and a thread loop, and a call where it was.

// CHECK-LABEL: func.func private @f_k0
// CHECK-SAME: egg.structure = #egg.structure<elementwise_flat>
// CHECK-SAME: egg.tuning = #egg.tuning<threads = [32, 2], block = [4, 32], thread = [2, 1]>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 2)
// CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (2, 32)
// CHECK:     linalg.generic
// CHECK:   } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK-LABEL: func.func @f
// CHECK-SAME: bufferization.writable = false
// CHECK: %[[R:.*]] = call @f_k0(%{{.*}}) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: return %[[R]]
func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = egg.kernel @f_k0 ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32, 2], block = [4, 32], thread = [2, 1]>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %n = linalg.exp ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %n : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @undecided(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{has no tuning: run the decision stages (egg-algorithm-structure, egg-hardware-tuning) first}}
  %r = egg.kernel @k ins(%x : tensor<64xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<elementwise_flat>} {
  ^bb0(%a: tensor<64xf32>):
    %e = tensor.empty() : tensor<64xf32>
    %n = linalg.exp ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    egg.yield %n : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// A block tile that does not divide its loop: tiles of that size, the last
// one clipped (affine.min), and thread tiles of the clipped block (each 0
// or 1 element here: threads past the end get an empty tile).
// CHECK-LABEL: func.func private @partial_tile_k
// CHECK: scf.forall (%[[B:.*]]) in (2)
// CHECK: %[[SIZE:.*]] = affine.min #{{.*}}(%{{.*}})
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}] [%[[SIZE]]] [1] : tensor<100xf32> to tensor<?xf32>
// CHECK: scf.forall (%{{.*}}) in (64)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?xf32>)
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>]}
func.func @partial_tile(%x: tensor<100xf32>) -> tensor<100xf32> {
  %r = egg.kernel @partial_tile_k ins(%x : tensor<100xf32>) -> tensor<100xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [64], block = [64], thread = [1]>} {
  ^bb0(%a: tensor<100xf32>):
    %e = tensor.empty() : tensor<100xf32>
    %n = linalg.exp ins(%a : tensor<100xf32>) outs(%e : tensor<100xf32>) -> tensor<100xf32>
    egg.yield %n : tensor<100xf32>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @partial_tile_vector(%x: tensor<100xf32>) -> tensor<100xf32> {
  // expected-error @+1 {{block tile 64 does not divide loop 0 of extent 100: a partial last tile takes scalar accesses (vector = 1)}}
  %r = egg.kernel @k ins(%x : tensor<100xf32>) -> tensor<100xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [16], block = [64], thread = [4], vector = 4>} {
  ^bb0(%a: tensor<100xf32>):
    %e = tensor.empty() : tensor<100xf32>
    %n = linalg.exp ins(%a : tensor<100xf32>) outs(%e : tensor<100xf32>) -> tensor<100xf32>
    egg.yield %n : tensor<100xf32>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @wrong_threads(%x: tensor<128xf32>) -> tensor<128xf32> {
  // expected-error @+1 {{threads [32] do not match the [64] threads that the block and thread tiles imply}}
  %r = egg.kernel @k ins(%x : tensor<128xf32>) -> tensor<128xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32], block = [64], thread = [1]>} {
  ^bb0(%a: tensor<128xf32>):
    %e = tensor.empty() : tensor<128xf32>
    %n = linalg.exp ins(%a : tensor<128xf32>) outs(%e : tensor<128xf32>) -> tensor<128xf32>
    egg.yield %n : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}

// -----

#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @split_row(%x: tensor<8x64xf32>, %acc: tensor<8xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{loop 1 is a row that the kernel's reductions run along: it cannot be tiled}}
  %r = egg.kernel @k ins(%x, %acc : tensor<8x64xf32>, tensor<8xf32>) -> tensor<8x64xf32>
      attributes {structure = #egg.structure<reduce_serial>,
                  tuning = #egg.tuning<threads = [8, 8], block = [8, 8], thread = [1, 1]>} {
  ^bb0(%a: tensor<8x64xf32>, %c: tensor<8xf32>):
    %s = linalg.reduce ins(%a : tensor<8x64xf32>) outs(%c : tensor<8xf32>) dimensions = [1]
      (%in: f32, %o: f32) {
        %t = arith.addf %in, %o : f32
        linalg.yield %t : f32
      }
    %e = tensor.empty() : tensor<8x64xf32>
    %y = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]}
        ins(%a, %s : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
    ^bb0(%v: f32, %m: f32, %o: f32):
      %d = arith.subf %v, %m : f32
      linalg.yield %d : f32
    } -> tensor<8x64xf32>
    egg.yield %y : tensor<8x64xf32>
  }
  return %r : tensor<8x64xf32>
}

// -----

func.func @thread_not_dividing(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  // expected-error @+1 {{thread tile 3 does not divide 64 in loop 1}}
  %r = egg.kernel @k ins(%x : tensor<2x64xf32>) -> tensor<2x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [22], block = [1, 0], thread = [1, 3]>} {
  ^bb0(%a: tensor<2x64xf32>):
    %e = tensor.empty() : tensor<2x64xf32>
    %n = linalg.exp ins(%a : tensor<2x64xf32>) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
    egg.yield %n : tensor<2x64xf32>
  }
  return %r : tensor<2x64xf32>
}

// -----

func.func @no_block_loop(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{the block tile tiles no loop: a kernel needs at least one block loop}}
  %r = egg.kernel @k ins(%x : tensor<64xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [64], block = [0], thread = [1]>} {
  ^bb0(%a: tensor<64xf32>):
    %e = tensor.empty() : tensor<64xf32>
    %n = linalg.exp ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    egg.yield %n : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// A pad becomes an elementwise gather: clamped source index, select.
// CHECK-LABEL: func.func private @pad_k0
// CHECK: scf.forall
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK: arith.minsi
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK-NOT: tensor.pad
func.func @pad(%x: tensor<4xf32>) -> tensor<6xf32> {
  %r = egg.kernel @pad_k0 ins(%x : tensor<4xf32>) -> tensor<6xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [6], block = [6], thread = [1]>} {
  ^bb0(%a: tensor<4xf32>):
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[1] high[1] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<4xf32> to tensor<6xf32>
    egg.yield %p : tensor<6xf32>
  }
  return %r : tensor<6xf32>
}

// -----

func.func @vector_on_reduction(%x: tensor<8x64xf32>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{vector accesses are implemented for elementwise kernels only}}
  %r = egg.kernel @k ins(%x, %acc : tensor<8x64xf32>, tensor<8xf32>) -> tensor<8xf32>
      attributes {structure = #egg.structure<reduce_serial>,
                  tuning = #egg.tuning<threads = [2], block = [8], thread = [4], vector = 4>} {
  ^bb0(%a: tensor<8x64xf32>, %c: tensor<8xf32>):
    %s = linalg.reduce ins(%a : tensor<8x64xf32>) outs(%c : tensor<8xf32>) dimensions = [1]
      (%in: f32, %o: f32) {
        %t = arith.addf %in, %o : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @vector_transposed(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{operand 0 is not contiguous along the innermost loop: vector accesses need it to be}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [16, 64], block = [64, 64], thread = [1, 4], vector = 4>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
    egg.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// A fixed index into a dimension of several elements (a select) has no
// vector form.
func.func @vector_fixed_index(%x: tensor<16x8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{operand 0 is read at a fixed index of dimension 0: vector accesses need every dimension indexed by a loop}}
  %r = egg.kernel @k ins(%x : tensor<16x8x64xf32>) -> tensor<8x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [8, 16], block = [8, 64], thread = [1, 4], vector = 4>} {
  ^bb0(%a: tensor<16x8x64xf32>):
    %e = tensor.empty() : tensor<8x64xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (3, d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<16x8x64xf32>) outs(%e : tensor<8x64xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    egg.yield %g : tensor<8x64xf32>
  }
  return %r : tensor<8x64xf32>
}

// -----

// An input the innermost loop does not index is one element per thread.
func.func @vector_row_operand(%x: tensor<64x32xf32>, %d: tensor<64xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{operand 1 is one element per thread (the innermost loop does not index it): vector accesses need it read along that loop}}
  %r = egg.kernel @k ins(%x, %d : tensor<64x32xf32>, tensor<64xf32>) -> tensor<64x32xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [8, 8], block = [8, 32], thread = [1, 4], vector = 4>} {
  ^bb0(%a: tensor<64x32xf32>, %b: tensor<64xf32>):
    %e = tensor.empty() : tensor<64x32xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<64x32xf32>, tensor<64xf32>) outs(%e : tensor<64x32xf32>) {
    ^bb0(%in: f32, %s: f32, %o: f32):
      %m = arith.mulf %in, %s : f32
      linalg.yield %m : f32
    } -> tensor<64x32xf32>
    egg.yield %g : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

// -----

// The same for an input an elementwise producer reads (it fuses into the
// root's body): a bias of one element added before a swish.
func.func @vector_producer_scalar(%x: tensor<64x32xf32>, %b: tensor<1xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{operand 1 is one element per thread (the innermost loop does not index it): vector accesses need it read along that loop}}
  %r = egg.kernel @k ins(%x, %b : tensor<64x32xf32>, tensor<1xf32>) -> tensor<64x32xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [8, 8], block = [8, 32], thread = [1, 4], vector = 4>} {
  ^bb0(%a: tensor<64x32xf32>, %c: tensor<1xf32>):
    %e = tensor.empty() : tensor<64x32xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%a, %c : tensor<64x32xf32>, tensor<1xf32>) outs(%e : tensor<64x32xf32>) {
    ^bb0(%in: f32, %s: f32, %o: f32):
      %m = arith.addf %in, %s : f32
      linalg.yield %m : f32
    } -> tensor<64x32xf32>
    %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
    ^bb0(%in: f32, %o: f32):
      %n = arith.negf %in : f32
      %x2 = math.exp %n : f32
      linalg.yield %x2 : f32
    } -> tensor<64x32xf32>
    egg.yield %h : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

// -----

// A grid holds at most 65535 blocks along y.
func.func @grid_too_tall(%x: tensor<140000x64xf32>) -> tensor<140000x64xf32> {
  // expected-error @+1 {{loop 0 takes 140000 blocks but grid dimension 1 holds at most 65535: choose a larger block tile}}
  %r = egg.kernel @k ins(%x : tensor<140000x64xf32>) -> tensor<140000x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [64], block = [1, 64], thread = [1, 1]>} {
  ^bb0(%a: tensor<140000x64xf32>):
    %e = tensor.empty() : tensor<140000x64xf32>
    %n = linalg.exp ins(%a : tensor<140000x64xf32>) outs(%e : tensor<140000x64xf32>) -> tensor<140000x64xf32>
    egg.yield %n : tensor<140000x64xf32>
  }
  return %r : tensor<140000x64xf32>
}

// -----

func.func @vector_tile_mismatch(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{vector = 4 needs a thread tile of 1 on every loop but the innermost, which must be 4}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [16, 32], block = [64, 64], thread = [2, 4], vector = 4>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %n = linalg.exp ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %n : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @vector_too_wide(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{vector = 8 of 'f32' exceeds 16-byte accesses}}
  %r = egg.kernel @k ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [8, 64], block = [64, 64], thread = [1, 8], vector = 8>} {
  ^bb0(%a: tensor<64x64xf32>):
    %e = tensor.empty() : tensor<64x64xf32>
    %n = linalg.exp ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    egg.yield %n : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

func.func @vector_on_pad(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{vector accesses need a pad that leaves the innermost dimension unpadded}}
  %r = egg.kernel @k ins(%x : tensor<4xf32>) -> tensor<8xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [2], block = [8], thread = [4], vector = 4>} {
  ^bb0(%a: tensor<4xf32>):
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[2] high[2] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<4xf32> to tensor<8xf32>
    egg.yield %p : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A pad followed by another op in its kernel: the gather is not the root.
func.func @vector_on_pad_chain(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{vector accesses do not apply to gathers, or to pads with other ops in their kernel}}
  %r = egg.kernel @k ins(%x : tensor<2x4xf32>) -> tensor<4x4xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [1, 4], block = [4, 4], thread = [1, 4], vector = 4>} {
  ^bb0(%a: tensor<2x4xf32>):
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[1, 0] high[1, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<2x4xf32> to tensor<4x4xf32>
    %e = tensor.empty() : tensor<4x4xf32>
    %n = linalg.exp ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    egg.yield %n : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A channels-last pad (H and W padded, C not): each thread gathers one
// 16-byte vector of channels, read whole and selected against the padding;
// the indices of the unpadded dimensions are used as they are.
// CHECK-LABEL: func.func private @channels_last_pad
// CHECK: scf.forall
// CHECK: scf.forall
// CHECK: %[[READ:.*]] = vector.transfer_read %{{.*}} : tensor<2x4x4x64xf16>, vector<1x1x1x8xf16>
// CHECK: arith.select %{{.*}}, %[[READ]], %{{.*}} : vector<1x1x1x8xi1>, vector<1x1x1x8xf16>
// CHECK-NOT: vector.step
// CHECK: vector.transfer_write
func.func @channels_last_pad(%x: tensor<2x4x4x64xf16>) -> tensor<2x6x6x64xf16> {
  %r = egg.kernel @channels_last_pad ins(%x : tensor<2x4x4x64xf16>) -> tensor<2x6x6x64xf16>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [8, 6], block = [1, 1, 6, 64], thread = [1, 1, 1, 8], vector = 8>} {
  ^bb0(%a: tensor<2x4x4x64xf16>):
    %zero = arith.constant 0.0 : f16
    %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f16
    } : tensor<2x4x4x64xf16> to tensor<2x6x6x64xf16>
    egg.yield %p : tensor<2x6x6x64xf16>
  }
  return %r : tensor<2x6x6x64xf16>
}

// -----

// A zero pad fused into an implicit-GEMM convolution whose copies go
// through shared memory: no padded tensor; the product reads a view of the
// pad's source whose border its copies zero-fill (egg.padded_view, lowered
// by egg-lower-shared-gemm).
// CHECK-LABEL: func.func private @padded_implicit_gemm
// CHECK-SAME: (%[[X:.*]]: tensor<4x32x32x32xf32>,
// CHECK-NOT: tensor.pad
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4x32x32x32xf32> to memref<4x32x32x32xf32>
// CHECK: %[[VIEW:.*]] = egg.padded_view %[[BUF]] low [0, 0, 1, 1] high [0, 0, 1, 1] : memref<4x32x32x32xf32> to memref<4x32x34x34xf32, strided<[32768, 1024, 32, 1], offset: ?>>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[VIEW]] restrict
// CHECK: scf.forall
// CHECK: tensor.extract_slice %[[T]]
// CHECK: linalg.generic {{.*}}"reduction", "reduction", "reduction"
func.func @padded_implicit_gemm(%x: tensor<4x32x32x32xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %r = egg.kernel @padded_implicit_gemm ins(%x, %w : tensor<4x32x32x32xf32>, tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [8, 8], block = [1, 32, 1, 32], thread = [1, 4, 1, 4], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%a: tensor<4x32x32x32xf32>, %b: tensor<64x32x3x3xf32>):
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<4x32x32x32xf32> to tensor<4x32x34x34xf32>
    %e = tensor.empty() : tensor<4x64x32x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%p, %b : tensor<4x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
    egg.yield %c : tensor<4x64x32x32xf32>
  }
  return %r : tensor<4x64x32x32xf32>
}

// -----

// The same kernel as a direct convolution: the pad becomes a gather that
// elementwise fusion moves into the convolution's body (a clamped read of
// the source, selected against zero), so each thread reads the source.
// CHECK-LABEL: func.func private @padded_direct
// CHECK-SAME: (%[[X:.*]]: tensor<4x32x32x32xf32>,
// CHECK-NOT: egg.padded_view
// CHECK: linalg.generic {{.*}}"reduction", "reduction", "reduction"
// CHECK: %[[E:.*]] = tensor.extract %[[X]]
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[E]], %{{.*}} : f32
// CHECK: arith.mulf %[[S]]
func.func @padded_direct(%x: tensor<4x32x32x32xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %r = egg.kernel @padded_direct ins(%x, %w : tensor<4x32x32x32xf32>, tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32>
      attributes {structure = #egg.structure<conv_direct>,
                  tuning = #egg.tuning<threads = [32, 8], block = [1, 8, 1, 32], thread = [1, 1, 1, 1]>} {
  ^bb0(%a: tensor<4x32x32x32xf32>, %b: tensor<64x32x3x3xf32>):
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<4x32x32x32xf32> to tensor<4x32x34x34xf32>
    %e = tensor.empty() : tensor<4x64x32x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%p, %b : tensor<4x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
    egg.yield %c : tensor<4x64x32x32xf32>
  }
  return %r : tensor<4x64x32x32xf32>
}

// -----

// A thread's window reduction accumulates in a tile of its own (registers
// after bufferization), written to the output once; its initialization no
// longer writes the output's slice.
// CHECK-LABEL: func.func private @window_max_k
// CHECK: scf.forall
// CHECK: scf.forall ({{.*}}) in (1, 4, 32) shared_outs(%[[OUT:.*]] =
// CHECK: %[[ACC:.*]] = bufferization.alloc_tensor() : tensor<1x1x1x1xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} outs(%[[ACC]] : tensor<1x1x1x1xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}"reduction", "reduction"]{{.*}} outs(%[[INIT]] : tensor<1x1x1x1xf32>)
// CHECK: tensor.parallel_insert_slice %[[MAX]] into %[[OUT]]
func.func @window_max(%x: tensor<2x8x34x34xf32>) -> tensor<2x8x32x32xf32> {
  %r = egg.kernel @window_max_k ins(%x : tensor<2x8x34x34xf32>) -> tensor<2x8x32x32xf32>
      attributes {structure = #egg.structure<conv_direct>,
                  tuning = #egg.tuning<threads = [32, 4], block = [1, 1, 4, 32], thread = [0, 1, 1, 1]>} {
  ^bb0(%a: tensor<2x8x34x34xf32>):
    %low = arith.constant 0xFF800000 : f32
    %e = tensor.empty() : tensor<2x8x32x32xf32>
    %f = linalg.fill ins(%low : f32) outs(%e : tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
    %w = tensor.empty() : tensor<3x3xf32>
    %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%a, %w : tensor<2x8x34x34xf32>, tensor<3x3xf32>) outs(%f : tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
    egg.yield %m : tensor<2x8x32x32xf32>
  }
  return %r : tensor<2x8x32x32xf32>
}

// -----

// An accumulator that starts from a kernel input (not an initialization
// that overwrites it) stays in the output's slice.
// CHECK-LABEL: func.func private @window_max_onto_k
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: linalg.generic {{.*}}"reduction", "reduction"]
func.func @window_max_onto(%x: tensor<2x8x34x34xf32>, %b: tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32> {
  %r = egg.kernel @window_max_onto_k ins(%x, %b : tensor<2x8x34x34xf32>, tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
      attributes {structure = #egg.structure<conv_direct>,
                  tuning = #egg.tuning<threads = [32, 4], block = [1, 1, 4, 32], thread = [0, 1, 1, 1]>} {
  ^bb0(%a: tensor<2x8x34x34xf32>, %c: tensor<2x8x32x32xf32>):
    %w = tensor.empty() : tensor<3x3xf32>
    %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%a, %w : tensor<2x8x34x34xf32>, tensor<3x3xf32>) outs(%c : tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
    egg.yield %m : tensor<2x8x32x32xf32>
  }
  return %r : tensor<2x8x32x32xf32>
}

// -----

// Four tiled loops, none spanning its whole extent (which would be left
// untiled): the block loop takes linear dimensions, the innermost first.
// CHECK-LABEL: func.func private @k
// CHECK: scf.forall
// CHECK: mapping = [#gpu.thread<x>]
// CHECK: mapping = [#gpu.block<linear_dim_3>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]
func.func @four_block_loops(%x: tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32> {
  %r = egg.kernel @k ins(%x : tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32], block = [1, 1, 1, 32], thread = [0, 0, 0, 1]>} {
  ^bb0(%a: tensor<2x2x2x64xf32>):
    %e = tensor.empty() : tensor<2x2x2x64xf32>
    %n = linalg.exp ins(%a : tensor<2x2x2x64xf32>) outs(%e : tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32>
    egg.yield %n : tensor<2x2x2x64xf32>
  }
  return %r : tensor<2x2x2x64xf32>
}

// -----

// A linear grid holds at most 2^31 - 1 blocks.
func.func @too_many_blocks(%x: tensor<2048x2048x1024x2xf32>) -> tensor<2048x2048x1024x2xf32> {
  // expected-error @+1 {{the block tile makes 8589934592 blocks but a linear grid holds at most 2147483647: choose larger block tiles}}
  %r = egg.kernel @k ins(%x : tensor<2048x2048x1024x2xf32>) -> tensor<2048x2048x1024x2xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [1], block = [1, 1, 1, 1], thread = [0, 0, 0, 1]>} {
  ^bb0(%a: tensor<2048x2048x1024x2xf32>):
    %e = tensor.empty() : tensor<2048x2048x1024x2xf32>
    %n = linalg.exp ins(%a : tensor<2048x2048x1024x2xf32>) outs(%e : tensor<2048x2048x1024x2xf32>) -> tensor<2048x2048x1024x2xf32>
    egg.yield %n : tensor<2048x2048x1024x2xf32>
  }
  return %r : tensor<2048x2048x1024x2xf32>
}

// -----

// A linear block index splits into at most ten loops.
func.func @eleven_block_loops(%x: tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32> {
  // expected-error @+1 {{block tile tiles 12 loops but a linear grid index spreads at most 10}}
  %r = egg.kernel @k ins(%x : tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [32], block = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 32], thread = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]>} {
  ^bb0(%a: tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>):
    %e = tensor.empty() : tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>
    %n = linalg.exp ins(%a : tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>) outs(%e : tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>
    egg.yield %n : tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>
  }
  return %r : tensor<2x2x2x2x2x2x2x2x2x2x2x64xf32>
}

// -----

func.func @four_thread_loops(%x: tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32> {
  // expected-error @+1 {{thread tile tiles 4 loops but a block has 3 dimensions}}
  %r = egg.kernel @k ins(%x : tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [64, 2, 2], block = [0, 0, 0, 64], thread = [1, 1, 1, 1]>} {
  ^bb0(%a: tensor<2x2x2x64xf32>):
    %e = tensor.empty() : tensor<2x2x2x64xf32>
    %n = linalg.exp ins(%a : tensor<2x2x2x64xf32>) outs(%e : tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32>
    egg.yield %n : tensor<2x2x2x64xf32>
  }
  return %r : tensor<2x2x2x64xf32>
}

// -----

func.func @dynamic_kernel(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{dynamic shapes are not supported yet (root op linalg.exp)}}
  %r = egg.kernel @k ins(%x : tensor<?xf32>) -> tensor<?xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [64], block = [64], thread = [1]>} {
  ^bb0(%a: tensor<?xf32>):
    %n = linalg.exp ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>
    egg.yield %n : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Rows shared by lanes: the vector is bounded by the narrowest operand (here
// f32 throughout, so 4).
func.func @row_vector_too_wide(%x: tensor<8x64xf32>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{vector = 8 exceeds 16-byte accesses of the kernel's narrowest operand}}
  %r = egg.kernel @k ins(%x, %acc : tensor<8x64xf32>, tensor<8xf32>) -> tensor<8xf32>
      attributes {structure = #egg.structure<reduce_row_per_warp>,
                  tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 8>} {
  ^bb0(%a: tensor<8x64xf32>, %b: tensor<8xf32>):
    %s = linalg.reduce ins(%a : tensor<8x64xf32>) outs(%b : tensor<8xf32>) dimensions = [1]
      (%in: f32, %o: f32) {
        %t = arith.addf %in, %o : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @vector_four_loops(%x: tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32> {
  // expected-error @+1 {{vector accesses on maps of more than three loops are implemented for pads only}}
  %r = egg.kernel @k ins(%x : tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [16, 2], block = [1, 1, 2, 64], thread = [1, 1, 1, 4], vector = 4>} {
  ^bb0(%a: tensor<2x2x2x64xf32>):
    %e = tensor.empty() : tensor<2x2x2x64xf32>
    %n = linalg.exp ins(%a : tensor<2x2x2x64xf32>) outs(%e : tensor<2x2x2x64xf32>) -> tensor<2x2x2x64xf32>
    egg.yield %n : tensor<2x2x2x64xf32>
  }
  return %r : tensor<2x2x2x64xf32>
}

// -----

// Several rows per warp: the warp tile is a power of two that divides the
// block tile.
func.func @rows_per_warp_not_pow2(%x: tensor<24x8xf32>, %acc: tensor<24xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{a warp owns 1 to 32 rows: the warp tile of loop 0 must be a power of two dividing the block tile 12, got 3}}
  %r = egg.kernel @k ins(%x, %acc : tensor<24x8xf32>, tensor<24xf32>) -> tensor<24xf32>
      attributes {structure = #egg.structure<reduce_row_per_warp>,
                  tuning = #egg.tuning<threads = [128], block = [12], warp = [3]>} {
  ^bb0(%a: tensor<24x8xf32>, %b: tensor<24xf32>):
    %s = linalg.reduce ins(%a : tensor<24x8xf32>) outs(%b : tensor<24xf32>) dimensions = [1]
      (%in: f32, %o: f32) {
        %t = arith.addf %in, %o : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<24xf32>
  }
  return %r : tensor<24xf32>
}

// -----

// A warp has 32 lanes: at most 32 rows each.
func.func @rows_per_warp_too_many(%x: tensor<64x8xf32>, %acc: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{a warp owns 1 to 32 rows: the warp tile of loop 0 must be a power of two dividing the block tile 64, got 64}}
  %r = egg.kernel @k ins(%x, %acc : tensor<64x8xf32>, tensor<64xf32>) -> tensor<64xf32>
      attributes {structure = #egg.structure<reduce_row_per_warp>,
                  tuning = #egg.tuning<threads = [32], block = [64], warp = [64]>} {
  ^bb0(%a: tensor<64x8xf32>, %b: tensor<64xf32>):
    %s = linalg.reduce ins(%a : tensor<64x8xf32>) outs(%b : tensor<64xf32>) dimensions = [1]
      (%in: f32, %o: f32) {
        %t = arith.addf %in, %o : f32
        linalg.yield %t : f32
      }
    egg.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
