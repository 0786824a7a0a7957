// Issue 9: sizes beyond what any GPU allows are rejected by the front end
// with a located error (before a later stage allocates for them), the
// target table is the one source of limits, and source lines are indexed
// once so rendering many findings stays linear.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "ir/target.h"
#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;

namespace {

std::string schedule(const std::string& barrier_args, const std::string& view_stages = "2") {
  return R"(@cake.schedule(target="sm_90a")
def k(lm, A: LM.tma2d, K: LM.i32):
    pool = lm.smem(32768)
    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=)" +
         view_stages + R"()
    load = lm.role(warps=[0])
    use = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier()" +
         barrier_args + R"()
    with load:
        for k in lm.range(0, K):
            a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
    with use:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
)";
}

const Finding* firstError(const DiagnosticSink& sink) {
  for (const Finding& f : sink.findings())
    if (f.severity == Severity::Error) return &f;
  return nullptr;
}

}  // namespace

TEST(HardwareLimits, HugeBarrierCountIsALocatedErrorAtOnce) {
  DiagnosticSink sink;
  auto t0 = std::chrono::steady_clock::now();
  auto m = compileModule(src(schedule("count=2147483647, prod=[load], cons=[use]")), {}, sink);
  EXPECT_FALSE(m.has_value());
  const Finding* f = firstError(sink);
  ASSERT_NE(f, nullptr) << describe(sink);
  EXPECT_EQ(f->range.line, 7) << describe(sink);
  EXPECT_NE(f->message.find("count="), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("mbarrier"), std::string::npos) << f->message;
  std::printf("front end rejected count=2147483647 in %.1f ms\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

TEST(HardwareLimits, BarrierCountUpToSharedMemoryIsAccepted) {
  // 29056 slots x 8 B = 232448 B: the most any target's shared memory holds.
  const int64_t most = hw::maxSmemPerBlock() / hw::kMbarrierBytes;
  EXPECT_EQ(most, 29056);
  DiagnosticSink ok, over;
  EXPECT_TRUE(compileModule(src(schedule(fmt::format("count={}, prod=[load], cons=[use]", most))), {}, ok))
      << describe(ok);
  EXPECT_FALSE(compileModule(src(schedule(fmt::format("count={}, prod=[load], cons=[use]", most + 1))), {}, over));
}

TEST(HardwareLimits, ArrivalCountsAreTwentyBits) {
  DiagnosticSink ok, over;
  EXPECT_TRUE(compileModule(src(schedule("prod=[load], cons=[use], init_count=1048575")), {}, ok)) << describe(ok);
  EXPECT_FALSE(compileModule(src(schedule("prod=[load], cons=[use], init_count=1048576")), {}, over));
  const Finding* f = firstError(over);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->range.line, 7);
  EXPECT_NE(f->message.find("20 bits"), std::string::npos) << f->message;
}

TEST(HardwareLimits, StagesBeyondSharedMemoryAreRejected) {
  DiagnosticSink sink;
  EXPECT_FALSE(compileModule(src(schedule("prod=[load], cons=[use]", "2147483647")), {}, sink));
  const Finding* f = firstError(sink);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->range.line, 4) << describe(sink);
}

TEST(TargetTable, OneTableForEveryTarget) {
  EXPECT_EQ(targetLimits(Target::SM80).smem_per_block, 166912);
  EXPECT_EQ(targetLimits(Target::SM90a).smem_per_block, 232448);
  EXPECT_EQ(targetLimits(Target::SM100a).smem_per_block, 232448);
  EXPECT_EQ(targetLimits(Target::SM100a).tmem_columns, 512);
  EXPECT_EQ(targetLimits(Target::SM90a).tmem_columns, 0);
  EXPECT_FALSE(targetLimits(Target::Unspecified).known);
  // 128 threads: min(255, 65536 / 128) = 255 -> 248; 384 threads: 170 -> 168
  EXPECT_EQ(targetLimits(Target::SM90a).launchRegsPerThread(128), 248);
  EXPECT_EQ(targetLimits(Target::SM90a).launchRegsPerThread(384), 168);
}

TEST(SourceLines, RenderingManyFindingsEchoesEachLine) {
  // 20,000 findings, one per line of a 20,000-line file: each rendering
  // echoes its own line, CRLF or not (the renderer's line index makes this
  // linear; it was quadratic). Timed for information only.
  std::string text;
  for (int i = 1; i <= 20000; ++i) text += fmt::format("line_{} = {}{}", i, i, i % 2 ? "\r\n" : "\n");
  auto f = src(text);
  size_t total = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 1; i <= 20000; ++i) {
    Finding x;
    x.rule = "struct.unused";
    x.severity = Severity::Warning;
    x.message = "unused";
    x.range = {f, i, 1, i, 5};
    std::string r = renderText(x);
    ASSERT_NE(r.find(fmt::format("line_{} = {}\n^~~~", i, i)), std::string::npos) << r;
    total += r.size();
  }
  std::printf("rendered 20000 findings (%zu bytes) in %.1f ms\n", total,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}
