// RUN: egg-opt %s -split-input-file -egg-merge-identical-kernels -verify-diagnostics | FileCheck %s

// Kernels that differ only in their names are compiled once: the second
// and fourth launch call @f_k0_kernel and keep their own names for reports.
// A kernel whose body differs (another constant) and one whose attributes
// differ (a requested occupancy) keep their modules.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @f_k0_kernel::@f_k0_kernel
// CHECK-NOT: egg.launch_name
// CHECK-SAME: args
// CHECK: gpu.launch_func @f_k0_kernel::@f_k0_kernel {{.*}} {egg.launch_name = "f_k1_kernel"}
// CHECK: gpu.launch_func @f_k2_kernel::@f_k2_kernel
// CHECK-NOT: egg.launch_name
// CHECK-SAME: args
// CHECK: gpu.launch_func @f_k0_kernel::@f_k0_kernel {{.*}} {egg.launch_name = "f_k3_kernel"}
// CHECK: gpu.launch_func @f_k4_kernel::@f_k4_kernel
// CHECK-NOT: egg.launch_name
// CHECK-SAME: args
// CHECK: gpu.module @f_k0_kernel
// CHECK-NOT: gpu.module @f_k1_kernel
// CHECK: gpu.module @f_k2_kernel
// CHECK-NOT: gpu.module @f_k3_kernel
// CHECK: gpu.module @f_k4_kernel
module attributes {gpu.container_module} {
  func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @f_k0_kernel::@f_k0_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @f_k1_kernel::@f_k1_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%b : memref<64xf32>, %a : memref<64xf32>)
    gpu.launch_func @f_k2_kernel::@f_k2_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @f_k3_kernel::@f_k3_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @f_k4_kernel::@f_k4_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    return
  }
  gpu.module @f_k0_kernel {
    gpu.func @f_k0_kernel(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %c = arith.constant 2.0 : f32
      %w = arith.mulf %v, %c : f32
      memref.store %w, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @f_k1_kernel {
    gpu.func @f_k1_kernel(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %c = arith.constant 2.0 : f32
      %w = arith.mulf %v, %c : f32
      memref.store %w, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @f_k2_kernel {
    gpu.func @f_k2_kernel(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %c = arith.constant 3.0 : f32
      %w = arith.mulf %v, %c : f32
      memref.store %w, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @f_k3_kernel {
    gpu.func @f_k3_kernel(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %c = arith.constant 2.0 : f32
      %w = arith.mulf %v, %c : f32
      memref.store %w, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @f_k4_kernel {
    gpu.func @f_k4_kernel(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {nvvm.minctasm = 2 : i32} {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %c = arith.constant 2.0 : f32
      %w = arith.mulf %v, %c : f32
      memref.store %w, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// The launch name belongs to launches only.
func.func @misplaced() {
  // expected-error @+1 {{'egg.launch_name' must be a string attribute of a gpu.launch_func}}
  return {egg.launch_name = "k"}
}
