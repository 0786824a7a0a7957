// How the harness turns CUPTI kernel records into per-run times (plain C++,
// no CUDA: the CPU tests include it too, tests/runner/run_timing_test.cpp).
//
// The launch sequence is flush, run, flush, run, ...: a record whose name
// contains the flush kernel's name opens a segment, every other record
// belongs to the segment open at its start. A run's time is its *span*, the
// first kernel's start to the last kernel's end: with programmatic dependent
// launch a grid starts (and CUPTI counts it) while the previous one still
// runs, so the sum of durations would count the overlap twice; without PDL
// the span also counts the gap between the kernels, which the stream really
// spends. The sum of durations is kept beside it (the harness's measure
// before the span, for comparison with older records).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace cake_harness {

struct KernelRecord {
  uint64_t start, end;  // ns
  std::string name;
};

struct RunTimes {
  // per role (run i belongs to role i % per): one value per run, in ms
  std::vector<double> span_ms[2], sum_ms[2];
  int max_kernels[2] = {0, 0};
  int segments = 0;  // flush records seen
};

inline RunTimes splitRuns(std::vector<KernelRecord> recs, int per, const std::string& flush_name) {
  std::sort(recs.begin(), recs.end(), [](const KernelRecord& a, const KernelRecord& b) { return a.start < b.start; });
  RunTimes t;
  int segment = -1, kernels = 0;
  uint64_t first = 0, last = 0, sum = 0;
  auto close = [&]() {
    if (segment < 0) return;
    const int role = segment % per;
    t.span_ms[role].push_back(kernels ? (last - first) * 1e-6 : 0.0);
    t.sum_ms[role].push_back(sum * 1e-6);
    t.max_kernels[role] = std::max(t.max_kernels[role], kernels);
  };
  for (const KernelRecord& r : recs) {
    if (r.name.find(flush_name) != std::string::npos) {
      close();
      ++segment;
      kernels = 0;
      sum = 0;
    } else if (segment >= 0) {
      if (kernels == 0 || r.start < first) first = r.start;
      if (kernels == 0 || r.end > last) last = r.end;
      sum += r.end - r.start;
      ++kernels;
    }
  }
  close();
  t.segments = segment + 1;
  return t;
}

}  // namespace cake_harness
