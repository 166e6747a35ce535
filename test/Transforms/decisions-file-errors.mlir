// Every way a decisions file can be unusable, each with its own message.
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/version2.json" 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/no-kernels.json" 2>&1 | FileCheck %s --check-prefix=KERNELS
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/no-name.json" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/truncated.json" 2>&1 | FileCheck %s --check-prefix=JSON
// A file of 100,000 nested arrays (it overflowed the JSON parser's stack):
// RUN: %python -c "print('[' * 100000 + ']' * 100000)" > %t.deep.json
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%t.deep.json" 2>&1 | FileCheck %s --check-prefix=DEEP

// VERSION: error: decisions file '{{.*}}version2.json' has an unsupported version
// KERNELS: error: decisions file '{{.*}}no-kernels.json' has no kernels
// NAME: error: decisions file '{{.*}}no-name.json' has a kernel entry without a name
// JSON: error: decisions file '{{.*}}truncated.json' is not valid JSON
// DEEP: error: decisions file '{{.*}}deep.json' is not valid {{.*}} nested deeper than 256 levels
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
