//===- Limits.h - Limits of the CUDA programming model ----------*- C++ -*-===//
//
// Facts that hold on every chip EGG targets (sm_80 and sm_90): the rest of
// the compiler reads them from here or from the module's `#egg.target`,
// never as literals (scripts/check-layering.py). A chip that differs moves
// its fact into the profile table (Profiles.cpp) and `#egg.target`.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TARGET_LIMITS_H
#define EGG_TARGET_LIMITS_H

#include <cstdint>

namespace mlir::egg {

/// Threads per block, and per block dimension (x, y, z).
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
inline constexpr int64_t kMaxBlockDims[3] = {1024, 1024, 64};

/// Blocks per grid dimension (x, y, z).
inline constexpr int64_t kMaxGridDims[3] = {2147483647, 65535, 65535};

/// Threads per warp.
inline constexpr int64_t kWarpSize = 32;

/// Warp schedulers per SM (one per sub-partition): a block of fewer warps
/// leaves some of them idle.
inline constexpr int64_t kWarpSchedulersPerSM = 4;

/// Blocks of a thread-block cluster that every chip with clusters runs
/// (more need a non-portable opt-in).
inline constexpr int64_t kMaxPortableClusterSize = 8;

/// Resident threads per SM.
inline constexpr int64_t kMaxThreadsPerSM = 2048;

/// Resident blocks per SM.
inline constexpr int64_t kMaxBlocksPerSM = 32;

/// 32-bit registers per SM (and the most one block may own).
inline constexpr int64_t kRegistersPerSM = 65536;

/// Registers one thread may use (ptxas's cap).
inline constexpr int64_t kMaxRegistersPerThread = 255;

/// Registers a thread may take with setmaxnreg (Hopper): at most 232 once
/// the block's warpgroups rebalance them.
inline constexpr int64_t kMaxRegistersAfterSetmaxnreg = 232;

/// Shared memory the driver reserves for each resident block.
inline constexpr int64_t kReservedSharedMemoryPerBlock = 1024;

/// Static shared memory a launch may declare without opting in to more
/// (beyond it, dynamic shared memory up to the target's
/// shared_memory_per_block).
inline constexpr int64_t kStaticSharedMemoryPerBlock = 48 * 1024;

} // namespace mlir::egg

#endif // EGG_TARGET_LIMITS_H
