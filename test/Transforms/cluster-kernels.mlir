// RUN: egg-opt %s -split-input-file -egg-cluster-kernels -verify-diagnostics | FileCheck %s

// A kernel launched in clusters of a constant size gets that size at
// compile time (known_cluster_size, later PTX .reqnctapercluster); a
// kernel launched without clusters is left alone.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @clustered() kernel attributes {known_cluster_size = array<i32: 1, 1, 4>}
// CHECK: gpu.func @plain() kernel {
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @clustered() kernel {
      gpu.return
    }
    gpu.func @plain() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@clustered clusters in (%c1, %c1, %c4) blocks in (%c32, %c1, %c4) threads in (%c32, %c1, %c1)
    gpu.launch_func @kernels::@plain blocks in (%c32, %c1, %c1) threads in (%c32, %c1, %c1)
    return
  }
}

// -----

// A cluster size only known at run time cannot be fixed in the kernel.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @clustered() kernel {
      gpu.return
    }
  }
  func.func @host(%n: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    // expected-error @+1 {{has a cluster size that is not a constant: its kernel cannot fix it at compile time}}
    gpu.launch_func @kernels::@clustered clusters in (%c1, %c1, %n) blocks in (%c32, %c1, %n) threads in (%c32, %c1, %c1)
    return
  }
}

// -----

// One kernel, two cluster sizes: a compile-time size cannot serve both.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @clustered() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@clustered clusters in (%c1, %c1, %c4) blocks in (%c32, %c1, %c4) threads in (%c32, %c1, %c1)
    // expected-error @+1 {{launches kernel @clustered in clusters of another size than before}}
    gpu.launch_func @kernels::@clustered clusters in (%c1, %c1, %c2) blocks in (%c32, %c1, %c2) threads in (%c32, %c1, %c1)
    return
  }
}
