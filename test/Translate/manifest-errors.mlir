// RUN: not egg-translate --egg-to-manifest -split-input-file %s 2>&1 | FileCheck %s --check-prefixes=CHECK,MANIFEST
// RUN: not egg-translate --egg-to-ptx -split-input-file %s 2>&1 | FileCheck %s

// CHECK: error: no gpu.binary in the module: run the EGG pipeline (egg-opt --egg-pipeline) first
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// CHECK: error: calls libdevice functions that were not linked: give the pipeline the CUDA toolkit (cuda-path=... or $CUDA_HOME)
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target, assembly = ".extern .func (.param .b32 r) __nv_expf (.param .b32 p);">]
}

// -----

// CHECK: error: has no PTX object: compile with gpu-module-to-binary{format=isa}
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target, bin = "cubin">]
}

// -----

// Tensor maps reach the manifest only in the form the runtimes encode:
// 128-byte swizzle, zero fill, no interleave.
// MANIFEST: error: tensor maps other than 128-byte swizzled, zero-filled and not interleaved cannot be expressed in the manifest
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target, assembly = "// ptx">]
  func.func @f(%x: memref<64x64xf16>) {
    %c64 = arith.constant 64 : index
    %u = memref.cast %x : memref<64x64xf16> to memref<*xf16>
    %m = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
    return
  }
}

// -----

// A tensor map is encoded over a 2-D view of its buffer.
// MANIFEST: error: a tensor map must view a static, contiguous 2-D buffer
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target, assembly = "// ptx">]
  func.func @f(%x: memref<2x64x64xf16>) {
    %c64 = arith.constant 64 : index
    %u = memref.cast %x : memref<2x64x64xf16> to memref<*xf16>
    %m = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
    return
  }
}
