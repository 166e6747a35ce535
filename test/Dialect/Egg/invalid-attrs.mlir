// RUN: egg-opt %s -split-input-file -verify-diagnostics

// Every verifier message of the egg attributes.

// expected-error @+1 {{chip must look like 'sm_90' or 'sm_90a', got 'gfx90a'}}
func.func @f() attributes {x = #egg.target<chip = "gfx90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>}

// -----

// expected-error @+1 {{warp_size must be 32 on NVIDIA GPUs, got 64}}
func.func @f() attributes {x = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 64, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>}

// -----

// expected-error @+1 {{sm_count must be positive, got 0}}
func.func @f() attributes {x = #egg.target<chip = "sm_90a", name = "H200", sm_count = 0, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>}

// -----

// expected-error @+1 {{max_threads_per_block (1000) must be a multiple of warp_size}}
func.func @f() attributes {x = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132, warp_size = 32, max_threads_per_block = 1000, shared_memory_per_block = 232448, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>}

// -----

// expected-error @+1 {{split_k must be at least 1, got 0}}
func.func @f() attributes {x = #egg.structure<gemm_direct, split_k = 0>}

// -----

// expected-error @+1 {{gemm_split_k needs split_k >= 2, got 1}}
func.func @f() attributes {x = #egg.structure<gemm_split_k>}

// -----

// expected-error @+1 {{split_k only applies to gemm_split_k and reduce_two_stage, not softmax_three_pass}}
func.func @f() attributes {x = #egg.structure<softmax_three_pass, split_k = 2>}

// -----

// Structures the compiler cannot build are not in the dialect.
// expected-error @+2 {{expected ::mlir::egg::Formulation to be one of}}
// expected-error @+1 {{failed to parse Egg_StructureAttr parameter 'formulation'}}
func.func @f() attributes {x = #egg.structure<softmax_online>}

// -----

// expected-error @+1 {{threads must have 1 to 3 entries, got 4}}
func.func @f() attributes {x = #egg.tuning<threads = [8, 8, 8, 2], block = [64]>}

// -----

// expected-error @+1 {{threads entries must be positive, got 0}}
func.func @f() attributes {x = #egg.tuning<threads = [0], block = [64]>}

// -----

// expected-error @+1 {{threads[2] = 128 exceeds the CUDA limit of 64}}
func.func @f() attributes {x = #egg.tuning<threads = [1, 1, 128], block = [64]>}

// -----

// expected-error @+1 {{a block of 2048 threads exceeds the CUDA limit of 1024}}
func.func @f() attributes {x = #egg.tuning<threads = [64, 32], block = [64]>}

// -----

// expected-error @+1 {{block tile entries must be non-negative, got -1}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64, -1]>}

// -----

// expected-error @+1 {{warp tile has 1 entries but block tile has 2}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64, 64], warp = [32]>}

// -----

// expected-error @+1 {{warp tile 48 does not divide block tile 64 in loop 0}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64, 64], warp = [48, 64]>}

// -----

// expected-error @+1 {{block and warp tiles give 4 warps but threads give 256 threads (8 warps)}}
func.func @f() attributes {x = #egg.tuning<threads = [256], block = [128, 128], warp = [64, 64]>}

// -----

// expected-error @+1 {{thread tile 3 does not divide block tile 64 in loop 0}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64, 64], thread = [3, 4]>}

// -----

// expected-error @+1 {{thread tile 5 does not divide warp tile 32 in loop 1}}
func.func @f() attributes {x = #egg.tuning<threads = [128], block = [64, 64], warp = [32, 32], thread = [8, 5]>}

// -----

// expected-error @+1 {{shared operand numbers must be non-negative}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [-1]>}

// -----

// expected-error @+1 {{operand 0 is listed twice in shared}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0, 0]>}

// -----

// expected-error @+1 {{registers operand numbers must be non-negative}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], registers = [-2]>}

// -----

// expected-error @+1 {{operand 1 cannot be both in shared memory and registers}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [1], registers = [1]>}

// -----

// expected-error @+1 {{padding must be non-negative, got -4}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0], padding = -4>}

// -----

// expected-error @+1 {{padding and swizzle are exclusive ways to avoid bank conflicts: pick one}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0], padding = 4, swizzle = xor64>}

// -----

// expected-error @+1 {{padding/swizzle need an operand in shared memory}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], swizzle = xor128>}

// -----

// expected-error @+1 {{vector width must be 1, 2, 4, 8 or 16, got 3}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], vector = 3>}

// -----

// expected-error @+1 {{copy engine cp_async needs an operand in shared memory}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], copy = cp_async>}

// -----

// expected-error @+1 {{tma writes dense tiles: use swizzle, not padding}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0], padding = 8, copy = tma>}

// -----

// expected-error @+1 {{pipeline depth must be in [1, 8], got 9}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0], copy = tma, pipeline = 9>}

// -----

// expected-error @+1 {{pipeline depth 2 needs an asynchronous copy (cp_async or tma)}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0], pipeline = 2>}

// -----

// expected-error @+1 {{threads give 48 threads, not a whole number of warps, but a warp tile is set}}
func.func @f() attributes {x = #egg.tuning<threads = [48], block = [64], warp = [32]>}

// -----

// expected-error @+1 {{unknown tuning key 'tile'; expected threads, block, warp, thread, reduction, shared, registers, padding, swizzle, vector, copy, pipeline, cluster, row_shared, fragments_ahead, tf32_terms or mma}}
func.func @f() attributes {x = #egg.tuning<threads = [64], tile = [64]>}

// -----

// expected-error @+1 {{'vector' is given twice}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], vector = 4, vector = 8>}

// -----

// expected-error @+1 {{#egg.tuning needs 'block'}}
func.func @f() attributes {x = #egg.tuning<threads = [64]>}

// -----

// expected-error @+1 {{unknown value 'cp_bulk'}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = [64], shared = [0], copy = cp_bulk>}

// -----

// expected-error @+1 {{block tile must have one entry per parallel loop}}
func.func @f() attributes {x = #egg.tuning<threads = [64], block = []>}

// -----

// Sizes from the IR saturate instead of overflowing (regression: UBSan).
// expected-error @+1 {{block and warp tiles give 9223372036854775807 warps but threads give 32 threads (1 warps)}}
func.func @f() attributes {x = #egg.tuning<threads = [32], block = [9223372036854775807, 9223372036854775807], warp = [1, 1]>}

// -----

// expected-error @+1 {{cluster must be 1, 2, 4 or 8 blocks, got 3}}
func.func @f() attributes {x = #egg.tuning<threads = [8, 64], block = [32], vector = 4, cluster = 3>}

// -----

// expected-error @+1 {{row_shared must be non-negative, got -1}}
func.func @f() attributes {x = #egg.tuning<threads = [1024], block = [1, 1, 0], vector = 4, row_shared = -1>}

// -----

// expected-error @+1 {{fragments_ahead must be 0 or 1, got 2}}
func.func @f() attributes {x = #egg.tuning<threads = [16, 16], block = [128, 128], thread = [8, 8], reduction = [16], shared = [0, 1], copy = cp_async, pipeline = 2, fragments_ahead = 2>}

// -----

// expected-error @+1 {{tf32_terms must be 1 or 3, got 2}}
func.func @f() attributes {x = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 2, mma = wgmma>}

// -----

// expected-error @+1 {{a shared-memory GEMM with a warp tile and no thread tile multiplies on tensor cores: set mma = mma_sync or wgmma}}
func.func @f() attributes {x = #egg.tuning<threads = [32, 2, 2], block = [128, 128], warp = [64, 64], reduction = [32], shared = [0, 1], padding = 8, vector = 8>}

// -----

// expected-error @+1 {{mma = mma_sync needs an operand in shared memory, a warp tile and no thread tile}}
func.func @f() attributes {x = #egg.tuning<threads = [32, 2, 2], block = [128, 128], warp = [64, 64], thread = [8, 8], reduction = [32], shared = [0, 1], mma = mma_sync>}

// -----

// expected-error @+1 {{mma = wgmma needs threads = [128, N, M]: a warpgroup, then the warpgroups along N and M}}
func.func @f() attributes {x = #egg.tuning<threads = [32, 2, 2], block = [128, 128], warp = [64, 64], reduction = [32], shared = [0, 1], swizzle = xor128, mma = wgmma>}

// -----

// expected-error @+1 {{threads = [128, N, M] lays out warpgroups: mma_sync takes warps (use mma = wgmma)}}
func.func @f() attributes {x = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], mma = mma_sync>}

// -----

// expected-error @+1 {{unknown value 'tensor'}}
func.func @f() attributes {x = #egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], mma = tensor>}
