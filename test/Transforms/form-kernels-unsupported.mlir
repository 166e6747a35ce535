// RUN: egg-opt %s -split-input-file -egg-form-kernels -verify-diagnostics

// Input outside EGG's language gets a located error naming what is wrong.

func.func @slice(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unsupported op 'tensor.extract_slice': EGG compiles linalg on tensors (linalg ops, tensor.pad, egg.scan, egg.recurrence, tensor.empty, reshapes, scalar constants)}}
  %s = tensor.extract_slice %x[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{unsupported argument type 'tensor<?xf32>': EGG compiles static tensors of f32, f16 and bf16}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

func.func @integers(%x: tensor<8xf32>) -> tensor<8xi32> {
  // expected-error @+1 {{unsupported result type 'tensor<8xi32>' of 'tensor.empty': EGG compiles static tensors of f32, f16 and bf16}}
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xi32>) {
  ^bb0(%a: f32, %o: i32):
    %i = arith.fptosi %a : f32 to i32
    linalg.yield %i : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// -----

func.func @loops(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{unsupported op 'scf.for'}}
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x) -> tensor<8xf32> {
    scf.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
