//===- Inputs.h - The inputs egg-eval's trials draw -------------*- C++ -*-===//
//
// Each correctness trial draws fresh inputs from another distribution
// (docs/egg-eval.md, "Correctness"). At KernelBench sizes a trial draws
// billions of values, so they are drawn on several threads: one seed is
// taken from the caller's generator and every chunk of 2^20 values has a
// generator of its own seeded from it and the chunk's index, so the values
// depend on the seed and never on the number of threads.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_EVAL_INPUTS_H
#define EGG_EVAL_INPUTS_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mlir::egg::eval {

/// `n` values from trial `t`'s distribution: normal(0,1), uniform(-1,1),
/// uniform(-8,8), normal(1,3), uniform(0,1), in turn; `name` names it.
std::vector<double> drawInputs(int64_t n, unsigned t, std::mt19937_64 &rng,
                               std::string &name, unsigned threads);

/// `n` values from uniform(0.5,2): inside the domain of functions that take
/// square roots, logarithms or divisions of their inputs.
std::vector<double> drawPositiveInputs(int64_t n, std::mt19937_64 &rng,
                                       unsigned threads);

} // namespace mlir::egg::eval

#endif // EGG_EVAL_INPUTS_H
