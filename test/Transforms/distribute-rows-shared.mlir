// RUN: egg-opt %s -split-input-file -egg-distribute-rows -verify-diagnostics | FileCheck %s

// row_shared = 3: of the 4 steps of 4 f32 that each of the 512 lanes holds
// of the row, the last 3 live in the launch's dynamic shared memory (3 x 512
// x 4 f32 = 24 KB, a [3][512][4] view of it, each lane at its own slot):
// they are stored once after the first op's loads, and loaded back (with no
// load of global memory) by the later ops. The launch is marked for two
// blocks per SM (threads and shared memory would allow more: the mark asks
// for the second block only).
// CHECK-LABEL: func.func private @held_in_shared
// CHECK: %[[BYTES:.*]] = arith.constant 24576 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory {egg.min_blocks_per_sm = 2 : i32} : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[SLOTS:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x512x4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK-COUNT-2: vector.load %{{.*}} : memref<1x8192xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[SLOTS]][%{{.*}}, %[[TID]], %{{.*}}] {alignment = 16 : i64} : memref<3x512x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.load %{{.*}} : memref<1x8192xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[SLOTS]][%{{.*}}, %[[TID]], %{{.*}}]
// CHECK: vector.load %{{.*}} : memref<1x8192xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[SLOTS]][%{{.*}}, %[[TID]], %{{.*}}]
// CHECK-NOT: vector.store
// CHECK: gpu.barrier
// CHECK-NOT: memref<1x8192xf32>, vector<4xf32>
// CHECK-COUNT-3: vector.load %[[SLOTS]][%{{.*}}, %[[TID]], %{{.*}}] {alignment = 16 : i64} : memref<3x512x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT: vector.load %{{.*}} : memref<1x8192xf32>
// CHECK: vector.store %{{.*}} : memref<1x8192xf32>, vector<4xf32>
func.func private @held_in_shared(%in: memref<1x8192xf32>, %sum: memref<1xf32>, %out: memref<1x8192xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [512], block = [1], vector = 4, row_shared = 3>} {
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
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %sum : memref<1x8192xf32>, memref<1xf32>) outs(%out : memref<1x8192xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %t = arith.subf %a, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A row read once is not held: row_shared has nothing to place, and says so.
func.func private @nothing_held(%in: memref<1x8192xf32>, %sum: memref<1xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [512], block = [1], vector = 4, row_shared = 2>} {
  %c1 = arith.constant 1 : index
  // expected-warning @+1 {{row_shared = 2 has no effect: the rows of this launch are not held across its ops}}
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

// The lowering checks what the legal space checks, for IR that reaches it
// decided: 4 row steps per thread, 5 asked for.
func.func private @too_many_steps(%in: memref<1x8192xf32>, %sum: memref<1xf32>, %out: memref<1x8192xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [512], block = [1], vector = 4, row_shared = 5>} {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' op row_shared = 5 needs a block per row with at least as many row steps per thread; it has 4}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x8192xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %sum : memref<1x8192xf32>, memref<1xf32>) outs(%out : memref<1x8192xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %t = arith.subf %a, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}


// -----

// A launch that already uses dynamic shared memory keeps it to itself.
func.func private @has_dynamic(%in: memref<1x8192xf32>, %sum: memref<1xf32>, %out: memref<1x8192xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [512], block = [1], vector = 4, row_shared = 2>} {
  %c1 = arith.constant 1 : index
  %bytes = arith.constant 1024 : i32
  // expected-error @+1 {{'gpu.launch' op already has dynamic shared memory: row_shared cannot add its own}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x8192xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %sum : memref<1x8192xf32>, memref<1xf32>) outs(%out : memref<1x8192xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %t = arith.subf %a, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}


// -----

// The slots must fit the target's shared memory: 24 KB against 16 KB.
module attributes {egg.target = #egg.target<chip = "sm_90a", name = "small", sm_count = 132, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 16384, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 62914560, dram_gbps = 4250, fp32_gflops = 51000, tensor_gflops = 790000>} {
func.func private @too_large(%in: memref<1x8192xf32>, %sum: memref<1xf32>, %out: memref<1x8192xf32>)
    attributes {egg.structure = #egg.structure<reduce_row_per_block>,
                egg.tuning = #egg.tuning<threads = [512], block = [1], vector = 4, row_shared = 3>} {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' op row_shared = 3 needs 24576 bytes of shared memory for its held rows; a block may have 16384}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1x8192xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%in, %sum : memref<1x8192xf32>, memref<1xf32>) outs(%out : memref<1x8192xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %t = arith.subf %a, %s : f32
      linalg.yield %t : f32
    }
    gpu.terminator
  }
  return
}
}
