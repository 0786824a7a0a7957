// One record per candidate (results.jsonl): what the gate said, what the
// estimator predicted, what the GPU measured, where the finding went. The
// file is rewritten atomically after every stage, so an interrupted run
// resumes where it stopped (a candidate whose text is unchanged keeps its
// verdict and measurement).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cake::search {

struct Prediction {
  double ms = 0;            // predicted kernel time
  std::string bottleneck;   // e.g. "tensor core", "memory", "latency"
};

struct Record {
  std::string id;
  std::string origin;              // grid | mutant | baseline
  nlohmann::json params = nlohmann::json::object();
  std::string mutation;
  std::string source_hash;         // of the candidate's text (resume key)
  std::string code_hash;           // of the lowered code (dedupe key)
  std::string source_path;         // the candidate's .cake file (in the run folder)
  // excluded | front_end_error | duplicate | rejected | unknown | verified | lower_error
  std::string verdict;
  std::string rule;                // rejected: the first error's rule id
  std::string detail;              // the first error / why unknown / which assume / duplicate of
  std::optional<Prediction> prediction;
  int rank = 0;                    // 1 = predicted fastest among verified; 0 = not ranked
  nlohmann::json measurement;      // the runner's evidence record (null: not measured)
  double gpu_wall_s = 0;           // wall time of the measurement (the GPU seconds it cost)
  std::string route;               // corpus | calibration | "" (see route.h)

  bool measured() const { return measurement.is_object(); }
  // The measured result ("ok", "wrong", "hang", "crash", ...), "" if none.
  std::string result() const;
  // The measured median in ms, or nullopt unless the result is ok.
  std::optional<double> measuredMs() const;
};

nlohmann::json toJson(const Record& r);
Record recordFromJson(const nlohmann::json& j);   // throws nlohmann::json::exception on a bad record

// Reads a results file; a missing file is an empty list. Bad lines are an
// error (nullopt + `error` naming the line), never skipped silently.
std::optional<std::vector<Record>> readRecords(const std::string& path, std::string* error);
// Writes all records (one JSON object per line) through a temporary file
// and a rename, so a reader never sees half a file.
bool writeRecords(const std::string& path, const std::vector<Record>& records, std::string* error);

}  // namespace cake::search
