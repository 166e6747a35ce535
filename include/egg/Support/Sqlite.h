//===- Sqlite.h - SQLite opened at run time ---------------------*- C++ -*-===//
//
// The LLM exchange log and egg-tune's records both live in SQLite files.
// SQLite is opened at run time (libsqlite3.so.0) so the static tools carry
// no dependency on it; a machine without it gets a clear error from the
// feature that needs it. A thin RAII layer: a database and its statements.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_SUPPORT_SQLITE_H
#define EGG_SUPPORT_SQLITE_H

#include "egg/Support/RuntimeLibrary.h"

#include <cstdint>
#include <sqlite3.h>
#include <string>

namespace mlir::egg::sqlite {

/// The SQLite entry points, opened once per process.
struct Api {
  decltype(&sqlite3_open_v2) openV2 = nullptr;
  decltype(&sqlite3_close) close = nullptr;
  decltype(&sqlite3_exec) exec = nullptr;
  decltype(&sqlite3_free) free = nullptr;
  decltype(&sqlite3_busy_timeout) busyTimeout = nullptr;
  decltype(&sqlite3_prepare_v2) prepare = nullptr;
  decltype(&sqlite3_bind_text) bindText = nullptr;
  decltype(&sqlite3_bind_int64) bindInt = nullptr;
  decltype(&sqlite3_bind_double) bindDouble = nullptr;
  decltype(&sqlite3_step) step = nullptr;
  decltype(&sqlite3_column_text) columnText = nullptr;
  decltype(&sqlite3_column_int64) columnInt = nullptr;
  decltype(&sqlite3_column_double) columnDouble = nullptr;
  decltype(&sqlite3_column_type) columnType = nullptr;
  decltype(&sqlite3_last_insert_rowid) lastInsertRowid = nullptr;
  decltype(&sqlite3_finalize) finalize = nullptr;
  decltype(&sqlite3_errmsg) errmsg = nullptr;
  std::string error;

  static const Api &get() {
    static const Api api = [] {
      Api a;
      RuntimeLibrary lib("libsqlite3.so.0", "SQLite");
      lib.load(a.openV2, "sqlite3_open_v2");
      lib.load(a.close, "sqlite3_close");
      lib.load(a.exec, "sqlite3_exec");
      lib.load(a.free, "sqlite3_free");
      lib.load(a.busyTimeout, "sqlite3_busy_timeout");
      lib.load(a.prepare, "sqlite3_prepare_v2");
      lib.load(a.bindText, "sqlite3_bind_text");
      lib.load(a.bindInt, "sqlite3_bind_int64");
      lib.load(a.bindDouble, "sqlite3_bind_double");
      lib.load(a.step, "sqlite3_step");
      lib.load(a.columnText, "sqlite3_column_text");
      lib.load(a.columnInt, "sqlite3_column_int64");
      lib.load(a.columnDouble, "sqlite3_column_double");
      lib.load(a.columnType, "sqlite3_column_type");
      lib.load(a.lastInsertRowid, "sqlite3_last_insert_rowid");
      lib.load(a.finalize, "sqlite3_finalize");
      lib.load(a.errmsg, "sqlite3_errmsg");
      a.error = lib.getError();
      return a;
    }();
    return api;
  }
};

/// A prepared statement; finalized when it goes out of scope. Binding
/// indices start at 1, column indices at 0 (SQLite's conventions).
class Statement {
public:
  Statement(sqlite3 *db, const char *sql) {
    if (Api::get().prepare(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
      stmt = nullptr;
  }
  ~Statement() {
    if (stmt)
      Api::get().finalize(stmt);
  }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  explicit operator bool() const { return stmt != nullptr; }
  Statement &bind(int i, const std::string &text) {
    Api::get().bindText(stmt, i, text.c_str(), int(text.size()),
                        SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int i, int64_t value) {
    Api::get().bindInt(stmt, i, value);
    return *this;
  }
  Statement &bind(int i, double value) {
    Api::get().bindDouble(stmt, i, value);
    return *this;
  }
  /// True while a row is available.
  bool row() { return stmt && Api::get().step(stmt) == SQLITE_ROW; }
  /// Runs a statement that returns no rows; true on success.
  bool run() { return stmt && Api::get().step(stmt) == SQLITE_DONE; }
  std::string text(int col) const {
    const unsigned char *t = Api::get().columnText(stmt, col);
    return t ? reinterpret_cast<const char *>(t) : "";
  }
  int64_t integer(int col) const { return Api::get().columnInt(stmt, col); }
  double real(int col) const { return Api::get().columnDouble(stmt, col); }
  bool isNull(int col) const {
    return Api::get().columnType(stmt, col) == SQLITE_NULL;
  }

private:
  sqlite3_stmt *stmt = nullptr;
};

/// An open database file; closed when it goes out of scope.
class Database {
public:
  /// Opens (creating) `path` and runs `schema`; on failure the result is
  /// invalid and `error` says why.
  static Database open(const std::string &path, const char *schema,
                       std::string &error) {
    Database d;
    const Api &api = Api::get();
    if (!api.error.empty()) {
      error = api.error;
      return d;
    }
    if (api.openV2(path.c_str(), &d.db,
                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                   nullptr) != SQLITE_OK) {
      error = "cannot open " + path + ": " +
              (d.db ? api.errmsg(d.db) : "out of memory");
      d.reset();
      return d;
    }
    // Another process (a second egg-tune on the same records) may hold the
    // write lock for a moment: wait rather than fail.
    api.busyTimeout(d.db, 10000);
    if (!d.exec(schema, error)) {
      error = "cannot create the tables in " + path + ": " + error;
      d.reset();
    }
    return d;
  }

  Database() = default;
  Database(Database &&other) : db(other.db) { other.db = nullptr; }
  Database &operator=(Database &&other) {
    if (this != &other) {
      reset();
      db = other.db;
      other.db = nullptr;
    }
    return *this;
  }
  ~Database() { reset(); }

  explicit operator bool() const { return db != nullptr; }
  sqlite3 *get() const { return db; }

  bool exec(const char *sql, std::string &error) {
    char *message = nullptr;
    if (Api::get().exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK)
      return true;
    error = message ? message : "unknown SQLite error";
    if (message)
      Api::get().free(message);
    return false;
  }
  std::string lastError() const { return Api::get().errmsg(db); }
  int64_t lastInsertRowid() const { return Api::get().lastInsertRowid(db); }

private:
  void reset() {
    if (db)
      Api::get().close(db);
    db = nullptr;
  }
  sqlite3 *db = nullptr;
};

} // namespace mlir::egg::sqlite

#endif // EGG_SUPPORT_SQLITE_H
