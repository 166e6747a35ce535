// Every diagnostic of the agents and the stage passes.
// RUN: egg-opt %s -egg-form-kernels -egg-algorithm-structure="agent=replay decisions=%S/Inputs/replay-illegal.json" -verify-diagnostics
// RUN: not egg-opt %s -egg-form-kernels -egg-algorithm-structure="agent=replay decisions=%S/Inputs/replay-other-anchor.json" 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not egg-opt %s -egg-form-kernels -egg-algorithm-structure="agent=replay decisions=%S/Inputs/replay-bad-attr.json" 2>&1 | FileCheck %s --check-prefix=BADATTR
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/not-decisions.json" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay decisions=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not egg-opt %s -egg-algorithm-structure="agent=replay" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not egg-opt %s -egg-algorithm-structure="agent=oracle" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not egg-opt %s -egg-form-kernels -egg-hardware-tuning 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not egg-opt %s -egg-attach-target -egg-form-kernels -egg-hardware-tuning 2>&1 | FileCheck %s --check-prefix=NOSTRUCT
// RUN: not egg-opt %s -egg-attach-target -egg-form-kernels -egg-algorithm-structure -egg-hardware-tuning="agent=replay decisions=%S/Inputs/no-kernel-tuning.json" 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not egg-opt %s -egg-attach-target -egg-form-kernels -egg-algorithm-structure -egg-hardware-tuning="agent=replay decisions=%S/Inputs/replay-other-anchor.json" 2>&1 | FileCheck %s --check-prefix=NOTUNING

// ANCHOR: error: 'egg.kernel' op decisions file '{{.*}}replay-other-anchor.json' was recorded for an anchor 'linalg.matmul' but this kernel's anchor is 'linalg.exp'
// BADATTR: error: 'egg.kernel' op invalid structure in decisions file '{{.*}}': gemm_split_k needs split_k >= 2, got 1
// FORMAT: error: '{{.*}}not-decisions.json' is not an egg-decisions file
// MISSING: error: cannot read decisions file '{{.*}}missing.json'
// NOFILE: error: the replay agent needs a decisions file
// UNKNOWN: error: unknown agent 'oracle'; expected expert, replay or llm
// NOTARGET: error: egg-hardware-tuning needs a hardware profile: run egg-attach-target first
// NOSTRUCT: error: 'egg.kernel' op has no structure: run egg-algorithm-structure before egg-hardware-tuning
// LOWER: error: 'egg.kernel' op the generic lowering does not implement warp tiles yet
// NOTUNING: error: 'egg.kernel' op decisions file '{{.*}}' has no tuning for kernel @f_k0
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  // expected-error @+1 {{agent 'replay' chose #egg.structure<gemm_direct>, which is not in the legal set for this elementwise kernel: #egg.structure<elementwise_flat>}}
  %r = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}
