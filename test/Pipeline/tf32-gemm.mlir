// TF32 (docs/pipeline.md, "TF32"). Without the user's permission, the f32
// linear layer (both inputs K-contiguous) takes warpgroup MMA as three
// TF32 products on split inputs (tf32_terms = 3; docs/pipeline.md, "Split
// TF32 products"): its PTX rounds each landed tile to TF32 high and low
// parts (the mask of the 13 bits below TF32's mantissa) before the tf32
// wgmma, the first product of each K tile starts from zero (scale-d 0)
// and the tile's sum is added in f32; the manifest does not claim TF32,
// so egg-eval judges it at f32's precision. The plain product (B
// N-contiguous) is split too: B's 16-byte pieces are copied along N into
// the low parts' tiles, then read back as columns of 4 K values after a
// barrier and stored K-major (16-byte stores) after another.
// With `allow-tf32` the expert takes one TF32 product (K steps of 32 f32,
// stored K-major: 16-byte pieces of the linear layer's operands, 4-byte
// transposing copies of the product's B), the PTX holds wgmma's tf32 form
// and the manifest tells egg-eval that TF32 was allowed. Replaying those
// decisions without the permission is an error, never a silent TF32.
// RUN: egg-opt %s --egg-pipeline="record=%t.f32.json" -o %t.f32.mlir
// RUN: FileCheck %s --check-prefix=F32 < %t.f32.json
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.f32.mlir.ptx.d %t.f32.mlir | xargs cat | FileCheck %s --check-prefix=F32-PTX
// RUN: egg-translate --egg-to-manifest %t.f32.mlir | FileCheck %s --check-prefix=F32-MANIFEST
// RUN: egg-opt %s --egg-pipeline="allow-tf32=true record=%t.tf32.json" -o %t.tf32.mlir
// RUN: FileCheck %s --check-prefix=TF32 < %t.tf32.json
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.tf32.mlir.ptx.d %t.tf32.mlir | xargs cat | FileCheck %s --check-prefix=TF32-PTX
// RUN: egg-translate --egg-to-manifest %t.tf32.mlir | FileCheck %s --check-prefix=MANIFEST
// RUN: not egg-opt %s --egg-pipeline="agent=replay decisions=%t.tf32.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DENIED

// F32-COUNT-2: "tuning": "#egg.tuning<threads = [128, 1, 2], block = [128, 128], warp = [64, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, tf32_terms = 3, mma = wgmma>"
// F32-PTX-LABEL: .entry linear_tf32_k0_kernel(
// F32-PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// F32-PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
// F32-PTX-DAG: setp.ne.b32 p, 0, 0;
// F32-PTX-DAG: add.rn.f32
// F32-PTX-DAG: add.s32 [[BITS:%r[0-9]+]], {{%r[0-9]+}}, 4096;
// F32-PTX-DAG: and.b32 {{%r[0-9]+}}, [[BITS]], -8192;
// F32-PTX-LABEL: .entry matmul_tf32_k0_kernel(
// F32-PTX-NOT: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// F32-PTX: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// F32-PTX: cp.async.wait_group 1;
// F32-PTX: bar.sync 0;
// F32-PTX-COUNT-4: ld.shared.b32
// F32-PTX: bar.sync 0;
// F32-PTX: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -8192;
// F32-PTX: st.shared.v4.b32
// F32-PTX-NOT: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// F32-PTX-NOT: fma.rn.f32
// F32-MANIFEST-NOT: allow_tf32

// TF32-COUNT-2: "tuning": "#egg.tuning<threads = [128, 2, 1], block = [128, 256], warp = [128, 128], reduction = [32], shared = [0, 1], swizzle = xor128, vector = 4, copy = cp_async, pipeline = 4, mma = wgmma>"
// TF32-PTX-LABEL: .entry linear_tf32_k0_kernel(
// TF32-PTX-NOT: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// TF32-PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// TF32-PTX-NOT: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// TF32-PTX-NOT: -8192
// TF32-PTX: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// TF32-PTX-LABEL: .entry matmul_tf32_k0_kernel(
// TF32-PTX: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// TF32-PTX: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// TF32-PTX-NOT: wgmma.mma_async.sync.aligned.{{.*}}.f16

// MANIFEST: "allow_tf32": true

// DENIED: error: {{.*}}f32 products reach tensor cores only as TF32 (10-bit mantissas), which the user must allow

func.func @linear_tf32(%x: tensor<1024x256xf32>, %w: tensor<4096x256xf32>) -> tensor<1024x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x4096xf32>) -> tensor<1024x4096xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1024x256xf32>, tensor<4096x256xf32>) outs(%f : tensor<1024x4096xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1024x4096xf32>
  return %y : tensor<1024x4096xf32>
}

func.func @matmul_tf32(%x: tensor<1024x256xf32>, %w: tensor<256x4096xf32>) -> tensor<1024x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x4096xf32>) -> tensor<1024x4096xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1024x256xf32>, tensor<256x4096xf32>) outs(%f : tensor<1024x4096xf32>) -> tensor<1024x4096xf32>
  return %y : tensor<1024x4096xf32>
}
