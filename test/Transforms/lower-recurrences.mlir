// RUN: egg-opt %s -split-input-file -egg-lower-recurrences -verify-diagnostics | FileCheck %s

// A tanh RNN as egg-map-to-gpu leaves it: two blocks of 2 batch rows, 64
// threads for 96 units (units 64 to 95 take a second turn, k whole),
// unrolled by 8 (96 = 12 x 8). Each step (T-1 down to 0) copies the rows'
// previous h into shared memory (the initial h at the first step, else the
// sequence at t + 1), sums h . weight with fused multiply-adds, adds the
// bias, runs the cell and stores h into the finals and the sequence at t;
// barriers after the copy and after the step.
// CHECK-LABEL: func.func private @rnn
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[H:.*]] : memref<2x96xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK: scf.for %[[STEP:.*]] = %c0{{.*}} to %c7{{.*}} step %c1
// CHECK: %[[T:.*]] = arith.subi %c6, %[[STEP]]
// CHECK: %[[PREV:.*]] = arith.addi %[[T]], %c1
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %c0
// CHECK: scf.for %{{.*}} = %[[TID]] to %c192{{.*}} step %c64
// CHECK: scf.if %[[FIRST]] -> (f32)
// CHECK: memref.load %subview_0
// CHECK: } else {
// CHECK: memref.load %{{.*}}[%[[PREV]], %{{.*}}, %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[H]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[U:[a-z0-9_]+]] = %[[TID]] to %c96{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c8{{.*}} iter_args({{.*}}) -> (f32, f32)
// CHECK-COUNT-16: math.fma
// CHECK: scf.yield
// CHECK: memref.load %{{.*}}[%[[T]], %c0{{.*}}, %{{.*}}]
// CHECK: math.tanh
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]], %c0{{.*}}, %{{.*}}]
// CHECK: math.tanh
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]], %c1{{.*}}, %{{.*}}]
// CHECK: gpu.barrier
// CHECK-NOT: egg.recurrence
func.func private @rnn(%x: memref<7x4x96xf32>, %w: memref<96x96xf32>, %b: memref<96xf32>,
                       %h0: memref<4x96xf32>, %s: memref<7x4x96xf32>, %f: memref<4x96xf32>)
    attributes {egg.structure = #egg.structure<recurrence_block>,
                egg.tuning = #egg.tuning<threads = [64], block = [2]>} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %row = arith.muli %bx, %c2 : index
    %xv = memref.subview %x[0, %row, 0] [7, 2, 96] [1, 1, 1] : memref<7x4x96xf32> to memref<7x2x96xf32, strided<[384, 96, 1], offset: ?>>
    %hv = memref.subview %h0[%row, 0] [2, 96] [1, 1] : memref<4x96xf32> to memref<2x96xf32, strided<[96, 1], offset: ?>>
    %sv = memref.subview %s[0, %row, 0] [7, 2, 96] [1, 1, 1] : memref<7x4x96xf32> to memref<7x2x96xf32, strided<[384, 96, 1], offset: ?>>
    %fv = memref.subview %f[%row, 0] [2, 96] [1, 1] : memref<4x96xf32> to memref<2x96xf32, strided<[96, 1], offset: ?>>
    egg.recurrence ins(%xv, %w, %b, %hv : memref<7x2x96xf32, strided<[384, 96, 1], offset: ?>>, memref<96x96xf32>, memref<96xf32>, memref<2x96xf32, strided<[96, 1], offset: ?>>)
        outs(%sv, %fv : memref<7x2x96xf32, strided<[384, 96, 1], offset: ?>>, memref<2x96xf32, strided<[96, 1], offset: ?>>) attributes {reverse} {
    ^bb0(%xi: f32, %hi: f32, %h: f32):
      %a = arith.addf %xi, %hi : f32
      %t = math.tanh %a : f32
      egg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Clusters and slices of k: 2 blocks of a cluster (grid z) take 32 of the 64
// units each; 128 threads split k into 4 slices of 16 (unrolled by 8),
// whose sums meet in shared memory, added in slice order for each (row,
// unit) before the cell. The state past h (c) starts in the finals. A
// cluster barrier ends each step.
// CHECK-LABEL: func.func private @sliced
// CHECK: gpu.launch clusters(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %[[Z:[a-z0-9_]+]])
// CHECK-SAME: blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %[[Z]])
// CHECK-SAME: workgroup(%[[H:.*]] : memref<1x64xf32, #gpu.address_space<workgroup>>, %[[P:.*]] : memref<4x1x32xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c32
// CHECK: memref.load %subview_3
// CHECK: memref.store %{{.*}}, %subview_6
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: %[[UNIT:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[SLICE:.*]] = arith.divui %{{.*}}, %c32
// CHECK: %[[K0:.*]] = arith.muli %[[SLICE]], %c16
// CHECK: %[[END:.*]] = arith.addi %[[K0]], %c16
// CHECK: scf.for %{{.*}} = %[[K0]] to %[[END]] step %c8{{.*}} iter_args({{.*}}) -> (f32)
// CHECK-COUNT-8: math.fma
// CHECK: memref.store %{{.*}}, %[[P]][%[[SLICE]], %c0{{.*}}, %[[UNIT]]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[P]]
// CHECK: math.tanh
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
func.func private @sliced(%x: memref<3x2x64xf32>, %w: memref<64x64xf32>, %b: memref<64xf32>,
                          %h0: memref<2x64xf32>, %c0: memref<2x64xf32>, %s: memref<3x2x64xf32>,
                          %fh: memref<2x64xf32>, %fc: memref<2x64xf32>)
    attributes {egg.structure = #egg.structure<recurrence_block>,
                egg.tuning = #egg.tuning<threads = [128], block = [1], cluster = 2>} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %xv = memref.subview %x[0, %bx, 0] [3, 1, 64] [1, 1, 1] : memref<3x2x64xf32> to memref<3x1x64xf32, strided<[128, 64, 1], offset: ?>>
    %hv = memref.subview %h0[%bx, 0] [1, 64] [1, 1] : memref<2x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %cv = memref.subview %c0[%bx, 0] [1, 64] [1, 1] : memref<2x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %sv = memref.subview %s[0, %bx, 0] [3, 1, 64] [1, 1, 1] : memref<3x2x64xf32> to memref<3x1x64xf32, strided<[128, 64, 1], offset: ?>>
    %fhv = memref.subview %fh[%bx, 0] [1, 64] [1, 1] : memref<2x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %fcv = memref.subview %fc[%bx, 0] [1, 64] [1, 1] : memref<2x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    egg.recurrence ins(%xv, %w, %b, %hv, %cv : memref<3x1x64xf32, strided<[128, 64, 1], offset: ?>>, memref<64x64xf32>, memref<64xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>, memref<1x64xf32, strided<[64, 1], offset: ?>>)
        outs(%sv, %fhv, %fcv : memref<3x1x64xf32, strided<[128, 64, 1], offset: ?>>, memref<1x64xf32, strided<[64, 1], offset: ?>>, memref<1x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%xi: f32, %hi: f32, %h: f32, %c: f32):
      %a = arith.addf %xi, %hi : f32
      %ac = arith.addf %a, %c : f32
      %t = math.tanh %ac : f32
      egg.yield %t, %a : f32, f32
    }
    gpu.terminator
  }
  return
}

// -----

// A kernel function of another structure keeps its recurrence, which is an
// error: nothing else lowers it.
func.func private @other(%x: memref<2x1x4xf32>, %w: memref<4x4xf32>, %b: memref<4xf32>,
                         %h0: memref<1x4xf32>, %s: memref<2x1x4xf32>, %f: memref<1x4xf32>)
    attributes {egg.structure = #egg.structure<elementwise_flat>,
                egg.tuning = #egg.tuning<threads = [32], block = [1]>} {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{is left after egg-lower-recurrences: only recurrence_block kernels lower recurrences}}
    egg.recurrence ins(%x, %w, %b, %h0 : memref<2x1x4xf32>, memref<4x4xf32>, memref<4xf32>, memref<1x4xf32>)
        outs(%s, %f : memref<2x1x4xf32>, memref<1x4xf32>) {
    ^bb0(%xi: f32, %hi: f32, %h: f32):
      egg.yield %h : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A state written to a buffer the launch allocates (each thread's own once
// lowered) is refused: the blocks of a step share it.
func.func private @local_state(%x: memref<2x1x4xf32>, %w: memref<4x4xf32>, %b: memref<4xf32>,
                               %h0: memref<1x4xf32>, %s: memref<2x1x4xf32>)
    attributes {egg.structure = #egg.structure<recurrence_block>,
                egg.tuning = #egg.tuning<threads = [32], block = [1]>} {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %f = memref.alloc() : memref<1x4xf32>
    // expected-error @+1 {{writes its sequence or states to a buffer the launch allocates: each must be a buffer of the function (a result of the recurrence's kernel)}}
    egg.recurrence ins(%x, %w, %b, %h0 : memref<2x1x4xf32>, memref<4x4xf32>, memref<4xf32>, memref<1x4xf32>)
        outs(%s, %f : memref<2x1x4xf32>, memref<1x4xf32>) {
    ^bb0(%xi: f32, %hi: f32, %h: f32):
      egg.yield %h : f32
    }
    gpu.terminator
  }
  return
}
