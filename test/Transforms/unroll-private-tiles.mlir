// RUN: egg-opt %s -split-input-file -egg-unroll-private-tiles | FileCheck %s
// RUN: egg-opt %s -split-input-file -egg-unroll-private-tiles="max-ops=8" | FileCheck %s --check-prefix=SMALL

// A thread's four outputs in a private tile: the loop over them is unrolled
// (each access at a constant index); the window loop inside, which does not
// index the tile, stays.
// CHECK-LABEL: func.func @four_outputs
// CHECK: memref.alloca() : memref<4xf32>
// CHECK-NOT: to %c4
// CHECK-COUNT-4: scf.for %{{.*}} = %c0 to %c3
// CHECK-NOT: scf.for
// SMALL-LABEL: func.func @four_outputs
// SMALL-COUNT-2: scf.for
func.func @four_outputs(%x: memref<1024xf32>, %y: memref<1024xf32>)
    attributes {egg.structure = #egg.structure<conv_direct>,
                egg.tuning = #egg.tuning<threads = [1], block = [4], thread = [4]>} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %low = arith.constant 0xFF800000 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %low, %t[%i] : memref<4xf32>
      scf.for %k = %c0 to %c3 step %c1 {
        %p = arith.addi %i, %k : index
        %v = memref.load %x[%p] : memref<1024xf32>
        %a = memref.load %t[%i] : memref<4xf32>
        %m = arith.maximumf %a, %v : f32
        memref.store %m, %t[%i] : memref<4xf32>
      }
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.load %t[%i] : memref<4xf32>
      memref.store %a, %y[%i] : memref<1024xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A loop that only accumulates into one element, and a tile too large for
// registers, keep their loops.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: scf.for
func.func @kept(%x: memref<1024xf32>, %y: memref<1024xf32>)
    attributes {egg.structure = #egg.structure<conv_direct>,
                egg.tuning = #egg.tuning<threads = [1], block = [4], thread = [4]>} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloca() : memref<1xf32>
    memref.store %zero, %acc[%c0] : memref<1xf32>
    scf.for %k = %c0 to %c256 step %c1 {
      %v = memref.load %x[%k] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<1xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0] : memref<1xf32>
    }
    %big = memref.alloca() : memref<256xf32>
    scf.for %k = %c0 to %c256 step %c1 {
      %v = memref.load %x[%k] : memref<1024xf32>
      memref.store %v, %big[%k] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Rows shared by lanes keep their loops: egg-distribute-rows plans their
// registers.
// CHECK-LABEL: func.func @shared_rows
// CHECK: scf.for
func.func @shared_rows(%x: memref<1024xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_warp>,
                egg.tuning = #egg.tuning<threads = [32], block = [1, 0], warp = [1, 0]>} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i] : memref<1024xf32>
      memref.store %v, %t[%i] : memref<4xf32>
    }
    gpu.terminator
  }
  return
}
