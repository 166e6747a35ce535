// Every way a decisions file can be unusable, each with its own message.
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/version2.json" 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/no-kernels.json" 2>&1 | FileCheck %s --check-prefix=KERNELS
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/no-name.json" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/truncated.json" 2>&1 | FileCheck %s --check-prefix=JSON

// VERSION: error: decisions file '{{.*}}version2.json' has an unsupported version
// KERNELS: error: decisions file '{{.*}}no-kernels.json' has no kernels
// NAME: error: decisions file '{{.*}}no-name.json' has a kernel entry without a name
// JSON: error: decisions file '{{.*}}truncated.json' is not valid JSON
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
