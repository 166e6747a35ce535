// RUN: egg-opt %s -split-input-file -egg-apply-schedule -verify-diagnostics

// Decisions the shared-memory GEMM lowering cannot build get located errors
// from its legality check (docs/pipeline.md, "GEMM through shared memory").


func.func @case0(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{threads must be [8, 8]: block tile over thread tile along N, then M}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], vector = 4>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @case1(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{a thread tile of 16x16 accumulators exceeds the 128 registers allowed}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [8, 8], block = [128, 128], thread = [16, 16], reduction = [16], shared = [0, 1], vector = 4>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @case2(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{copy = cp_async moves 4, 8 or 16 bytes at a time: input 0 gives pieces of 2 bytes (stored transposed, one element)}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [32], shared = [0, 1], vector = 8, copy = cp_async, pipeline = 2>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @case3(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{the tiles need 67584 bytes of shared memory; a block may have 49152}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [64], shared = [0, 1], padding = 4, vector = 4>} {
  ^bb0(%x: tensor<256x128xf32>, %y: tensor<128x256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul ins(%x, %y : tensor<256x128xf32>, tensor<128x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
// -----

func.func @case4(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{shared = [0, 1] (both inputs) is the promotion the GEMM lowering implements}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0], vector = 4>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @case5(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{swizzled shared memory is implemented for warpgroup MMA only (mma = wgmma): use padding}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [16], shared = [0, 1], swizzle = xor128, vector = 4>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @case6(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{reduction tile 48 does not divide the K loop of extent 64: a partial last K tile needs copy = cp_async or tma, whose copies zero-fill past K}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [8, 8], block = [32, 32], thread = [4, 4], reduction = [48], shared = [0, 1], vector = 4>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @case7(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{vector = 8 does not fit the copies of input 0: 32x16 elements, at most 16 bytes per access}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [32, 32], thread = [2, 2], reduction = [16], shared = [0, 1], vector = 8>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @matvec(%a: tensor<128x64xf32>, %v: tensor<64xf32>) -> tensor<128xf32> {
  // expected-error @+1 {{shared-memory promotion is implemented for matrix products and implicit-GEMM convolutions only: the product is not a (batched) matrix product: it has no M loop}}
  %r = egg.kernel @k ins(%a, %v : tensor<128x64xf32>, tensor<64xf32>) -> tensor<128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32], block = [32], thread = [1], reduction = [16], shared = [0, 1]>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
    %m = linalg.matvec ins(%x, %y : tensor<128x64xf32>, tensor<64xf32>) outs(%f : tensor<128xf32>) -> tensor<128xf32>
    egg.yield %m : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}
// -----

func.func @mma0(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{tensor cores (mma = mma_sync or wgmma) take f16 or bf16 matrices of one type accumulated in f32, not 'f32' x 'f32' -> 'f32'}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [64, 64], warp = [32, 32], reduction = [32], shared = [0, 1], padding = 8, vector = 4, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @mma1(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{FMA tiles (mma = fma) take no warp tile: each thread multiplies its thread tile}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [64, 64], warp = [32, 32], thread = [4, 4], reduction = [32], shared = [0, 1], padding = 8, vector = 8>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @mma2(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{warp tile 8 along M is not a multiple of 16 (the mma.sync fragments)}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 8], block = [64, 64], warp = [8, 32], reduction = [32], shared = [0, 1], padding = 8, vector = 8, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @mma3(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{threads must be [32, 2, 2]: a warp's lanes, then warps along N and M}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [64, 2], block = [64, 64], warp = [32, 32], reduction = [32], shared = [0, 1], padding = 8, vector = 8, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @mma4(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{a warp tile of 128x64 needs 256 accumulators per thread; at most 128 are allowed}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 1], block = [128, 128], warp = [128, 64], reduction = [32], shared = [0, 1], padding = 8, vector = 8, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @mma5(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{reduction tile 8 is not a multiple of 16 (the tensor-core instruction's K)}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [64, 64], warp = [32, 32], reduction = [8], shared = [0, 1], padding = 8, vector = 8, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

func.func @mma6(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{padding 4 is not a multiple of 8 elements: ldmatrix reads rows at 16-byte boundaries}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [64, 64], warp = [32, 32], reduction = [32], shared = [0, 1], padding = 4, vector = 8, mma = mma_sync>} {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

// Tensor-core tiles may use the target's dynamic shared memory, not more.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @mma_shared(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{tuning needs 282624 bytes of shared memory per block but sm_90a allows 232448}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 4, 4], block = [256, 256], warp = [64, 64], reduction = [64], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 4, mma = mma_sync>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Warpgroup MMA (mma = wgmma): wgmma exists on sm_90a only.
module attributes {egg.target = #egg.target<chip = "sm_90", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_chip(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{warpgroup MMA (mma = wgmma) needs an sm_90a target, not sm_90}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// wgmma reads the tiles in the swizzled layout its descriptors describe.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_swizzle(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{warpgroup MMA reads its tiles through the 128-byte swizzle: it needs swizzle = xor128}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// A warpgroup's piece spans whole m64 instructions.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_m(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{warp tile 32 along M is not a multiple of 64 (wgmma's M)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 4], block = [128, 128], warp = [32, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// wgmma's N is a multiple of 8.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_n(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{warp tile 4 along N is not a multiple of 8 up to 256 (wgmma's N)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 1], block = [64, 4], warp = [64, 4], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Warpgroups are laid out along N, then M.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_threads(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{threads must be [128, 2, 1]: a warpgroup's threads, then warpgroups along N and M}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [128, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// An m64nN result holds N / 2 accumulators per thread and instruction.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_acc(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{a warp tile of 128x256 needs 256 accumulators per thread; at most 128 are allowed}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 1], block = [128, 256], warp = [128, 256], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Copies move the swizzle's 16-byte pieces.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_vector(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{vector = 4 does not fit the swizzled tiles of input 0: warpgroup MMA copies 16-byte pieces}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// A K-contiguous tile is stored in rows of 128 bytes: BK of 64 16-bit elements.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_bk(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{input 0 is stored contiguous along K: its tile extent 32 must be a multiple of 64 (128-byte swizzled rows)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// An N-contiguous tile is stored in columns 64 elements wide: each warpgroup's piece spans whole columns.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_mn(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{input 1 is contiguous along M/N: the warp tile must be a multiple of 64 (128-byte swizzled rows)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 4, 2], block = [128, 128], warp = [64, 32], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Each warpgroup owns one warp tile.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_owners(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+3 {{block and warp tiles give 4 warpgroups but threads give 256 threads (8 warps)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Warpgroup MMA (mma = wgmma): later `a` targets (sm_100a) have other MMAs, not wgmma.
module attributes {egg.target = #egg.target<chip = "sm_100a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @wg_chip_later(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{warpgroup MMA (mma = wgmma) needs an sm_90a target, not sm_100a}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Convolutions: the GEMM lowering only as conv_implicit_gemm.
func.func @conv_direct_promoted(%a: tensor<1x6x34x32xf32>, %b: tensor<3x3x32x64xf32>) -> tensor<1x4x32x64xf32> {
  // expected-error @+1 {{a convolution takes shared-memory promotion as an implicit GEMM: its structure must be conv_implicit_gemm}}
  %r = egg.kernel @k ins(%a, %b : tensor<1x6x34x32xf32>, tensor<3x3x32x64xf32>) -> tensor<1x4x32x64xf32>
      attributes {structure = #egg.structure<conv_direct>,
                  tuning = #egg.tuning<threads = [8, 8], block = [1, 1, 32, 32], thread = [1, 1, 4, 4], reduction = [16], shared = [0, 1], vector = 4>} {
  ^bb0(%x: tensor<1x6x34x32xf32>, %y: tensor<3x3x32x64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x32x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%x, %y : tensor<1x6x34x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<1x4x32x64xf32>) -> tensor<1x4x32x64xf32>
    egg.yield %c : tensor<1x4x32x64xf32>
  }
  return %r : tensor<1x4x32x64xf32>
}
// -----

func.func @implicit_gemm_not_promoted(%a: tensor<1x6x34x32xf32>, %b: tensor<3x3x32x64xf32>) -> tensor<1x4x32x64xf32> {
  // expected-error @+1 {{conv_implicit_gemm runs through the GEMM lowering: its tuning must promote both inputs to shared memory (shared = [0, 1])}}
  %r = egg.kernel @k ins(%a, %b : tensor<1x6x34x32xf32>, tensor<3x3x32x64xf32>) -> tensor<1x4x32x64xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [64], block = [1, 1, 32, 64], thread = [1, 1, 1, 1]>} {
  ^bb0(%x: tensor<1x6x34x32xf32>, %y: tensor<3x3x32x64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x32x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%x, %y : tensor<1x6x34x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<1x4x32x64xf32>) -> tensor<1x4x32x64xf32>
    egg.yield %c : tensor<1x4x32x64xf32>
  }
  return %r : tensor<1x4x32x64xf32>
}
// -----

// A 64-position M tile over (n, oh, ow) = (1, 4, 32) must be two whole
// output rows, not 32 positions of two rows (not one contiguous range).
func.func @conv_tile_not_row_major(%a: tensor<1x6x34x32xf32>, %b: tensor<3x3x32x64xf32>) -> tensor<1x4x32x64xf32> {
  // expected-error @+1 {{the M loops (0, 1, 2) take block tiles [1, 4, 16] and thread tiles [1, 1, 4]: each must cover whole inner loops and part of one (a contiguous row-major range)}}
  %r = egg.kernel @k ins(%a, %b : tensor<1x6x34x32xf32>, tensor<3x3x32x64xf32>) -> tensor<1x4x32x64xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [16, 16], block = [1, 4, 16, 64], thread = [1, 1, 4, 4], reduction = [16], shared = [0, 1], vector = 4>} {
  ^bb0(%x: tensor<1x6x34x32xf32>, %y: tensor<3x3x32x64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x32x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x32x64xf32>) -> tensor<1x4x32x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%x, %y : tensor<1x6x34x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<1x4x32x64xf32>) -> tensor<1x4x32x64xf32>
    egg.yield %c : tensor<1x4x32x64xf32>
  }
  return %r : tensor<1x4x32x64xf32>
}
// -----

// An NCHW input is contiguous along ow + kw: neither M nor K.
func.func @conv_nchw_vector(%a: tensor<1x32x6x35xf32>, %b: tensor<64x32x3x4xf32>) -> tensor<1x64x4x32xf32> {
  // expected-error @+1 {{input 0 is not contiguous along its matrix dimensions: only FMA tiles with vector = 1, or f32 warpgroup MMA over cp_async, read it}}
  %r = egg.kernel @k ins(%a, %b : tensor<1x32x6x35xf32>, tensor<64x32x3x4xf32>) -> tensor<1x64x4x32xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [8, 8], block = [1, 32, 1, 32], thread = [1, 4, 1, 4], reduction = [16], shared = [0, 1], vector = 4>} {
  ^bb0(%x: tensor<1x32x6x35xf32>, %y: tensor<64x32x3x4xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x64x4x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x4x32xf32>) -> tensor<1x64x4x32xf32>
    %c = linalg.conv_2d_nchw_fchw ins(%x, %y : tensor<1x32x6x35xf32>, tensor<64x32x3x4xf32>) outs(%f : tensor<1x64x4x32xf32>) -> tensor<1x64x4x32xf32>
    egg.yield %c : tensor<1x64x4x32xf32>
  }
  return %r : tensor<1x64x4x32xf32>
}
// -----

// A batched product of nine batch loops: eleven loops to the grid, past
// the ten a linear block index spreads.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11) -> (d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d11)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11) -> (d0, d1, d2, d3, d4, d5, d6, d7, d8, d11, d10)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11) -> (d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10)>
func.func @grid_loops(%a: tensor<2x2x2x2x2x2x2x2x2x32x16xf32>, %b: tensor<2x2x2x2x2x2x2x2x2x16x32xf32>) -> tensor<2x2x2x2x2x2x2x2x2x32x32xf32> {
  // expected-error @+1 {{the block tile leaves 11 loops to the grid, which spreads at most 10}}
  %r = egg.kernel @k ins(%a, %b : tensor<2x2x2x2x2x2x2x2x2x32x16xf32>, tensor<2x2x2x2x2x2x2x2x2x16x32xf32>) -> tensor<2x2x2x2x2x2x2x2x2x32x32xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [4, 4], block = [1, 1, 1, 1, 1, 1, 1, 1, 1, 16, 16], thread = [1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 4], reduction = [16], shared = [0, 1]>} {
  ^bb0(%x: tensor<2x2x2x2x2x2x2x2x2x32x16xf32>, %y: tensor<2x2x2x2x2x2x2x2x2x16x32xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x2x2x2x2x2x2x2x2x32x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x2x2x2x2x2x2x2x32x32xf32>) -> tensor<2x2x2x2x2x2x2x2x2x32x32xf32>
    %c = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%x, %y : tensor<2x2x2x2x2x2x2x2x2x32x16xf32>, tensor<2x2x2x2x2x2x2x2x2x16x32xf32>) outs(%f : tensor<2x2x2x2x2x2x2x2x2x32x32xf32>) {
    ^bb0(%u: f32, %v: f32, %acc: f32):
      %m = arith.mulf %u, %v : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<2x2x2x2x2x2x2x2x2x32x32xf32>
    egg.yield %c : tensor<2x2x2x2x2x2x2x2x2x32x32xf32>
  }
  return %r : tensor<2x2x2x2x2x2x2x2x2x32x32xf32>
}

// -----

// TMA fills wgmma's swizzled tiles only, not the padded tiles of mma.sync.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_mma(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{copy = tma fills the swizzled tiles of warpgroup MMA (mma = wgmma) only}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [64, 64], warp = [32, 32], reduction = [32], shared = [0, 1], vector = 8, copy = tma, pipeline = 2, mma = mma_sync>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// TMA stages wait on mbarriers: at least two stages.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_one_stage(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{copy = tma needs pipeline >= 2 (stages with an mbarrier each)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// TMA adds a producer warpgroup: at most 896 computing threads.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_too_many_threads(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{copy = tma adds a producer warpgroup to the 1024 computing threads: at most 896}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 2, 4], block = [256, 256], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 2, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// f32 products reach wgmma as TF32 only where the module allows it.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tf32_not_allowed(%a: tensor<256x128xf32>, %b: tensor<256x128xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{f32 products reach tensor cores only as TF32 (10-bit mantissas), which the user must allow: egg.allow_tf32 on the module (pipeline option allow-tf32)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xf32>, %y: tensor<256x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xf32>, tensor<256x128xf32>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: f32, %q: f32, %acc: f32):
      %pq = arith.mulf %p, %q : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// TF32 tiles are stored K-major: an N-contiguous B is copied transposed,
// which cp.async does one element at a time and TMA cannot.
module attributes {egg.allow_tf32, egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tf32_n_major(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{input 1 is contiguous along M/N: TF32 tiles are stored K-major, which TMA copies cannot transpose (use cp_async)}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = tma, pipeline = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xf32>, %y: tensor<128x256xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul ins(%x, %y : tensor<256x128xf32>, tensor<128x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// egg.allow_tf32 is a unit attribute of a module.
func.func @tf32_attr() attributes {egg.allow_tf32} {
  // expected-error @-1 {{'egg.allow_tf32' must be a unit attribute of a module}}
  return
}

// -----

// A partial tile in a group of several loops (a convolution's M group
// (n, oh, ow) = (1, 4, 30), 16 of its 30 output columns per block) is
// implemented for FMA tiles only: the tensor-core epilogue bounds one loop
// per group.
func.func @conv_partial_tile_mma(%a: tensor<1x6x32x32xf16>, %b: tensor<3x3x32x64xf16>) -> tensor<1x4x30x64xf32> {
  // expected-error @+1 {{block tile 16 does not divide loop 2 of extent 30: a partial tile in a group of several loops is implemented for FMA tiles and split TF32 products only}}
  %r = egg.kernel @k ins(%a, %b : tensor<1x6x32x32xf16>, tensor<3x3x32x64xf16>) -> tensor<1x4x30x64xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [32, 2, 1], block = [1, 1, 16, 64], warp = [1, 1, 16, 32], reduction = [16], shared = [0, 1], vector = 8, copy = cp_async, pipeline = 2, mma = mma_sync>} {
  ^bb0(%x: tensor<1x6x32x32xf16>, %y: tensor<3x3x32x64xf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x30x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x30x64xf32>) -> tensor<1x4x30x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%x, %y : tensor<1x6x32x32xf16>, tensor<3x3x32x64xf16>) outs(%f : tensor<1x4x30x64xf32>) -> tensor<1x4x30x64xf32>
    egg.yield %c : tensor<1x4x30x64xf32>
  }
  return %r : tensor<1x4x30x64xf32>
}

// -----

// A group's block tile must end its row-major range in one loop: 48
// positions of (n, oh, ow) = (1, 4, 30) would cover one row and part of
// the next.
func.func @conv_tile_across_rows(%a: tensor<1x6x32x32xf32>, %b: tensor<3x3x32x64xf32>) -> tensor<1x4x30x64xf32> {
  // expected-error @+1 {{the M loops (0, 1, 2) take block tiles [1, 2, 24] and thread tiles [1, 1, 4]: each must cover whole inner loops and part of one (a contiguous row-major range)}}
  %r = egg.kernel @k ins(%a, %b : tensor<1x6x32x32xf32>, tensor<3x3x32x64xf32>) -> tensor<1x4x30x64xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [16, 12], block = [1, 2, 24, 64], thread = [1, 1, 4, 4], reduction = [16], shared = [0, 1], vector = 4, copy = cp_async, pipeline = 2>} {
  ^bb0(%x: tensor<1x6x32x32xf32>, %y: tensor<3x3x32x64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x30x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x30x64xf32>) -> tensor<1x4x30x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%x, %y : tensor<1x6x32x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<1x4x30x64xf32>) -> tensor<1x4x30x64xf32>
    egg.yield %c : tensor<1x4x30x64xf32>
  }
  return %r : tensor<1x4x30x64xf32>
}

// -----

// A block tile more than twice its loop (a partial tile mostly outside the
// product; 32 rows for M = 16 is the most).
func.func @tile_past_loop(%a: tensor<60x64xf32>, %b: tensor<64x128xf32>) -> tensor<60x128xf32> {
  // expected-error @+1 {{block tile 128 of loop 0 is not between 1 and twice its extent 60 (a partial tile at least half inside the loop)}}
  %r = egg.kernel @k ins(%a, %b : tensor<60x64xf32>, tensor<64x128xf32>) -> tensor<60x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], vector = 4, copy = cp_async, pipeline = 2>} {
  ^bb0(%x: tensor<60x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<60x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<60x128xf32>) -> tensor<60x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<60x64xf32>, tensor<64x128xf32>) outs(%f : tensor<60x128xf32>) -> tensor<60x128xf32>
    egg.yield %m : tensor<60x128xf32>
  }
  return %r : tensor<60x128xf32>
}

// -----

// A zero pad of the channels fused into the kernel (by hand: egg-form-kernels
// keeps such a pad apart): 8-element pieces along C could straddle the
// border.
func.func @padded_channels(%x: tensor<2x18x18x8xf16>, %w: tensor<3x3x16x64xf16>) -> tensor<2x16x16x64xf32> {
  // expected-error @+1 {{input 0 is padded along its contiguous dimension in the kernel: its copies need vector = 1}}
  %r = egg.kernel @k ins(%x, %w : tensor<2x18x18x8xf16>, tensor<3x3x16x64xf16>) -> tensor<2x16x16x64xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [32, 2, 2], block = [1, 2, 16, 32], warp = [1, 1, 16, 16], reduction = [32], shared = [0, 1], padding = 8, vector = 8, copy = cp_async, pipeline = 3, mma = mma_sync>} {
  ^bb0(%a: tensor<2x18x18x8xf16>, %b: tensor<3x3x16x64xf16>):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %p = tensor.pad %a low[0, 0, 0, 0] high[0, 0, 0, 8] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zh : f16
    } : tensor<2x18x18x8xf16> to tensor<2x18x18x16xf16>
    %e = tensor.empty() : tensor<2x16x16x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%p, %b : tensor<2x18x18x16xf16>, tensor<3x3x16x64xf16>) outs(%f : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
    egg.yield %c : tensor<2x16x16x64xf32>
  }
  return %r : tensor<2x16x16x64xf32>
}

// -----

// A pad of another value than zero inside an implicit GEMM through shared
// memory (by hand: egg-form-kernels keeps such a pad apart): the copies can
// only zero-fill a border.
func.func @one_padded_implicit_gemm(%x: tensor<4x32x32x32xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32> {
  %r = egg.kernel @k ins(%x, %w : tensor<4x32x32x32xf32>, tensor<64x32x3x3xf32>) -> tensor<4x64x32x32xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [8, 8], block = [1, 32, 1, 32], thread = [1, 4, 1, 4], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 3>} {
  ^bb0(%a: tensor<4x32x32x32xf32>, %b: tensor<64x32x3x3xf32>):
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{feeds an implicit GEMM through shared memory, whose copies take a pad only as a static zero border of a kernel input that the product alone reads (egg.padded_view)}}
    %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %one : f32
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

// TMA reads 2-D tensor maps: a batched product whose inputs are 3-D
// tensors of their own (not the reshape of a 2-D one) is refused.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @tma_batched(%a: tensor<4x256x128xbf16>, %b: tensor<4x128x256xbf16>) -> tensor<4x256x256xf32> {
  // expected-error @+1 {{copy = tma: input 0 is neither 2-D nor the reshape of a 2-D tensor that pairs each batch loop with the loop inside it, whose tile divides it}}
  %r = egg.kernel @k ins(%a, %b : tensor<4x256x128xbf16>, tensor<4x128x256xbf16>) -> tensor<4x256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [1, 128, 128], warp = [1, 64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 2, mma = wgmma>} {
  ^bb0(%x: tensor<4x256x128xbf16>, %y: tensor<4x128x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %y : tensor<4x256x128xbf16>, tensor<4x128x256xbf16>) outs(%f : tensor<4x256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<4x256x256xf32>
    egg.yield %m : tensor<4x256x256xf32>
  }
  return %r : tensor<4x256x256xf32>
}
}
// -----

// More than four stages only with TMA's mbarriers (the deep pipelines of
// long-K products); cp.async keeps at most four.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @deep_cp_async(%a: tensor<256x2048xbf16>, %b: tensor<2048x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{pipeline = 6 exceeds 4 stages: deeper pipelines need copy = tma}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x2048xbf16>, tensor<2048x256xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 64], warp = [64, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 6, mma = wgmma>} {
  ^bb0(%x: tensor<256x2048xbf16>, %y: tensor<2048x256xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x2048xbf16>, tensor<2048x256xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}
// -----

// Fragments a K step ahead: the next K tile has to be in flight.
func.func @ahead_one_stage(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{fragments_ahead = 1 needs pipeline >= 2: the next K tile must be in flight}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, fragments_ahead = 1>} {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x64xf32>, tensor<64x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

// ... and its K tile, unrolled whole, stays at 2048 multiply-adds.
func.func @ahead_too_long(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{fragments_ahead = 1 unrolls the K tile: 8x8 values over a K step of 64 are more than 2048 multiply-adds}}
  %r = egg.kernel @k ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [64], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, fragments_ahead = 1>} {
  ^bb0(%x: tensor<128x128xf32>, %y: tensor<128x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %m = linalg.matmul ins(%x, %y : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    egg.yield %m : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}
// -----

// Only FMA products through shared memory load fragments.
func.func @ahead_elementwise(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @+1 {{fragments_ahead = 1 is for FMA products through shared memory (a `thread` tile and shared = [0, 1]) only}}
  %r = egg.kernel @k ins(%a : tensor<1024xf32>) -> tensor<1024xf32>
      attributes {structure = #egg.structure<elementwise_flat>,
                  tuning = #egg.tuning<threads = [256], block = [1024], thread = [4], vector = 4, fragments_ahead = 1>} {
  ^bb0(%x: tensor<1024xf32>):
    %e = tensor.empty() : tensor<1024xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
    ^bb1(%p: f32, %o: f32):
      %s = arith.addf %p, %p : f32
      linalg.yield %s : f32
    } -> tensor<1024xf32>
    egg.yield %m : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}

// -----

// Split TF32 products are split by the threads that copied each tile: not
// with TMA's producer warpgroup.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @split_tf32_tma(%a: tensor<256x128xf32>, %b: tensor<256x128xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{tf32_terms = 3 splits each tile in the threads that copied it: it needs copy = cp_async or sync, not tma}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = tma, pipeline = 3, tf32_terms = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xf32>, %y: tensor<256x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xf32>, tensor<256x128xf32>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: f32, %q: f32, %acc: f32):
      %pq = arith.mulf %p, %q : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// Split TF32 products are warpgroup MMA's: FMA thread tiles have nothing to
// split.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @split_tf32_fma(%a: tensor<256x128xf32>, %b: tensor<256x128xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{tf32_terms = 3 splits the f32 matrices of warpgroup MMA (mma = wgmma), not FMA thread tiles}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 2, tf32_terms = 3>} {
  ^bb0(%x: tensor<256x128xf32>, %y: tensor<256x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xf32>, tensor<256x128xf32>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: f32, %q: f32, %acc: f32):
      %pq = arith.mulf %p, %q : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// Only f32 matrices are split.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @split_tf32_bf16(%a: tensor<256x128xbf16>, %b: tensor<256x128xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{tf32_terms = 3 splits the f32 matrices of warpgroup MMA (mma = wgmma); this product is 'bf16' x 'bf16' -> 'f32'}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xbf16>, tensor<256x128xbf16>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xbf16>, %y: tensor<256x128xbf16>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xbf16>, tensor<256x128xbf16>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: bf16, %q: bf16, %acc: f32):
      %pf = arith.extf %p : bf16 to f32
      %qf = arith.extf %q : bf16 to f32
      %pq = arith.mulf %pf, %qf : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// Split inputs keep their low parts beside them: twice the shared memory.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func @split_tf32_too_deep(%a: tensor<256x128xf32>, %b: tensor<256x128xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{the tiles need 263168 bytes of shared memory; a block may have 232448}}
  %r = egg.kernel @k ins(%a, %b : tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x256xf32>
      attributes {structure = #egg.structure<gemm_direct>,
                  tuning = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 4, tf32_terms = 3, mma = wgmma>} {
  ^bb0(%x: tensor<256x128xf32>, %y: tensor<256x128xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<256x128xf32>, tensor<256x128xf32>) outs(%f : tensor<256x256xf32>) {
    ^bb1(%p: f32, %q: f32, %acc: f32):
      %pq = arith.mulf %p, %q : f32
      %sum = arith.addf %acc, %pq : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    egg.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
}

// -----

// FMA thread tiles may take whole rows of the block along N (4 rows x 2
// positions of a block of 4 output rows), not a part of its rows.
func.func @conv_thread_rows_not_whole(%a: tensor<2x8x36x36xf32>, %b: tensor<64x8x3x3xf32>) -> tensor<2x64x34x34xf32> {
  // expected-error @+1 {{the N loops (0, 2, 3) take block tiles [1, 4, 34] and thread tiles [1, 2, 2]: each must cover whole inner loops and part of one (a contiguous row-major range), or FMA thread tiles whole rows of the block along N}}
  %r = egg.kernel @k ins(%a, %b : tensor<2x8x36x36xf32>, tensor<64x8x3x3xf32>) -> tensor<2x64x34x34xf32>
      attributes {structure = #egg.structure<conv_implicit_gemm>,
                  tuning = #egg.tuning<threads = [34, 8], block = [1, 64, 4, 34], thread = [1, 8, 2, 2], reduction = [16], shared = [0, 1], padding = 4, copy = cp_async, pipeline = 2>} {
  ^bb0(%x: tensor<2x8x36x36xf32>, %y: tensor<64x8x3x3xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x64x34x34xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x34x34xf32>) -> tensor<2x64x34x34xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %y : tensor<2x8x36x36xf32>, tensor<64x8x3x3xf32>) outs(%f : tensor<2x64x34x34xf32>) -> tensor<2x64x34x34xf32>
    egg.yield %c : tensor<2x64x34x34xf32>
  }
  return %r : tensor<2x64x34x34xf32>
}
