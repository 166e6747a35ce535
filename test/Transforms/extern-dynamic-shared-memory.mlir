// RUN: egg-opt %s -egg-extern-dynamic-shared-memory | FileCheck %s

// The zero-sized shared global that stands for a kernel's dynamic shared
// memory becomes an external declaration (printed `.extern .shared ...[]`,
// placed by ptxas after the static variables); the static mbarriers, a
// sized shared buffer, a zero-sized global of another address space or of
// another name, and one with a value stay as they are.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
// CHECK: llvm.mlir.global internal @staged() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
// CHECK: llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @workgroup0() {addr_space = 3 : i32} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @__dynamic_shmem__1("") {addr_space = 3 : i32}{{$}}
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
  llvm.mlir.global internal @staged() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global internal @workgroup0() {addr_space = 3 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__dynamic_shmem__1("") {addr_space = 3 : i32} : !llvm.array<0 x i8>
}
