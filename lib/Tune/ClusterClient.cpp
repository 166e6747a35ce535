//===- ClusterClient.cpp - egg-tune's link to a Ray cluster ---------------===//

#include "ClusterClient.h"
#include "egg/Support/Json.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace mlir::egg::tune;
namespace json = llvm::json;

std::unique_ptr<ClusterClient> ClusterClient::start(const std::string &python,
                                                    const std::string &spec,
                                                    json::Object setup,
                                                    const std::string &logPath,
                                                    std::string &error) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) {
    error = std::string("cannot create pipes: ") + std::strerror(errno);
    return nullptr;
  }
  // The parent's ends must not leak into the child: its stdin would never
  // see the end of input.
  fcntl(in[1], F_SETFD, FD_CLOEXEC);
  fcntl(out[0], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string module = "egg.cluster.tune_server";
  std::vector<char *> argv = {const_cast<char *>(python.c_str()),
                              const_cast<char *>("-m"), module.data(),
                              const_cast<char *>(spec.c_str()), nullptr};
  std::unique_ptr<ClusterClient> client(new ClusterClient());
  client->logPath = logPath;
  int rc = posix_spawnp(&client->pid, python.c_str(), &actions, nullptr,
                        argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  client->toServer = in[1];
  client->fromServer = out[0];
  if (rc != 0) {
    client->pid = -1;
    error = "cannot start " + python + ": " + std::strerror(rc) +
            " (--cluster-python or EGG_PYTHON names the Python that has "
            "Ray and the egg package)";
    return nullptr;
  }
  setup["op"] = "setup";
  if (!client->send(json::Value(std::move(setup)))) {
    error = "the cluster server did not take its set-up" + client->logTail();
    return nullptr;
  }
  std::optional<json::Object> ready = client->next(error);
  if (!ready)
    return nullptr;
  if (auto message = ready->getString("error")) {
    error = message->str();
    return nullptr;
  }
  if (!ready->getBoolean("ready").value_or(false)) {
    error = "the cluster server answered its set-up with something else";
    return nullptr;
  }
  client->readyMessage = std::move(*ready);
  return client;
}

ClusterClient::~ClusterClient() {
  if (toServer >= 0)
    close(toServer);
  if (pid > 0) {
    // The server cancels its tasks and disconnects at the end of its input.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    int status;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (fromServer >= 0)
    close(fromServer);
}

bool ClusterClient::send(const json::Value &message) {
  std::string line = llvm::formatv("{0}\n", message).str();
  // A server that has gone must not kill egg-tune with SIGPIPE.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(toServer, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  sigaction(SIGPIPE, &previous, nullptr);
  return done == line.size();
}

std::optional<json::Object> ClusterClient::next(std::string &error) {
  while (true) {
    size_t end = buffer.find('\n');
    if (end != std::string::npos) {
      std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 1);
      llvm::Expected<json::Value> parsed = mlir::egg::parseJson(line);
      if (!parsed) {
        error = "the cluster server wrote a line that is not JSON: " +
                llvm::toString(parsed.takeError());
        return std::nullopt;
      }
      if (json::Object *obj = parsed->getAsObject())
        return std::move(*obj);
      error = "the cluster server wrote JSON that is not an object";
      return std::nullopt;
    }
    pollfd fd{fromServer, POLLIN, 0};
    int ready = poll(&fd, 1, 1000);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0) {
      // Nothing yet: go on waiting while the server lives (it bounds its
      // own tasks' time).
      int status;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        error = "the cluster server exited" + logTail();
        return std::nullopt;
      }
      continue;
    }
    char chunk[4096];
    ssize_t n = read(fromServer, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "the cluster server closed its output" + logTail();
      return std::nullopt;
    }
    buffer.append(chunk, size_t(n));
  }
}

std::string ClusterClient::logTail() const {
  auto log = llvm::MemoryBuffer::getFile(logPath);
  if (!log)
    return "";
  llvm::StringRef text = (*log)->getBuffer().rtrim();
  // The last lines say why; Ray's start-up chatter comes before them.
  size_t from = text.size() > 1200 ? text.size() - 1200 : 0;
  return " (" + logPath + " ends: " + text.substr(from).str() + ")";
}
