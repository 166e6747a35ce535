// Partial M/N tiles (docs/pipeline.md, "Partial tiles"): a linear layer of
// 1000 outputs over 500 rows with bias and ReLU, f32, whose M and N no
// shared-memory tile divides. The expert takes 64 x 64 tiles anyway; the
// block loop runs over ceil(500 / 64) x ceil(1000 / 64) tiles whose sizes
// are clipped at the edge, copies past it read 0 bytes (cp.async with a
// source size), and the bias loads and the stores past it are skipped.
// RUN: egg-opt %s --egg-pipeline="split-k=false record=%t.json" -o %t.mlir
// RUN: FileCheck %s --check-prefix=TUNING < %t.json
// RUN: egg-opt %s --egg-pipeline="split-k=false" --mlir-print-ir-after=egg-apply-schedule -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: egg-opt %s --egg-pipeline="split-k=false" --mlir-print-ir-after=egg-lower-shared-gemm -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// RUN: egg-translate --egg-to-ptx --egg-ptx-dir=%t.mlir.ptx.d %t.mlir | xargs cat | FileCheck %s --check-prefix=PTX
// TUNING: "tuning": "#egg.tuning<threads = [16, 16], block = [64, 64], thread = [4, 4], reduction = [16], shared = [0, 1], padding = 4, vector = 4, copy = cp_async, pipeline = 3>"
// TILED-DAG: #[[ROWS:.*]] = affine_map<(d0) -> (-d0 + 500, 64)>
// TILED-DAG: #[[COLS:.*]] = affine_map<(d0) -> (-d0 + 1000, 64)>
// TILED: scf.forall (%[[I:.*]], %[[J:.*]]) in (8, 16)
// TILED: affine.min #[[ROWS]]
// TILED: affine.min #[[COLS]]
// TILED: tensor.extract_slice %{{.*}} : tensor<500x1024xf32> to tensor<?x1024xf32>
// The copies of x: a row inside the block's (dynamic) rows reads its
// element, one past them reads none.
// IR: %[[ROWSV:.*]] = affine.min
// IR-NEXT: %[[COLSV:.*]] = affine.min
// IR: %[[IN:.*]] = arith.cmpi ult, %[[ROW:.*]], %[[ROWSV]] : index
// IR: %[[READ:.*]] = arith.select %[[IN]], %c1{{.*}}, %c0{{.*}} : index
// IR: nvgpu.device_async_copy %{{.*}}[%[[ROW]], %{{.*}}], %{{.*}}, 1, %[[READ]]
// The epilogue: the bias read at columns clamped into the tile, the 4-wide
// stores guarded.
// IR: %[[LAST:.*]] = arith.subi %[[COLSV]], %c1{{.*}} : index
// IR-NEXT: %[[COL:.*]] = arith.minui %{{.*}}, %[[LAST]] : index
// IR: memref.load %{{.*}}[%[[COL]]] : memref<?xf32
// IR: {{scf.if %[0-9]+ \{$}}
// IR-NEXT: vector.from_elements
// IR-NEXT: vector.store
// In PTX the source size of rows every block has (the last one has 52)
// folds to 4 bytes; the others take it from a register.
// PTX: cp.async.ca.shared.global [%{{.*}}], [%{{.*}}], 4, 4;
// PTX: cp.async.ca.shared.global [%{{.*}}], [%{{.*}}], 4, %r{{[0-9]+}};
func.func @linear_odd(%x: tensor<500x1024xf32>, %w: tensor<1000x1024xf32>,
                      %bias: tensor<1000xf32>) -> tensor<500x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<500x1000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<500x1000xf32>) -> tensor<500x1000xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<500x1024xf32>, tensor<1000x1024xf32>) outs(%acc : tensor<500x1000xf32>) {
  ^bb0(%xv: f32, %wv: f32, %a: f32):
    %p = arith.mulf %xv, %wv : f32
    %s = arith.addf %a, %p : f32
    linalg.yield %s : f32
  } -> tensor<500x1000xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<500x1000xf32>, tensor<1000xf32>) outs(%e : tensor<500x1000xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %relu = arith.maximumf %s, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<500x1000xf32>
  return %r : tensor<500x1000xf32>
}
