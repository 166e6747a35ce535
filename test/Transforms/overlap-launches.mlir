// RUN: egg-opt %s -split-input-file -egg-overlap-launches -verify-diagnostics | FileCheck %s

// A kernel whose function asks for it (egg.overlap_previous: a split
// product's sum) and the kernel launched before it begin by waiting for the
// grid before them, then let the next one be scheduled (launched normally,
// both do nothing); the launches of the one that asked are marked, so that
// the manifest says they may be launched while the kernel before them
// runs. Other kernels are left alone.
// CHECK-LABEL: gpu.func @other
// CHECK-NEXT: gpu.thread_id
// CHECK-LABEL: gpu.func @partial
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: gpu.thread_id
// CHECK-LABEL: gpu.func @sum
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-LABEL: func.func private @k1(
// CHECK: gpu.launch_func @kernels::@other
// CHECK-NOT: egg.waits_for_previous
// CHECK-LABEL: func.func private @k0(
// CHECK: gpu.launch_func @kernels::@partial
// CHECK-NOT: egg.waits_for_previous
// CHECK-LABEL: func.func private @k0_sum(
// CHECK: gpu.launch_func @kernels::@sum {{.*}} {egg.waits_for_previous}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @other(%w: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %c = arith.constant 2.0 : f32
      memref.store %c, %w[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @partial(%w: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %c = arith.constant 1.0 : f32
      memref.store %c, %w[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @sum(%w: memref<64xf32>, %y: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %w[%t] : memref<64xf32>
      memref.store %v, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
  func.func private @k1(%w: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@other blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%w : memref<64xf32>)
    return
  }
  func.func private @k0(%w: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@partial blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%w : memref<64xf32>)
    return
  }
  func.func private @k0_sum(%w: memref<64xf32>, %y: memref<64xf32>) attributes {egg.overlap_previous} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@sum blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%w : memref<64xf32>, %y : memref<64xf32>)
    return
  }
  func.func @f(%w: memref<64xf32>, %y: memref<64xf32>) {
    call @k1(%y) : (memref<64xf32>) -> ()
    call @k0(%w) : (memref<64xf32>) -> ()
    %a = memref.alloc() : memref<64xf32>
    call @k0_sum(%w, %y) : (memref<64xf32>, memref<64xf32>) -> ()
    return
  }
}

// -----

// Before Hopper there is no griddepcontrol: nothing changes.
// CHECK-LABEL: gpu.func @sum80
// CHECK-NEXT: gpu.thread_id
// CHECK-LABEL: func.func private @k80_sum(
// CHECK-NOT: egg.waits_for_previous
module attributes {gpu.container_module, egg.target = #egg.target<chip = "sm_80", name = "A100", sm_count = 108, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 166912, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 41943040, dram_gbps = 2039, fp32_gflops = 19500, tensor_gflops = 312000>} {
  gpu.module @kernels {
    gpu.func @sum80(%w: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %w[%t] : memref<64xf32>
      memref.store %v, %w[%t] : memref<64xf32>
      gpu.return
    }
  }
  func.func private @k80_sum(%w: memref<64xf32>) attributes {egg.overlap_previous} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@sum80 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%w : memref<64xf32>)
    return
  }
  func.func @f80(%w: memref<64xf32>) {
    call @k80_sum(%w) : (memref<64xf32>) -> ()
    return
  }
}

// -----

// The mark belongs to launches only.
func.func @misplaced() {
  // expected-error @+1 {{'egg.waits_for_previous' must be a unit attribute of a gpu.launch_func}}
  return {egg.waits_for_previous}
}

// -----

// egg.overlap_previous belongs to kernels and their functions.
func.func @misplaced_request() {
  // expected-error @+1 {{'egg.overlap_previous' must be a unit attribute of an egg.kernel or the function it is outlined into}}
  return {egg.overlap_previous}
}
