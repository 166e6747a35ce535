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
