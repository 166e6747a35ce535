// RUN: egg-opt %s -split-input-file -egg-attach-target | FileCheck %s
// RUN: egg-opt %s -split-input-file -egg-attach-target=chip=sm_80 | FileCheck %s --check-prefix=AMPERE
// RUN: egg-opt %s -split-input-file -egg-attach-target="chip=sm_80 override=true" | FileCheck %s --check-prefix=OVERRIDE
// RUN: egg-opt %s -split-input-file -egg-attach-target=chip=sm_42 -verify-diagnostics
// RUN: egg-opt %s -split-input-file -egg-attach-target=allow-tf32=true | FileCheck %s --check-prefix=TF32

// CHECK: module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132
// AMPERE: module attributes {egg.target = #egg.target<chip = "sm_80", name = "A100-SXM4-80GB", sm_count = 108
// allow-tf32 adds the user's permission (unset by default: CHECK above).
// TF32: module attributes {egg.allow_tf32, egg.target = #egg.target<chip = "sm_90a"
// expected-error @+1 {{unknown chip 'sm_42'; known chips: sm_90a, sm_90, sm_80}}
module {
}

// -----

// A profile already there is kept unless override is set.
// CHECK: chip = "sm_90", name = "custom"
// AMPERE: chip = "sm_90", name = "custom"
// OVERRIDE: chip = "sm_80"
// TF32: module attributes {egg.allow_tf32, egg.target = #egg.target<chip = "sm_90", name = "custom"
module attributes {egg.target = #egg.target<chip = "sm_90", name = "custom", sm_count = 1, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 1024, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 1, dram_gbps = 1, fp32_gflops = 1, tensor_gflops = 1>} {
}
