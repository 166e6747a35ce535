//===- Inputs.cpp - The inputs egg-eval's trials draw ---------------------===//

#include "egg/Eval/Inputs.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace mlir::egg::eval;

namespace {
constexpr int64_t kChunk = int64_t(1) << 20;

/// SplitMix64's finaliser: distinct, well-mixed seeds for neighbouring
/// chunk indices.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <typename Distribution>
std::vector<double> drawChunks(int64_t n, std::mt19937_64 &rng,
                               unsigned threads, Distribution distribution) {
  std::vector<double> v(size_t(std::max<int64_t>(n, 0)));
  uint64_t seed = rng();
  int64_t chunks = (n + kChunk - 1) / kChunk;
  std::atomic<int64_t> next{0};
  auto work = [&] {
    Distribution d = distribution;
    for (int64_t c; (c = next++) < chunks;) {
      std::mt19937_64 g(mix(seed ^ mix(uint64_t(c))));
      d.reset();
      int64_t end = std::min(n, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i)
        v[size_t(i)] = d(g);
    }
  };
  unsigned workers =
      unsigned(std::clamp<int64_t>(chunks, 1, std::max(1u, threads)));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
  return v;
}
} // namespace

std::vector<double> mlir::egg::eval::drawInputs(int64_t n, unsigned t,
                                                std::mt19937_64 &rng,
                                                std::string &name,
                                                unsigned threads) {
  switch (t % 5) {
  case 0:
    name = "normal(0,1)";
    return drawChunks(n, rng, threads, std::normal_distribution<double>(0, 1));
  case 1:
    name = "uniform(-1,1)";
    return drawChunks(n, rng, threads,
                      std::uniform_real_distribution<double>(-1, 1));
  case 2:
    name = "uniform(-8,8)";
    return drawChunks(n, rng, threads,
                      std::uniform_real_distribution<double>(-8, 8));
  case 3:
    name = "normal(1,3)";
    return drawChunks(n, rng, threads, std::normal_distribution<double>(1, 3));
  default:
    name = "uniform(0,1)";
    return drawChunks(n, rng, threads,
                      std::uniform_real_distribution<double>(0, 1));
  }
}

std::vector<double> mlir::egg::eval::drawPositiveInputs(int64_t n,
                                                        std::mt19937_64 &rng,
                                                        unsigned threads) {
  return drawChunks(n, rng, threads,
                    std::uniform_real_distribution<double>(0.5, 2));
}
