// RUN: egg-opt %s -pass-pipeline='builtin.module(gpu.module(egg-lower-tensor-map-args))' | FileCheck %s

// A kernel's TMA tensor-map argument becomes a pointer (the map's address
// in device memory); its remaining uses read it through a cast back to the
// map type, which cancels against the NVGPU conversion's own cast. Other
// arguments and non-kernel functions are left alone.
// CHECK-LABEL: gpu.func @k(
// CHECK-SAME: %[[OUT:.*]]: memref<4xf32>, %[[MAP:.*]]: !llvm.ptr) kernel
// CHECK-NEXT: %[[BACK:.*]] = builtin.unrealized_conversion_cast %[[MAP]] : !llvm.ptr to !nvgpu.tensormap.descriptor
// CHECK-NEXT: %[[PTR:.*]] = builtin.unrealized_conversion_cast %[[BACK]] : !nvgpu.tensormap.descriptor{{.*}} to !llvm.ptr
// CHECK-LABEL: gpu.func @helper(
// CHECK-SAME: !nvgpu.tensormap.descriptor
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<4xf32>, %map: !map) kernel {
      %p = builtin.unrealized_conversion_cast %map : !map to !llvm.ptr
      gpu.return
    }
    gpu.func @helper(%map: !map) {
      gpu.return
    }
  }
}
