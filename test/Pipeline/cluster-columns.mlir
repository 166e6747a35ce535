// A column mean whose rows the 4 blocks of a thread-block cluster share
// (`cluster = 4`, docs/pipeline.md, "Column reductions"): block r of a
// cluster (grid z) reduces rows [r * 256, (r + 1) * 256) of its 64
// columns; after a cluster barrier block 0 adds the other blocks' row 0
// over distributed shared memory (mapa) and runs the epilogue; a second
// cluster barrier keeps their shared memory until then. The kernel carries
// its cluster size at compile time (egg-cluster-kernels), so a plain
// launch forms the clusters.
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/cluster-columns.json" -o %t.mlir --mlir-print-ir-after=egg-lower-column-reductions 2> %t.ir
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ir
// RUN: egg-opt %s --egg-pipeline="agent=replay decisions=%S/Inputs/cluster-columns.json" -o /dev/null --mlir-print-ir-after=egg-cluster-kernels 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// RUN: egg-translate --egg-to-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// IR: gpu.launch clusters(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE:[a-z0-9_]+]], %{{.*}} = %[[ONE]], %{{.*}} = %[[C4:[a-z0-9_]+]]) blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[BZ:[a-z0-9_]+]]) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[C4]])
// The slice's first row: block z times 1024 / 4.
// IR: %[[START:.*]] = arith.muli %[[BZ]], %c256
// IR: scf.for
// IR: arith.addi %[[START]],
// IR: nvvm.cluster.arrive {aligned}
// IR-NEXT: nvvm.cluster.wait {aligned}
// IR: scf.if
// IR: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr -> !llvm.ptr
// IR: llvm.load %{{.*}} : !llvm.ptr -> f32
// IR: arith.divf
// IR: nvvm.cluster.arrive {aligned}
// IR-NEXT: nvvm.cluster.wait {aligned}
// 40 rows over 4 blocks: 10 per slice, fewer than the 32 rows of threads,
// so the first 10 threads of each block read one row each, from the
// slice's start.
// IR-LABEL: func.func private @short_k0(
// IR: blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[BZ2:[a-z0-9_]+]])
// IR: %[[START2:.*]] = arith.muli %[[BZ2]], %c10
// (The unrolled row loop runs no step.)
// IR: scf.for %{{.*}} = %{{.*}} to %c0
// IR: %[[HAS:.*]] = arith.cmpi ult, %{{.*}}, %c10
// IR: scf.if %[[HAS]]
// IR: %[[ROW:.*]] = arith.addi %[[START2]], %c0
// IR: arith.addi %[[ROW]], %{{.*}}
// IR: nvvm.cluster.arrive {aligned}

// KERNEL: gpu.func @col_mean_k0_kernel
// KERNEL-SAME: known_cluster_size = array<i32: 1, 1, 4>

// PTX-LABEL: .entry col_mean_k0_kernel(
// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 1, 1, 4
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// Three other blocks, four columns per thread.
// PTX-COUNT-12: mapa.u64
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;

// MANIFEST: "block": [
// MANIFEST-NEXT: 16,
// MANIFEST-NEXT: 32,
// MANIFEST-NEXT: 1
// MANIFEST-NEXT: ],
// MANIFEST: "grid": [
// MANIFEST-NEXT: 4,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 4
func.func @col_mean(%x: tensor<1024x256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.reduce ins(%x : tensor<1024x256xf32>) outs(%acc : tensor<256xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<256xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
      ins(%r : tensor<256xf32>) outs(%e2 : tensor<256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.divf %a, %n : f32
    linalg.yield %d : f32
  } -> tensor<256xf32>
  return %o : tensor<256xf32>
}

func.func @short(%x: tensor<40x128xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%x : tensor<40x128xf32>) outs(%acc : tensor<128xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<128xf32>
}
