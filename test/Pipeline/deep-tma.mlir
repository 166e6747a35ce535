// Long-K products over few output tiles keep their whole K loop in a deep
// TMA pipeline instead of splitting K (principle 9 of tuning.md, "Long K"):
// 1024 x 1024 x 4096 bf16 gives 128 tiles of 64 x 128 for 132 SMs, each
// block one 64 x 128 warpgroup and a producer warpgroup, eight stages of
// 24 KB; 1000 x 1000 x 4096 f16 has partial last tiles, which take 128 x 64
// tiles (two 64 x 64 warpgroups) at six stages;
// 2048 x 1024 x 4096 fills the wave with 128 x 128 tiles (two 64 x 128
// warpgroups), TMA at four stages. An M of 64, below every such tile,
// keeps its split (64 x 8192 x 4096: four slices of 64 x 128 tiles).
// RUN: egg-opt %s --egg-pipeline="record=%t.json" -o %t.mlir --mlir-print-ir-after=egg-lower-shared-gemm 2> %t.ir
// RUN: FileCheck %s --check-prefix=DECISIONS --input-file=%t.json
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ir
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// DECISIONS: "name": "deep_k0"
// DECISIONS: "structure": "#egg.structure<gemm_direct>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 1], block = [64, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 8, mma = wgmma>"
// DECISIONS: "name": "deep_partial_k0"
// DECISIONS: "structure": "#egg.structure<gemm_direct>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 2], block = [128, 64], warp = [64, 64], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 6, mma = wgmma>"
// DECISIONS: "name": "deep_square_k0"
// DECISIONS: "structure": "#egg.structure<gemm_direct>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = tma, pipeline = 4, mma = wgmma>"
// DECISIONS: "name": "deep_skinny_k0"
// DECISIONS: "structure": "#egg.structure<gemm_split_k, split_k = 4>"
// DECISIONS-NEXT: "tuning": "#egg.tuning<threads = [128, 1, 1], block = [64, 128], warp = [64, 128], reduction = [64], shared = [0, 1], swizzle = xor128, vector = 8, copy = cp_async, pipeline = 4, mma = wgmma>"

// One mbarrier per stage for the copies, one for the slots' release.
// IR-LABEL: func.func private @deep_k0(
// IR: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// IR: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// IR-LABEL: func.func private @deep_partial_k0(
// IR: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>

// The tiles live in the dynamic shared memory, declared external so that
// ptxas places it after the static mbarriers (egg-extern-dynamic-shared-memory).
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-LABEL: .entry deep_k0_kernel(
// PTX-NOT: .b8 __dynamic_shmem__0;
// PTX: .shared .align 8 .b8 __mbarrier_0[64];
// PTX: .shared .align 8 .b8 __mbarrier[64];
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: cp.async.cg
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-LABEL: .entry deep_partial_k0_kernel(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX-LABEL: .entry deep_square_k0_kernel(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// 8 x 16 blocks of 256 threads; 8 stages of (64 + 128) x 64 bf16 (192 KB)
// plus the swizzle alignment.
// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST: "grid": [
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 16,
// MANIFEST: "kernel": "deep_k0_kernel"
// MANIFEST: "shared_bytes": 197632
// MANIFEST: "kernel": "deep_partial_k0_kernel"
// MANIFEST: "shared_bytes": 148480
func.func @deep(%a: tensor<1024x4096xbf16>, %b: tensor<4096x1024xbf16>) -> tensor<1024x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1024x4096xbf16>, tensor<4096x1024xbf16>) outs(%f : tensor<1024x1024xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  %e2 = tensor.empty() : tensor<1024x1024xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<1024x1024xf32>) outs(%e2 : tensor<1024x1024xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1024x1024xbf16>
  return %o : tensor<1024x1024xbf16>
}
func.func @deep_partial(%a: tensor<1000x4096xf16>, %b: tensor<4096x1000xf16>) -> tensor<1000x1000xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1000x4096xf16>, tensor<4096x1000xf16>) outs(%f : tensor<1000x1000xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1000x1000xf32>
  %e2 = tensor.empty() : tensor<1000x1000xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<1000x1000xf32>) outs(%e2 : tensor<1000x1000xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1000x1000xf16>
  return %o : tensor<1000x1000xf16>
}
func.func @deep_square(%a: tensor<2048x4096xbf16>, %b: tensor<4096x1024xbf16>) -> tensor<2048x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2048x4096xbf16>, tensor<4096x1024xbf16>) outs(%f : tensor<2048x1024xf32>) {
  ^bb0(%x: bf16, %y: bf16, %c: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<2048x1024xf32>
  %e2 = tensor.empty() : tensor<2048x1024xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<2048x1024xf32>) outs(%e2 : tensor<2048x1024xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2048x1024xbf16>
  return %o : tensor<2048x1024xbf16>
}
func.func @deep_skinny(%a: tensor<64x4096xbf16>, %b: tensor<4096x8192xbf16>) -> tensor<64x8192xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x8192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x8192xf32>) -> tensor<64x8192xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x4096xbf16>, tensor<4096x8192xbf16>) outs(%f : tensor<64x8192xf32>) {
  ^bb0(%x: bf16, %y: bf16, %c: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x8192xf32>
  %e2 = tensor.empty() : tensor<64x8192xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x8192xf32>) outs(%e2 : tensor<64x8192xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x8192xbf16>
  return %o : tensor<64x8192xbf16>
}
