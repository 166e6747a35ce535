//===- ExchangeLog.h - LLM response cache and exchange records --*- C++ -*-===//
//
// An SQLite file (EGG_LLM_CACHE) that keys every answer the agent accepted
// (parsed and validated) by the full request, so a run replays offline and
// deterministically, and records every exchange, failures included. Requests
// never contain the API key (it travels in a header); any text that does is
// scrubbed before it is stored. SQLite is opened at run time (libsqlite3.so.0).
//
//===----------------------------------------------------------------------===//

#ifndef EGG_AGENTS_EXCHANGELOG_H
#define EGG_AGENTS_EXCHANGELOG_H

#include <memory>
#include <optional>
#include <string>

namespace mlir::egg {

class ExchangeLog {
public:
  /// Opens (creating) the database at `path`; null with `error` set when it
  /// cannot.
  static std::unique_ptr<ExchangeLog> open(const std::string &path,
                                           std::string &error);
  ~ExchangeLog();

  /// The cached answer to `request` (the full request body), if any.
  std::optional<std::string> lookup(const std::string &request);

  /// The open log of `path`, shared by every user in the process while one
  /// holds it; the database is closed (its write-ahead log folded in and
  /// removed) when the last holder lets go. Null with `error` set when it
  /// cannot be opened.
  static std::shared_ptr<ExchangeLog> acquire(const std::string &path,
                                              std::string &error);

  /// Records one exchange (never fills the cache). `secret` is scrubbed
  /// from everything stored.
  void record(const std::string &request, const std::string &response,
              const std::string &error, long status, int attempts, bool cached,
              const std::string &secret);

  /// Caches `response` as the answer to `request`: called once the answer
  /// has parsed and passed every check, so nothing else is replayed.
  void keep(const std::string &request, const std::string &response,
            const std::string &secret);

private:
  struct Impl;
  explicit ExchangeLog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::egg

#endif // EGG_AGENTS_EXCHANGELOG_H
