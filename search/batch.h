// Measurement batches, sized for one device call. A batch folder is
// self-contained: the lowered .cu of every selected candidate and a
// manifest (workload, watchdog, runs, seed); `cake tune --run-batch DIR`
// compiles them in parallel and measures them one at a time through the
// runner (runner::compile / runner::runLibrary), appending one line per
// candidate to DIR/results.jsonl (so a batch cut short resumes), and
// `cake tune --ingest DIR/results.jsonl` merges the measurements back into
// the run's records. Without a GPU the two ends run on different machines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/record.h"
#include "search/spec.h"

namespace cake::search {

struct BatchStats {
  int written = 0;        // items in the manifest
  int not_runnable = 0;   // recorded at once (e.g. no oracle for the schedule's problem)
};

// Writes the selected records' kernels and the manifest into `batch_dir`.
// A selected candidate the runner cannot measure (it does not lower for the
// workload's problem) gets its measurement recorded in `records` at once.
std::optional<BatchStats> emitBatch(std::vector<Record>& records, const std::vector<size_t>& selected,
                                    const TuneSpec& spec, const std::string& batch_dir, std::string* error);

struct RunBatchOptions {
  int jobs = 4;                 // parallel nvcc
  std::string harness;          // runner's harness binary ("" = runner default / $CAKE_HARNESS)
  // Compiled libraries, named by the hash of the .cu text and target: a
  // kernel shared by several batches (one template measured at several
  // shapes) compiles once, and a library already there is not compiled
  // again. "": each batch's own so/ folder.
  std::string so_cache;
  bool compile_only = false;    // compile into the cache, measure nothing, record nothing
};
// Compiles and measures every item of the batches without a line in
// DIR/results.jsonl yet: every distinct kernel of all the batches is
// compiled first, `jobs` at a time (CPU work), then the items are measured
// one at a time (GPU timing), batch by batch in the order given. Returns the
// number measured now (compiled, with compile_only).
// The compile cache's key for a .cu text: its code without whole-line //
// comments (lowering names the candidate's file in them), and the target.
std::string compileKey(const std::string& cu_text, const std::string& target);

std::optional<int> runBatches(const std::vector<std::string>& batch_dirs, const RunBatchOptions& opts,
                              std::string* error);
std::optional<int> runBatch(const std::string& batch_dir, const RunBatchOptions& opts, std::string* error);

// Merges a batch's results.jsonl into the records (by id). Returns how many
// records got a measurement; ids the run does not know are an error.
std::optional<int> ingest(std::vector<Record>& records, const std::string& results_path, std::string* error);

}  // namespace cake::search
