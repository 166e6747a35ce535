// RUN: egg-opt %s -split-input-file -egg-lower-scans -verify-diagnostics | FileCheck %s

// A cumulative sum as egg-map-to-gpu leaves it: a block of 4 rows, a warp
// per row, vector 4, rows of 200 (two steps of 128, the second partial).
// Each step loads 4 elements per lane (guarded past the row's end), scans
// them, scans the lanes' totals with five shfl.up rounds, adds the carry
// and the lanes before, stores, and carries lane 31's total.
// CHECK-LABEL: func.func private @k
// CHECK: gpu.launch
// CHECK: gpu.lane_id
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2 step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x200xf32, strided<[200, 1], offset: ?>>, vector<4xf32>
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.shuffle  up %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: gpu.shuffle  idx
// CHECK: vector.from_elements
// CHECK: vector.store %{{.*}} {alignment = 16 : i64}
// CHECK-NOT: egg.scan
func.func private @k(%x: memref<64x200xf32>, %y: memref<64x200xf32>)
    attributes {egg.structure = #egg.structure<scan_warp>,
                egg.tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %w = arith.divui %tx, %c32 : index
    %r0 = arith.muli %bx, %c4 : index
    %r = arith.addi %r0, %w : index
    %in = memref.subview %x[%r, 0] [1, 200] [1, 1] : memref<64x200xf32> to memref<1x200xf32, strided<[200, 1], offset: ?>>
    %out = memref.subview %y[%r, 0] [1, 200] [1, 1] : memref<64x200xf32> to memref<1x200xf32, strided<[200, 1], offset: ?>>
    egg.scan add %in into %out : memref<1x200xf32, strided<[200, 1], offset: ?>>, memref<1x200xf32, strided<[200, 1], offset: ?>>
    gpu.terminator
  }
  return
}

// -----

// A reverse exclusive scan (flip(cumsum(flip(x))) - x, in one pass): lane
// l's vector of step k is read at 200 - (128k + 4l) - 4, its elements taken
// from the last, and each element stores what the elements after it hold
// (the first in the lane's run: the carry and the lanes before it alone).
// CHECK-LABEL: func.func private @reverse_exclusive
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[START:.*]] = arith.muli %[[LANE]], %c4
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c2 step %{{.*}} iter_args(%[[CARRY:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[STEP:.*]] = arith.muli %[[K]], %c128
// CHECK: %[[BASE:.*]] = arith.addi %[[STEP]], %[[START]]
// CHECK: %[[AT:.*]] = arith.subi %c196, %[[BASE]]
// CHECK: arith.cmpi ult, %[[BASE]], %c200
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%{{.*}}, %[[AT]]]
// CHECK: %[[E0:.*]] = vector.extract %{{.*}}[3]
// CHECK: %[[E1:.*]] = vector.extract %{{.*}}[2]
// CHECK: %[[S1:.*]] = arith.addf %[[E0]], %[[E1]]
// CHECK: %[[WITH:.*]] = arith.addf %[[CARRY]], %{{.*}} : f32
// CHECK: %[[PREFIX:.*]] = arith.select %{{.*}}, %[[WITH]], %[[CARRY]] : f32
// CHECK: %[[R1:.*]] = arith.addf %[[PREFIX]], %[[E0]]
// CHECK: %[[R2:.*]] = arith.addf %[[PREFIX]], %[[S1]]
// CHECK: %[[R3:.*]] = arith.addf %[[PREFIX]], %{{.*}}
// CHECK: vector.from_elements %[[R3]], %[[R2]], %[[R1]], %[[PREFIX]] : vector<4xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[AT]]]
func.func private @reverse_exclusive(%x: memref<64x200xf32>, %y: memref<64x200xf32>)
    attributes {egg.structure = #egg.structure<scan_warp>,
                egg.tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %w = arith.divui %tx, %c32 : index
    %r0 = arith.muli %bx, %c4 : index
    %r = arith.addi %r0, %w : index
    %in = memref.subview %x[%r, 0] [1, 200] [1, 1] : memref<64x200xf32> to memref<1x200xf32, strided<[200, 1], offset: ?>>
    %out = memref.subview %y[%r, 0] [1, 200] [1, 1] : memref<64x200xf32> to memref<1x200xf32, strided<[200, 1], offset: ?>>
    egg.scan add reverse exclusive %in into %out : memref<1x200xf32, strided<[200, 1], offset: ?>>, memref<1x200xf32, strided<[200, 1], offset: ?>>
    gpu.terminator
  }
  return
}

// -----

// A warp's tile must be one row.
func.func private @k(%x: memref<64x200xf32>, %y: memref<64x200xf32>)
    attributes {egg.structure = #egg.structure<scan_warp>,
                egg.tuning = #egg.tuning<threads = [128], block = [4], warp = [1], vector = 4>} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %in = memref.subview %x[0, 0] [2, 200] [1, 1] : memref<64x200xf32> to memref<2x200xf32, strided<[200, 1]>>
    %out = memref.subview %y[0, 0] [2, 200] [1, 1] : memref<64x200xf32> to memref<2x200xf32, strided<[200, 1]>>
    // expected-error @+1 {{scan_warp gives a warp one row, got a tile of 'memref<2x200xf32, strided<[200, 1]>>' (warp tile 1 on every row loop)}}
    egg.scan add %in into %out : memref<2x200xf32, strided<[200, 1]>>, memref<2x200xf32, strided<[200, 1]>>
    gpu.terminator
  }
  return
}

// -----

// A scan outside a scan_warp kernel is not lowered.
func.func @host(%x: memref<64x200xf32>, %y: memref<64x200xf32>) {
  // expected-error @+1 {{is left after egg-lower-scans: only scan_warp kernels lower scans}}
  egg.scan add %x into %y : memref<64x200xf32>, memref<64x200xf32>
  return
}
