// Issue 9 for lowering: its limits come from the target table (ir/target.h),
// the CUDA it emits compiles under any -std (no trigraph in a comment, no
// parameter named like a C/CUDA header macro), and `cake run` knows
// statically which GEMM sizes a schedule computes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/common/text_edit.h"
#include "ir/frontend.h"
#include "ir/target.h"
#include "lowering/lower.h"
#include "tests/common/corpus_files.h"

using namespace cake;

namespace {

std::string readText(const std::string& rel) { return test::readText(test::sourceDir() + "/" + rel); }

ir::Schedule compile(const std::string& text) {
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("t.cake", text), {}, sink);
  std::string msgs;
  for (const auto& f : sink.findings()) msgs += ir::renderText(f);
  EXPECT_TRUE(m && !m->schedules.empty()) << msgs;
  return m && !m->schedules.empty() ? m->schedules[0] : ir::Schedule{};
}

using cake::test::replaceAll;

std::string findings(const lowering::LowerResult& r) {
  std::string s;
  for (const auto& f : r.findings) s += ir::renderText(f);
  return s;
}

const std::string kSm80 = "corpus/gemm/sm80_single_stage.cake";

}  // namespace

TEST(LoweringLimits, Sm80SharedMemoryIsSm80s) {
  // 200,000 B fits sm_90a's 232,448 but not sm_80's 166,912.
  const std::string base = readText(kSm80);
  ASSERT_NE(base.find("lm.smem(16384)"), std::string::npos);
  auto big = lowering::lowerToCuda(compile(replaceAll(base, "lm.smem(16384)", "lm.smem(200000)")));
  EXPECT_FALSE(big.ok);
  EXPECT_NE(findings(big).find(std::to_string(ir::targetLimits(ir::Target::SM80).smem_per_block)), std::string::npos)
      << findings(big);
  auto fits = lowering::lowerToCuda(compile(replaceAll(base, "lm.smem(16384)", "lm.smem(150000)")));
  EXPECT_TRUE(fits.ok) << findings(fits);
}

TEST(LoweringNames, NoTrigraphInAnyComment) {
  // A source line ending in ??/ (a backslash under trigraphs) and non-ASCII
  // bytes (each becomes '?') must not make "??" in a comment of the .cu.
  std::string text = readText(kSm80);
  text = replaceAll(text, "lm.cp_async_commit()", "lm.cp_async_commit()  # why??/ \xc3\xa9\xc3\xa9/ ok??=");
  auto r = lowering::lowerToCuda(compile(text));
  ASSERT_TRUE(r.ok) << findings(r);
  EXPECT_EQ(r.source.find("??"), std::string::npos);
  EXPECT_NE(r.source.find("why"), std::string::npos);   // the line is still echoed
}

TEST(LoweringNames, HeaderMacroNamesAreRenamed) {
  // Parameters and locals named like macros of <stdint.h>, <stdio.h>,
  // <errno.h>, <signal.h>, <float.h>: each would be macro-expanded.
  std::string text = readText(kSm80);
  text = replaceAll(text, "K: LM.i32", "INT32_MAX: LM.i32");
  text = replaceAll(text, "lm.assume(K > 0)", "lm.assume(INT32_MAX > 0)");
  text = replaceAll(text, "lm.cdiv(K, 32)", "lm.cdiv(INT32_MAX, 32)");
  text = replaceAll(text, "C: LM.gmem", "stdin: LM.gmem");
  text = replaceAll(text, "lm.copy(C, out", "lm.copy(stdin, out");
  text = replaceAll(text, "smem_a", "EINVAL");
  text = replaceAll(text, "smem_b", "SIGINT");
  text = replaceAll(text, "acc ", "FLT_MAX ");
  text = replaceAll(text, "acc,", "FLT_MAX,");
  text = replaceAll(text, "acc)", "FLT_MAX)");
  auto r = lowering::lowerToCuda(compile(text));
  ASSERT_TRUE(r.ok) << findings(r);
  for (const char* macro : {"INT32_MAX", "stdin", "EINVAL", "SIGINT", "FLT_MAX"}) {
    // outside comments, the name only appears renamed (followed by '_')
    std::regex bare(std::string("(^|[^A-Za-z0-9_])") + macro + "([^A-Za-z0-9_]|$)");
    std::istringstream in(r.source);
    std::string line;
    int bad = 0;
    while (std::getline(in, line)) {
      auto c = line.find("//");
      std::string code = c == std::string::npos ? line : line.substr(0, c);
      if (std::regex_search(code, bare)) ++bad;
    }
    EXPECT_EQ(bad, 0) << macro;
    EXPECT_NE(r.source.find(std::string(macro) + "_"), std::string::npos) << macro;
  }
}

TEST(LoweringNames, ASymbolicStepsTripCounterClashesWithNoLoopVariable) {
  // The front end counts `for tile in lm.range(b, T, lm.grid_dim(0))` by a trip
  // counter `tile#trip` (docs/semantics.md "Loops with a symbolic step"); its C++
  // name must not be a written loop variable's, which may be nested in its loop.
  const std::string text =
      "@cake.schedule(target=\"sm_90a\")\n"
      "def k(lm, A: LM.tma2d, T: LM.i32):\n"
      "    pool = lm.smem(16384)\n"
      "    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)\n"
      "    load = lm.role(warps=[0])\n"
      "    full = lm.barrier(count=1, prod=[load], cons=[load])\n"
      "    with load:\n"
      "        for tile in lm.range(lm.block_idx(0), T, lm.grid_dim(0)):\n"
      "            for tile_trip in lm.range(0, 2):\n"
      "                v.tma_load(A, coords=(tile, 64 * tile_trip), stage=0, barrier=full)\n"
      "                lm.wait(full, stage=0)\n";
  auto r = lowering::lowerToCuda(compile(text));
  ASSERT_TRUE(r.ok) << findings(r);
  EXPECT_NE(r.source.find("for (int tile_trip_2 = 0;"), std::string::npos);
  EXPECT_NE(r.source.find("for (int tile_trip = 0; tile_trip < 2;"), std::string::npos);
  EXPECT_NE(r.source.find("(tile_trip_2 * static_cast<int>(gridDim.x))"), std::string::npos) << r.source;
}
