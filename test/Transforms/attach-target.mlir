// RUN: egg-opt %s -split-input-file -egg-attach-target | FileCheck %s
// RUN: egg-opt %s -split-input-file -egg-attach-target=chip=sm_80 | FileCheck %s --check-prefix=AMPERE
// RUN: egg-opt %s -split-input-file -egg-attach-target="chip=sm_80 override=true" | FileCheck %s --check-prefix=OVERRIDE
// RUN: egg-opt %s -split-input-file -egg-attach-target=chip=sm_42 -verify-diagnostics

// CHECK: module attributes {egg.target = #egg.target<chip = "sm_90a", name = "H200", sm_count = 132
// AMPERE: module attributes {egg.target = #egg.target<chip = "sm_80", name = "A100-SXM4-80GB", sm_count = 108
// expected-error @+1 {{unknown chip 'sm_42'; known chips: sm_90a, sm_90, sm_80}}
module {
}

// -----

// A profile already there is kept unless override is set.
// CHECK: chip = "sm_90", name = "custom"
// AMPERE: chip = "sm_90", name = "custom"
// OVERRIDE: chip = "sm_80"
module attributes {egg.target = #egg.target<chip = "sm_90", name = "custom", sm_count = 1, warp_size = 32, max_threads_per_block = 1024, shared_memory_per_block = 1024, registers_per_block = 65536, max_registers_per_thread = 255, l2_bytes = 1, dram_gbps = 1, fp32_gflops = 1, tensor_gflops = 1>} {
}
