//===- ExchangeLog.cpp - LLM response cache and exchange records ----------===//

#include "egg/Agents/ExchangeLog.h"
#include "egg/Support/RuntimeLibrary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <ctime>
#include <sqlite3.h>

using namespace mlir::egg;

namespace {
/// The SQLite entry points, opened once.
struct Sqlite {
  decltype(&sqlite3_open_v2) openV2 = nullptr;
  decltype(&sqlite3_close) close = nullptr;
  decltype(&sqlite3_exec) exec = nullptr;
  decltype(&sqlite3_prepare_v2) prepare = nullptr;
  decltype(&sqlite3_bind_text) bindText = nullptr;
  decltype(&sqlite3_bind_int64) bindInt = nullptr;
  decltype(&sqlite3_step) step = nullptr;
  decltype(&sqlite3_column_text) columnText = nullptr;
  decltype(&sqlite3_finalize) finalize = nullptr;
  decltype(&sqlite3_errmsg) errmsg = nullptr;
  std::string error;

  static const Sqlite &get() {
    static Sqlite s = [] {
      Sqlite s;
      RuntimeLibrary lib("libsqlite3.so.0", "SQLite");
      lib.load(s.openV2, "sqlite3_open_v2");
      lib.load(s.close, "sqlite3_close");
      lib.load(s.exec, "sqlite3_exec");
      lib.load(s.prepare, "sqlite3_prepare_v2");
      lib.load(s.bindText, "sqlite3_bind_text");
      lib.load(s.bindInt, "sqlite3_bind_int64");
      lib.load(s.step, "sqlite3_step");
      lib.load(s.columnText, "sqlite3_column_text");
      lib.load(s.finalize, "sqlite3_finalize");
      lib.load(s.errmsg, "sqlite3_errmsg");
      s.error = lib.getError();
      return s;
    }();
    return s;
  }
};

std::string keyOf(const std::string &request) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(request)),
                     /*LowerCase=*/true);
}

std::string scrub(std::string text, const std::string &secret) {
  if (secret.empty())
    return text;
  for (size_t pos; (pos = text.find(secret)) != std::string::npos;)
    text.replace(pos, secret.size(), "[REDACTED]");
  return text;
}
} // namespace

struct ExchangeLog::Impl {
  sqlite3 *db = nullptr;
};

ExchangeLog::ExchangeLog(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

ExchangeLog::~ExchangeLog() {
  if (impl && impl->db)
    Sqlite::get().close(impl->db);
}

std::unique_ptr<ExchangeLog> ExchangeLog::open(const std::string &path,
                                               std::string &error) {
  const Sqlite &sql = Sqlite::get();
  if (!sql.error.empty()) {
    error = sql.error;
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  if (sql.openV2(path.c_str(), &impl->db,
                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                 nullptr) != SQLITE_OK) {
    error = "cannot open " + path + ": " +
            (impl->db ? sql.errmsg(impl->db) : "out of memory");
    if (impl->db)
      sql.close(impl->db);
    return nullptr;
  }
  const char *schema =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE IF NOT EXISTS responses(key TEXT PRIMARY KEY, "
      "request TEXT NOT NULL, response TEXT NOT NULL, created INTEGER);"
      "CREATE TABLE IF NOT EXISTS exchanges(id INTEGER PRIMARY KEY, "
      "time INTEGER, key TEXT, request TEXT, response TEXT, error TEXT, "
      "status INTEGER, attempts INTEGER, cached INTEGER);";
  char *message = nullptr;
  if (sql.exec(impl->db, schema, nullptr, nullptr, &message) != SQLITE_OK) {
    error = "cannot create the tables in " + path + ": " +
            std::string(message ? message : "?");
    sql.close(impl->db);
    return nullptr;
  }
  return std::unique_ptr<ExchangeLog>(new ExchangeLog(std::move(impl)));
}

std::optional<std::string> ExchangeLog::lookup(const std::string &request) {
  const Sqlite &sql = Sqlite::get();
  sqlite3_stmt *stmt = nullptr;
  if (sql.prepare(impl->db, "SELECT response FROM responses WHERE key = ?1", -1,
                  &stmt, nullptr) != SQLITE_OK)
    return std::nullopt;
  std::string key = keyOf(request);
  sql.bindText(stmt, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  std::optional<std::string> result;
  if (sql.step(stmt) == SQLITE_ROW)
    result = reinterpret_cast<const char *>(sql.columnText(stmt, 0));
  sql.finalize(stmt);
  return result;
}

void ExchangeLog::record(const std::string &request,
                         const std::string &response, const std::string &error,
                         long status, int attempts, bool cached,
                         const std::string &secret) {
  const Sqlite &sql = Sqlite::get();
  std::string key = keyOf(request);
  std::string req = scrub(request, secret), res = scrub(response, secret),
              err = scrub(error, secret);
  sqlite3_stmt *stmt = nullptr;
  if (sql.prepare(impl->db,
                  "INSERT INTO exchanges(time, key, request, response, error, "
                  "status, attempts, cached) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
                  "?7, ?8)",
                  -1, &stmt, nullptr) == SQLITE_OK) {
    sql.bindInt(stmt, 1, int64_t(std::time(nullptr)));
    sql.bindText(stmt, 2, key.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindText(stmt, 3, req.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindText(stmt, 4, res.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindText(stmt, 5, err.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindInt(stmt, 6, status);
    sql.bindInt(stmt, 7, attempts);
    sql.bindInt(stmt, 8, cached);
    sql.step(stmt);
    sql.finalize(stmt);
  }
  if (!error.empty() || cached)
    return;
  if (sql.prepare(impl->db,
                  "INSERT OR REPLACE INTO responses(key, request, response, "
                  "created) VALUES(?1, ?2, ?3, ?4)",
                  -1, &stmt, nullptr) == SQLITE_OK) {
    sql.bindText(stmt, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindText(stmt, 2, req.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindText(stmt, 3, res.c_str(), -1, SQLITE_TRANSIENT);
    sql.bindInt(stmt, 4, int64_t(std::time(nullptr)));
    sql.step(stmt);
    sql.finalize(stmt);
  }
}
