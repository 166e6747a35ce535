// RUN: egg-opt %s -split-input-file -egg-serialize-kernels -verify-diagnostics | FileCheck %s
// RUN: egg-opt %s -split-input-file -egg-serialize-kernels -verify-diagnostics --mlir-disable-threading | FileCheck %s
// RUN: not egg-opt %s -split-input-file -egg-serialize-kernels=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT

// FORMAT: egg-serialize-kernels: unknown format 'elf' (isa, bin or fatbin)

// Every module becomes a gpu.binary of its PTX, in the modules' order,
// with threads or without.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.binary @first [#gpu.object<#nvvm.target<chip = "sm_90a">
// CHECK-SAME: .visible .entry first(
// CHECK: gpu.binary @second [#gpu.object<#nvvm.target<chip = "sm_90a">
// CHECK-SAME: .visible .entry second(
// CHECK-SAME: mul.rn.f32
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<chip = "sm_90a">] {
    llvm.func @first(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %w = llvm.fadd %v, %v : f32
      llvm.store %w, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<chip = "sm_90a">] {
    llvm.func @second(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %w = llvm.fmul %v, %v : f32
      llvm.store %w, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// A module with no target cannot be serialized.
module attributes {gpu.container_module} {
  // expected-error @+1 {{the module has no target attributes}}
  gpu.module @untargeted {
    llvm.func @untargeted() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
