//===- TuneDatabase.cpp - egg-tune's records ------------------------------===//

#include "egg/Tune/TuneDatabase.h"
#include "egg/Support/Sqlite.h"

#include <ctime>

using namespace mlir::egg;

struct TuneDatabase::Impl {
  sqlite::Database db;
};

TuneDatabase::TuneDatabase(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
TuneDatabase::~TuneDatabase() = default;

std::unique_ptr<TuneDatabase> TuneDatabase::open(const std::string &path,
                                                 std::string &error) {
  // WAL: a reader (a report, a second run) never blocks the writer, and a
  // process killed mid-write leaves the last committed row intact.
  const char *schema =
      "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, "
      "started INTEGER, finished INTEGER, status TEXT, input TEXT, "
      "input_sha256 TEXT, agent TEXT, device TEXT, options TEXT);"
      "CREATE TABLE IF NOT EXISTS candidates(id INTEGER PRIMARY KEY, "
      "run INTEGER REFERENCES runs(id), created INTEGER, "
      "fingerprint TEXT NOT NULL, device TEXT NOT NULL, "
      "structure TEXT NOT NULL, tuning TEXT NOT NULL, kernel TEXT, "
      "proposer TEXT, stage INTEGER, round INTEGER, compile_status TEXT, "
      "diagnostics TEXT, status TEXT, kernel_ms REAL, function_ms REAL, "
      "estimate INTEGER, result TEXT, "
      "UNIQUE(fingerprint, device, structure, tuning));";
  auto impl = std::make_unique<Impl>();
  impl->db = sqlite::Database::open(path, schema, error);
  if (!impl->db)
    return nullptr;
  return std::unique_ptr<TuneDatabase>(new TuneDatabase(std::move(impl)));
}

int64_t TuneDatabase::beginRun(const std::string &input,
                               const std::string &inputHash,
                               const std::string &agent,
                               const std::string &device,
                               const std::string &options) {
  sqlite::Statement stmt(impl->db.get(),
                         "INSERT INTO runs(started, status, input, "
                         "input_sha256, agent, device, options) VALUES(?1, "
                         "'running', ?2, ?3, ?4, ?5, ?6)");
  if (!stmt)
    return -1;
  stmt.bind(1, int64_t(std::time(nullptr)))
      .bind(2, input)
      .bind(3, inputHash)
      .bind(4, agent)
      .bind(5, device)
      .bind(6, options);
  return stmt.run() ? impl->db.lastInsertRowid() : -1;
}

void TuneDatabase::finishRun(int64_t run, const std::string &status) {
  sqlite::Statement stmt(impl->db.get(),
                         "UPDATE runs SET finished = ?1, status = ?2 WHERE "
                         "id = ?3");
  if (stmt)
    stmt.bind(1, int64_t(std::time(nullptr)))
        .bind(2, status)
        .bind(3, run)
        .run();
}

std::optional<CandidateRecord>
TuneDatabase::lookup(const std::string &fingerprint, const std::string &device,
                     const std::string &structure, const std::string &tuning) {
  sqlite::Statement stmt(
      impl->db.get(),
      "SELECT kernel, proposer, stage, round, compile_status, diagnostics, "
      "status, kernel_ms, function_ms, estimate, result FROM candidates "
      "WHERE fingerprint = ?1 AND device = ?2 AND structure = ?3 AND "
      "tuning = ?4");
  if (!stmt)
    return std::nullopt;
  stmt.bind(1, fingerprint).bind(2, device).bind(3, structure).bind(4, tuning);
  if (!stmt.row())
    return std::nullopt;
  CandidateRecord c;
  c.fingerprint = fingerprint;
  c.device = device;
  c.structure = structure;
  c.tuning = tuning;
  c.kernel = stmt.text(0);
  c.proposer = stmt.text(1);
  c.stage = stmt.integer(2);
  c.round = stmt.integer(3);
  c.compileStatus = stmt.text(4);
  c.diagnostics = stmt.text(5);
  c.status = stmt.text(6);
  c.kernelMs = stmt.isNull(7) ? -1 : stmt.real(7);
  c.functionMs = stmt.isNull(8) ? -1 : stmt.real(8);
  c.estimate = stmt.integer(9) != 0;
  c.result = stmt.text(10);
  c.cached = true;
  return c;
}

bool TuneDatabase::record(int64_t run, const CandidateRecord &c,
                          std::string &error) {
  sqlite::Statement stmt(
      impl->db.get(),
      "INSERT OR IGNORE INTO candidates(run, created, fingerprint, device, "
      "structure, tuning, kernel, proposer, stage, round, compile_status, "
      "diagnostics, status, kernel_ms, function_ms, estimate, result) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
      "?15, ?16, ?17)");
  if (!stmt) {
    error = impl->db.lastError();
    return false;
  }
  stmt.bind(1, run)
      .bind(2, int64_t(std::time(nullptr)))
      .bind(3, c.fingerprint)
      .bind(4, c.device)
      .bind(5, c.structure)
      .bind(6, c.tuning)
      .bind(7, c.kernel)
      .bind(8, c.proposer)
      .bind(9, c.stage)
      .bind(10, c.round)
      .bind(11, c.compileStatus)
      .bind(12, c.diagnostics)
      .bind(13, c.status)
      .bind(14, c.kernelMs)
      .bind(15, c.functionMs)
      .bind(16, int64_t(c.estimate))
      .bind(17, c.result);
  if (!stmt.run()) {
    error = impl->db.lastError();
    return false;
  }
  return true;
}

int64_t TuneDatabase::count(const std::string &fingerprint,
                            const std::string &device) {
  sqlite::Statement stmt(impl->db.get(),
                         "SELECT COUNT(*) FROM candidates WHERE fingerprint = "
                         "?1 AND device = ?2");
  if (!stmt)
    return 0;
  stmt.bind(1, fingerprint).bind(2, device);
  return stmt.row() ? stmt.integer(0) : 0;
}
