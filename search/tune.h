// `cake tune`: generate -> gate -> rank -> measure -> route.
//
//   generate  grid points of a template and/or mutants (candidates.h), each
//             written to <run>/candidates/; duplicates by lowered code are
//             recorded once and point at the first;
//   gate      every unique candidate through checks::checkSchedule: only a
//             candidate with no error and no unknown verdict is "verified";
//             a rejection keeps the rule of its first error;
//   rank      verified candidates by the estimator's predicted time;
//   measure   the top k through the runner on the workload, via a batch
//             folder sized for one device call (batch.h);
//   route     route.h: findings to the corpus or the calibration set, report.
//
// Everything is kept in <run>/results.jsonl (record.h), rewritten after each
// stage; a second call resumes (unchanged candidates keep their verdict,
// prediction and measurement).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/schedule.h"
#include "search/record.h"
#include "search/spec.h"

namespace cake::search {

// The first line of a multi-line text (a rendered finding "file:l:c: error: ... [rule]",
// a compiler's error output): route.cpp and tune.cpp.
inline std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// The ranking interface: a predicted time for a verified schedule on the
// workload (nullopt: the estimator cannot say; such candidates rank last,
// in enumeration order). The cost model plugs in here (estimator.h).
using Estimator = std::function<std::optional<Prediction>(const ir::Schedule&, const Workload&)>;

struct TuneOptions {
  TuneSpec spec;
  std::string run_dir;            // results.jsonl, candidates/, batches, report
  int jobs = 2;                   // parallel checks / compiles
  Estimator estimator;            // empty: no ranking (enumeration order)
  unsigned check_timeout_ms = 10000;
  // Another run folder of the same spec at another shape: its gate verdicts
  // are reused for unchanged candidates (`cake dispatch`: one check per
  // candidate, one prediction per shard).
  std::string verdicts_from;
};

// Generates, gates and ranks; merges with the records already in the run
// folder (resume). Returns every record, baseline first, then in
// enumeration order. nullopt + `error` on a bad spec/template or I/O error.
std::optional<std::vector<Record>> gateAndRank(const TuneOptions& opts, std::string* error);

// Indices of the records to measure next: the baseline (if unmeasured), then
// verified candidates in rank order among the top k that are not measured
// yet, at most `limit` in all. With `ungated`, rejected and unknown
// candidates are measured too (the ablation's "without gates" arm).
std::vector<size_t> selectForMeasurement(const std::vector<Record>& records, int top_k, int limit,
                                         bool ungated = false);

// Path of the results file / candidate folder in a run folder.
std::string resultsPath(const std::string& run_dir);
std::string candidatesDir(const std::string& run_dir);
// A file-name-safe form of a candidate id.
std::string safeName(const std::string& id);

}  // namespace cake::search
