// RUN: egg-opt %s -split-input-file -egg-distribute-rows -verify-diagnostics | FileCheck %s

// A warp per row: the lanes stride over the row with 16-byte loads, eight
// of them issued before their adds (128 bytes in flight per lane), keep a
// partial sum each, and combine them with five butterfly shuffles; the
// elementwise op along the row is strided the same way. (The row is too long
// to hold in registers: 256 bytes per lane.)
// CHECK-LABEL: func.func private @warp_row
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: %[[POS:.*]] = arith.addi %{{.*}}, %[[LANE]] : index
// CHECK: %[[ROW:.*]] = arith.muli %[[POS]], %{{.*}} : index
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[ROW]]] {alignment = 16 : i64} : memref<1x2048xf32{{.*}}>, vector<4xf32>
// CHECK-NOT: arith.addf
// CHECK-COUNT-7: vector.load
// CHECK-COUNT-32: arith.addf
// CHECK: scf.yield
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1x2048xf32{{.*}}>, vector<4xf32>
// CHECK-NOT: linalg.generic
func.func private @warp_row(%in: memref<1x2048xf32>, %sum: memref<1xf32>, %out: memref<1x2048xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [1], warp = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x2048xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %sum : memref<1x2048xf32>, memref<1xf32>) outs(%out : memref<1x2048xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %t = arith.subf %a, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Rows held in registers: a block per row whose row (4 steps of 4 f32 per
// lane, 64 bytes) is read by the max, the exp-sum and the normalisation is
// loaded by the first op only; the steps run in line, and the
// normalisation's stores still happen. The normalisation divides by the
// row's sum through one reciprocal per step.
// CHECK-LABEL: func.func private @held_row
// CHECK-NOT: scf.for
// CHECK-COUNT-4: vector.load %{{.*}} : memref<1x8192xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK: gpu.barrier
// CHECK-NOT: vector.load
// CHECK: math.exp
// CHECK-NOT: vector.load
// CHECK: gpu.barrier
// CHECK-NOT: vector.load
// CHECK: %[[R:.*]] = arith.divf %cst, %{{.*}} : f32
// CHECK-COUNT-4: arith.mulf %{{.*}}, %[[R]] : f32
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}} : memref<1x8192xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK-COUNT-3: vector.store %{{.*}} : memref<1x8192xf32>, vector<4xf32>
// CHECK-NOT: scf.for
func.func private @held_row(%in: memref<1x8192xf32>, %max: memref<1xf32>, %sum: memref<1xf32>, %out: memref<1x8192xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [512], block = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x8192xf32>) outs(%max : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maximumf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in, %max : memref<1x8192xf32>, memref<1xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %m: f32, %s: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %t = arith.addf %e, %s : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %max, %sum : memref<1x8192xf32>, memref<1xf32>, memref<1xf32>) outs(%out : memref<1x8192xf32>) {
    ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %t = arith.divf %e, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Two rows of one buffer (maps that place the row differently): the second
// op reuses what the first loaded of row 0 and loads row 1 itself.
// CHECK-LABEL: func.func private @held_other_row
// CHECK-COUNT-2: vector.load %{{.*}} : memref<2x1024xf32>, vector<4xf32>
// CHECK: gpu.shuffle
// CHECK-COUNT-2: vector.load %{{.*}} : memref<2x1024xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK-COUNT-2: vector.store
func.func private @held_other_row(%in: memref<2x1024xf32>, %sum: memref<1xf32>, %out: memref<1x1024xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [128], block = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<2x1024xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %s: f32):
      %t = arith.addf %a, %s : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (1, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %in, %sum : memref<2x1024xf32>, memref<2x1024xf32>, memref<1xf32>) outs(%out : memref<1x1024xf32>) {
    ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
      %d = arith.subf %b, %a : f32
      %t = arith.mulf %d, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// An op whose output a later op reads along the row: the stored values are
// forwarded to the reader (one load of the input, none of the output).
// CHECK-LABEL: func.func private @held_forward
// CHECK-COUNT-2: vector.load %{{.*}} : memref<1x1024xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK-COUNT-2: vector.store %{{.*}} : memref<1x1024xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK: gpu.shuffle
func.func private @held_forward(%in: memref<1x1024xf32>, %tmp: memref<1x1024xf32>, %sum: memref<1xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [128], block = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<1x1024xf32>) outs(%tmp : memref<1x1024xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = arith.mulf %a, %a : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%tmp : memref<1x1024xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %s: f32):
      %t = arith.addf %a, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A block per row: per-warp shuffles, one partial per warp in workgroup
// memory, barriers around it. 16-bit accumulators cross lanes as f32.
// CHECK-LABEL: func.func private @block_row
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[WG:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.thread_id  x
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[WG]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[WG]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func private @block_row(%in: memref<1x4096xbf16>, %max: memref<1xbf16>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [256], block = [1], vector = 8>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x4096xbf16>) outs(%max : memref<1xbf16>) {
    ^bb0(%a: bf16, %b: bf16):
      %t = arith.maximumf %a, %b : bf16
      linalg.yield %t : bf16
    }
    gpu.terminator
  }
  return
}

// -----

// A sum of 16-bit floats keeps each lane's partial in f32: every element is
// widened and added in f32, the lanes combine in f32, and the row's sum is
// rounded to f16 once, before it is added to the output's old value.
// CHECK-LABEL: func.func private @f16_row_sum
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK-NOT: arith.addf {{.*}} : f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %[[ACC]], %{{.*}} : f32
// CHECK: scf.yield %{{.*}} : f32
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}} : f32
// CHECK: %[[SUM:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.addf %[[SUM]], %{{.*}} : f16
func.func private @f16_row_sum(%in: memref<1x8192xf16>, %sum: memref<1xf16>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [1], warp = [1], vector = 8>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x8192xf16>) outs(%sum : memref<1xf16>) {
    ^bb0(%a: f16, %b: f16):
      %t = arith.addf %a, %b : f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

// -----

// Rows that do not divide into whole chunks of lanes x vector: the three
// whole steps run unguarded (their loads together), the last one is guarded.
// CHECK-LABEL: func.func private @ragged_row
// CHECK: scf.for
// CHECK-COUNT-3: memref.load %{{.*}} : memref<1x100xf32>
// CHECK: scf.yield
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<1x100xf32>
func.func private @ragged_row(%in: memref<1x100xf32>, %sum: memref<1xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [1], warp = [1]>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x100xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A row written in parts by the lanes and then read across (a reversal):
// nothing is distributed, every lane computes whole rows, and a warning
// says why.
// CHECK-LABEL: func.func private @reversed
// CHECK-NOT: gpu.lane_id
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func private @reversed(%in: memref<1x64xf32>, %tmp: memref<1x64xf32>, %out: memref<1x64xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [1], warp = [1]>} {
  %c1 = arith.constant 1 : index
  // expected-warning @+1 {{rows are not shared among lanes (an operand indexed by the row other than along its last dimension): every lane computes whole rows}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<1x64xf32>) outs(%tmp : memref<1x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, 63 - j)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%tmp : memref<1x64xf32>) outs(%out : memref<1x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Kernels whose rows are not shared are left alone.
// CHECK-LABEL: func.func private @serial
// CHECK-NOT: gpu.lane_id
// CHECK: linalg.generic
func.func private @serial(%in: memref<1x64xf32>, %sum: memref<1xf32>)
    attributes {egg.structure = #egg.structure<reduce_serial>,
                egg.tuning = #egg.tuning<threads = [32], block = [32], thread = [1]>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x64xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Rows of 24 f32 with vector 4 take 8 lanes: a warp owns 4 rows (warp tile
// 4). Lane l works on row l / 8 at positions (l % 8) * 4 (the last step
// guarded), the partial sums combine over clusters of 8 lanes (three
// shuffles), and the per-row mean (no row loop) is computed at the lane's
// own row only.
// CHECK-LABEL: func.func private @rows_per_warp
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[POS:.*]] = arith.remui %[[LANE]], %c8
// CHECK: %[[GROUP:.*]] = arith.divui %[[LANE]], %c8
// CHECK: %[[ROW:.*]] = arith.remui %[[GROUP]], %c4
// CHECK: %[[COL:.*]] = arith.muli %[[POS]], %c4
// CHECK: arith.cmpi ult, %[[COL]], %c24
// CHECK: vector.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]]]
// CHECK: %[[R2:.*]] = arith.remui %[[GROUP]], %c4
// CHECK: memref.load %{{.*}}[%[[R2]]]
// CHECK: arith.divf
// CHECK: memref.store
// CHECK-NOT: linalg.generic
func.func private @rows_per_warp(%in: memref<4x24xf32>, %sum: memref<4xf32>, %mean: memref<4xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [4], warp = [4], vector = 4>} {
  %c1 = arith.constant 1 : index
  %n = arith.constant 24.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<4x24xf32>) outs(%sum : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                    iterator_types = ["parallel"]}
        ins(%sum : memref<4xf32>) outs(%mean : memref<4xf32>) {
    ^bb0(%s: f32, %o: f32):
      %m = arith.divf %s, %n : f32
      linalg.yield %m : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A block per row reducing into a buffer all its threads share: every
// thread reads the output's old value before the barriers of the lane
// combination, since past them another warp may already have stored its
// result (reading that would add the row twice).
// CHECK-LABEL: func.func private @block_row_shared_output
// CHECK: gpu.launch
// CHECK: memref.load %[[OUT:.*]][
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: memref.load %[[OUT]][
// CHECK: memref.store %{{.*}}, %[[OUT]][
func.func private @block_row_shared_output(%in: memref<1x8192xf32>, %sum: memref<1xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [256], block = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x8192xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A 16-bit row divided by a value of the row: the reciprocal in f32, each
// element's product in f32 rounded once to f16 (no division per element).
// CHECK-LABEL: func.func private @divide_f16_row
// CHECK: %[[S:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK-COUNT-8: arith.mulf %{{.*}}, %[[R]] : f32
// CHECK-NOT: arith.divf
// CHECK: vector.store %{{.*}} : memref<1x256xf16>, vector<8xf16>
func.func private @divide_f16_row(%in: memref<1x256xf16>, %sum: memref<1xf16>, %out: memref<1x256xf16>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [32], block = [1], vector = 8>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %sum : memref<1x256xf16>, memref<1xf16>) outs(%out : memref<1x256xf16>) {
    ^bb0(%a: f16, %s: f16, %o: f16):
      %t = arith.divf %a, %s : f16
      linalg.yield %t : f16
    }
    gpu.terminator
  }
  return
}

// -----

// Several rows per warp, held in registers: 8 rows of 8 f32 (warp tile 8,
// vector 2: 4 lanes per row, one whole step). The max and the subtraction
// read the row once; the subtraction takes the values the max loaded, at the
// lane's own row.
// CHECK-LABEL: func.func private @rows_per_warp_held
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c4
// CHECK: %[[ROW:.*]] = arith.remui %[[GROUP]], %c8
// CHECK: %[[X:.*]] = vector.load %[[IN:.*]][%[[ROW]], %{{.*}}] {{.*}} : memref<8x8xf32>, vector<2xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0]
// CHECK-COUNT-2: gpu.shuffle  xor
// CHECK-NOT: vector.load
// CHECK: arith.subf %[[X0]]
// CHECK: vector.store
func.func private @rows_per_warp_held(%in: memref<8x8xf32>, %max: memref<8xf32>, %out: memref<8x8xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [8], warp = [8], vector = 2>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<8x8xf32>) outs(%max : memref<8xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maximumf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %max : memref<8x8xf32>, memref<8xf32>) outs(%out : memref<8x8xf32>) {
    ^bb0(%a: f32, %m: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      linalg.yield %d : f32
    }
    gpu.terminator
  }
  return
}
