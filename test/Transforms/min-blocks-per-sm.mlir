// RUN: egg-opt %s -egg-min-blocks-per-sm | FileCheck %s

// A kernel whose body carries the lowering's mark asks for that many
// blocks per SM (nvvm.minctasm, PTX .minnctapersm); the mark is dropped. A
// kernel without one, and one that already has nvvm.minctasm, are left as
// they are.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @marked() kernel attributes {nvvm.minctasm = 2 : i32}
// CHECK-NOT: egg.min_blocks_per_sm
// CHECK: gpu.func @plain() kernel {
// CHECK: gpu.func @set() kernel attributes {nvvm.minctasm = 1 : i32}
// CHECK-NOT: egg.min_blocks_per_sm
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @marked() kernel {
      %0 = gpu.dynamic_shared_memory {egg.min_blocks_per_sm = 2 : i32} : memref<?xi8, #gpu.address_space<workgroup>>
      gpu.return
    }
    gpu.func @plain() kernel {
      gpu.return
    }
    gpu.func @set() kernel attributes {nvvm.minctasm = 1 : i32} {
      %0 = gpu.dynamic_shared_memory {egg.min_blocks_per_sm = 2 : i32} : memref<?xi8, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
