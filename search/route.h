// Routing: every measured finding goes where it teaches the most.
//   corpus       a candidate the verifier accepted that is wrong, hangs or
//                crashes on the GPU is a verifier or lowering defect: the
//                concrete candidate (already minimal: every choice is a
//                constant) is written to <run>/findings/corpus/ with its
//                GPU evidence in the header, for triage into corpus/;
//   calibration  a verified, correct candidate whose predicted time is off
//                by more than the spec's calibration_error is appended to
//                <run>/findings/calibration.jsonl (the cost model's
//                calibration set).
// The report names the best candidate, its ratio to the baseline and the
// findings per destination.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/record.h"
#include "search/spec.h"

namespace cake::search {

struct Report {
  std::map<std::string, int> verdicts;          // verdict -> candidates
  int measured = 0;
  double gpu_seconds = 0;
  std::optional<size_t> best;                   // fastest correct verified candidate (not the baseline)
  std::optional<size_t> baseline;               // the baseline record, if measured ok
  std::vector<size_t> to_corpus, to_calibration;
  std::string text;                             // the printed report (also <run>/report.md)
};

// Sets Record::route, writes the findings and <run>/report.md.
std::optional<Report> route(std::vector<Record>& records, const TuneSpec& spec, const std::string& run_dir,
                            std::string* error);

}  // namespace cake::search
