// runner/harness/run_timing.h: how the harness turns CUPTI kernel records
// into per-run times (the span from a run's first kernel start to its last
// kernel end; the sum of durations beside it).
#include <gtest/gtest.h>

#include <vector>

#include "runner/harness/run_timing.h"

using cake_harness::KernelRecord;
using cake_harness::splitRuns;

namespace {
const char* kFlush = "cake_l2_flush_kernel";
// times in µs, records in ns
KernelRecord rec(double start_us, double end_us, const char* name) {
  return {static_cast<uint64_t>(start_us * 1000), static_cast<uint64_t>(end_us * 1000), name};
}
}  // namespace

TEST(RunTiming, PdlOverlapIsCountedOnceInTheSpan) {
  // flush, then the partial kernel 10..25 µs and the reduce launched early
  // (PDL) at 20 µs, ending at 28 µs: 18 µs of stream time, 23 µs of durations
  auto t = splitRuns({rec(0, 9, kFlush), rec(10, 25, "partial"), rec(20, 28, "reduce")}, 1, kFlush);
  ASSERT_EQ(t.segments, 1);
  ASSERT_EQ(t.span_ms[0].size(), 1u);
  EXPECT_NEAR(t.span_ms[0][0], 0.018, 1e-9);
  EXPECT_NEAR(t.sum_ms[0][0], 0.023, 1e-9);
  EXPECT_EQ(t.max_kernels[0], 2);
}

TEST(RunTiming, GapBetweenKernelsIsCountedInTheSpan) {
  // no PDL: the reduce starts 2 µs after the partial ends
  auto t = splitRuns({rec(0, 9, kFlush), rec(10, 25, "partial"), rec(27, 30, "reduce")}, 1, kFlush);
  ASSERT_EQ(t.span_ms[0].size(), 1u);
  EXPECT_NEAR(t.span_ms[0][0], 0.020, 1e-9);
  EXPECT_NEAR(t.sum_ms[0][0], 0.018, 1e-9);
}

TEST(RunTiming, InterleavedRolesAndUnsortedRecords) {
  // flush, kernel (one launch), flush, cuBLAS (two kernels), twice; records out of order
  std::vector<KernelRecord> r = {rec(130, 134, "gemm"), rec(100, 109, kFlush),    rec(0, 9, kFlush),
                                 rec(10, 14, "kernel"), rec(50, 59, kFlush),      rec(60, 70, "gemm"),
                                 rec(71, 73, "splitKreduce"), rec(110, 115, "kernel"), rec(120, 129, kFlush),
                                 rec(136, 137, "splitKreduce")};
  auto t = splitRuns(r, 2, kFlush);
  EXPECT_EQ(t.segments, 4);
  ASSERT_EQ(t.span_ms[0].size(), 2u);
  ASSERT_EQ(t.span_ms[1].size(), 2u);
  EXPECT_NEAR(t.span_ms[0][0], 0.004, 1e-9);
  EXPECT_NEAR(t.span_ms[0][1], 0.005, 1e-9);
  EXPECT_NEAR(t.span_ms[1][0], 0.013, 1e-9);
  EXPECT_NEAR(t.sum_ms[1][0], 0.012, 1e-9);
  EXPECT_NEAR(t.span_ms[1][1], 0.007, 1e-9);
  EXPECT_EQ(t.max_kernels[0], 1);
  EXPECT_EQ(t.max_kernels[1], 2);
}

TEST(RunTiming, RecordsBeforeTheFirstFlushAreNotARun) {
  auto t = splitRuns({rec(0, 5, "warmup"), rec(6, 9, kFlush), rec(10, 12, "kernel")}, 1, kFlush);
  EXPECT_EQ(t.segments, 1);
  ASSERT_EQ(t.span_ms[0].size(), 1u);
  EXPECT_NEAR(t.span_ms[0][0], 0.002, 1e-9);
}
