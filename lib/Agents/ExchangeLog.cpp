//===- ExchangeLog.cpp - LLM response cache and exchange records ----------===//

#include "egg/Agents/ExchangeLog.h"
#include "egg/Support/Hash.h"
#include "egg/Support/Sqlite.h"

#include <ctime>
#include <map>
#include <mutex>

using namespace mlir::egg;

namespace {
std::string keyOf(const std::string &request) { return sha256Hex(request); }

std::string scrub(std::string text, const std::string &secret) {
  if (secret.empty())
    return text;
  for (size_t pos; (pos = text.find(secret)) != std::string::npos;)
    text.replace(pos, secret.size(), "[REDACTED]");
  return text;
}
} // namespace

struct ExchangeLog::Impl {
  sqlite::Database db;
};

ExchangeLog::ExchangeLog(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

ExchangeLog::~ExchangeLog() = default;

std::unique_ptr<ExchangeLog> ExchangeLog::open(const std::string &path,
                                               std::string &error) {
  const char *schema =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE IF NOT EXISTS responses(key TEXT PRIMARY KEY, "
      "request TEXT NOT NULL, response TEXT NOT NULL, created INTEGER);"
      "CREATE TABLE IF NOT EXISTS exchanges(id INTEGER PRIMARY KEY, "
      "time INTEGER, key TEXT, request TEXT, response TEXT, error TEXT, "
      "status INTEGER, attempts INTEGER, cached INTEGER);";
  auto impl = std::make_unique<Impl>();
  impl->db = sqlite::Database::open(path, schema, error);
  if (!impl->db)
    return nullptr;
  return std::unique_ptr<ExchangeLog>(new ExchangeLog(std::move(impl)));
}

std::optional<std::string> ExchangeLog::lookup(const std::string &request) {
  sqlite::Statement stmt(impl->db.get(),
                         "SELECT response FROM responses WHERE key = ?1");
  if (!stmt)
    return std::nullopt;
  stmt.bind(1, keyOf(request));
  if (stmt.row())
    return stmt.text(0);
  return std::nullopt;
}

void ExchangeLog::record(const std::string &request,
                         const std::string &response, const std::string &error,
                         long status, int attempts, bool cached,
                         const std::string &secret) {
  sqlite::Statement insert(
      impl->db.get(), "INSERT INTO exchanges(time, key, request, response, "
                      "error, status, attempts, cached) VALUES(?1, ?2, ?3, "
                      "?4, ?5, ?6, ?7, ?8)");
  if (insert)
    insert.bind(1, int64_t(std::time(nullptr)))
        .bind(2, keyOf(request))
        .bind(3, scrub(request, secret))
        .bind(4, scrub(response, secret))
        .bind(5, scrub(error, secret))
        .bind(6, int64_t(status))
        .bind(7, int64_t(attempts))
        .bind(8, int64_t(cached))
        .run();
}

void ExchangeLog::keep(const std::string &request, const std::string &response,
                       const std::string &secret) {
  sqlite::Statement cache(impl->db.get(),
                          "INSERT OR REPLACE INTO responses(key, request, "
                          "response, created) VALUES(?1, ?2, ?3, ?4)");
  if (cache)
    cache.bind(1, keyOf(request))
        .bind(2, scrub(request, secret))
        .bind(3, scrub(response, secret))
        .bind(4, int64_t(std::time(nullptr)))
        .run();
}

std::shared_ptr<ExchangeLog> ExchangeLog::acquire(const std::string &path,
                                                  std::string &error) {
  static std::mutex mutex;
  static auto *logs = new std::map<std::string, std::weak_ptr<ExchangeLog>>;
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<ExchangeLog> log = (*logs)[path].lock())
    return log;
  std::shared_ptr<ExchangeLog> log = open(path, error);
  (*logs)[path] = log;
  return log;
}
