// RUN: not egg-translate --egg-to-manifest %s 2>&1 | FileCheck %s

// CHECK: error: host value of type 'memref<?xf32>' is not a static, contiguous buffer the manifest can bind
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target, assembly = "// ptx">]
  func.func @f(%x: memref<?xf32>) {
    return
  }
}
