// RUN: not egg-translate --egg-to-manifest %s 2>&1 | FileCheck %s

// Work left on the host cannot be put in a manifest.
// CHECK: error: cannot be expressed in the manifest: only buffer allocation, copies and kernel launches may remain on the host
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#nvvm.target, assembly = "// ptx">]
  func.func @f(%x: memref<8xf32>, %y: memref<8xf32> {bufferize.result}) {
    linalg.exp ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
    return
  }
}
