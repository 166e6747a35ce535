// RUN: not egg-translate --egg-to-manifest -split-input-file %s 2>&1 | FileCheck %s
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
