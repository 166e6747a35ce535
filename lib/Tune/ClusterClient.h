//===- ClusterClient.h - egg-tune's link to a Ray cluster -------*- C++ -*-===//
//
// egg-tune --cluster=ray[:ADDRESS] hands candidates to a child process,
// `python -m egg.cluster.tune_server`, which compiles them as Ray CPU tasks
// and times them as tasks holding one GPU each. The two speak JSON lines
// over pipes (the protocol: python/egg/cluster/tune_server.py and
// docs/cluster.md). The loop, the agents and the records stay here.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_TUNE_CLUSTERCLIENT_H
#define EGG_TUNE_CLUSTERCLIENT_H

#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>

namespace mlir::egg::tune {

class ClusterClient {
public:
  /// Starts `<python> -m egg.cluster.tune_server <spec>` with its stderr in
  /// `logPath`, sends `setup` and waits for the server's `ready` message.
  /// Null with `error` (which quotes the log's end) if that fails.
  static std::unique_ptr<ClusterClient> start(const std::string &python,
                                              const std::string &spec,
                                              llvm::json::Object setup,
                                              const std::string &logPath,
                                              std::string &error);
  /// Closes the server's stdin (it cancels what is in flight and exits),
  /// waits a little, then kills it.
  ~ClusterClient();

  const llvm::json::Object &ready() const { return readyMessage; }
  bool send(const llvm::json::Value &message);
  /// The next message from the server; nullopt once it has gone, with
  /// `error` saying how.
  std::optional<llvm::json::Object> next(std::string &error);

private:
  ClusterClient() = default;
  std::string logTail() const;

  pid_t pid = -1;
  int toServer = -1, fromServer = -1;
  std::string buffer, logPath;
  llvm::json::Object readyMessage;
};

} // namespace mlir::egg::tune

#endif // EGG_TUNE_CLUSTERCLIENT_H
