// lowering/: a wgmma into a column slice of its accumulator fragment
// (`lm.mma(acc[:, c0:c1], ...)`, docs/ir-reference.md "Operands"), as the
// 128x64 tail tiles of bench/gpu/schedules/sm90_pingpong_128x192_tail64.cake.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/frontend.h"
#include "lowering/lower.h"
#include "tests/common/corpus_files.h"
#include "tests/common/text_edit.h"

using namespace cake;

namespace {

const char* kTail64 = "bench/gpu/schedules/sm90_pingpong_128x192_tail64.cake";

// kTail64 with every `from` replaced by `to` (nothing replaced when from is
// empty), compiled and lowered; the findings rendered into `why`.
lowering::LowerResult lowerTail64(const std::string& from, const std::string& to, std::string& why) {
  std::string err;
  auto f = ir::readSourceFile(test::sourceDir() + "/" + kTail64, err);
  EXPECT_TRUE(f) << err;
  if (!f) return {};
  std::string text(f->text);
  if (!from.empty()) {
    EXPECT_NE(text.find(from), std::string::npos) << from;
    text = test::replaceAll(text, from, to);
  }
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile(kTail64, text), {}, sink);
  EXPECT_TRUE(m && !m->schedules.empty());
  if (!m || m->schedules.empty()) return {};
  auto r = lowering::lowerToCuda(m->schedules[0]);
  why.clear();
  for (const auto& x : r.findings) why += ir::renderText(x) + "\n";
  return r;
}

size_t occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

}  // namespace

TEST(LoweringAccSlice, WgmmaIntoAColumnSliceUsesTheSlicesRegisters) {
  std::string why;
  auto r = lowerTail64("", "", why);
  ASSERT_TRUE(r.ok) << why;
  const std::string& s = r.source;
  // both helpers: the whole 192-column tile and the 64-column slice
  EXPECT_EQ(occurrences(s, "void cake_wgmma_m64n192k16_bf16(float (&d0)[48], float (&d1)[48]"), 1u);
  EXPECT_EQ(occurrences(s, "void cake_wgmma_m64n64k16_bf16(float (&d0)[16], float (&d1)[16]"), 1u);
  // the slice's wgmma takes the first 16 registers of each row half of both m64 blocks
  EXPECT_EQ(occurrences(s, "cake_wgmma_m64n64k16_bf16(reinterpret_cast<float (&)[16]>(acc[0][0]), "
                     "reinterpret_cast<float (&)[16]>(acc[1][0]), cake_wgmma_desc_add(cake_da0"),
            1u);
  EXPECT_EQ(occurrences(s, "cake_wgmma_m64n64k16_bf16(reinterpret_cast<float (&)[16]>(acc[2][0]), "
                     "reinterpret_cast<float (&)[16]>(acc[3][0]), cake_wgmma_desc_add(cake_da1"),
            1u);
  EXPECT_EQ(occurrences(s, "cake_wgmma_m64n192k16_bf16(acc[0], acc[1], "), 1u);
  EXPECT_EQ(occurrences(s, "// acc[:, 0:64] (init ? 0 : acc) += smem_a . smem_b^T: wgmma m64n64k16"), 1u);
}

TEST(LoweringAccSlice, AColumnSliceFurtherInStartsAtItsRegisterPair) {
  // columns 128:192 of the fragment: column c's pair is element 2 (c / 8), so element 32 on
  std::string why;
  auto r = lowerTail64("lm.mma(acc[:, 0:64]", "lm.mma(acc[:, 128:192]", why);
  ASSERT_TRUE(r.ok) << why;
  EXPECT_EQ(occurrences(r.source, "reinterpret_cast<float (&)[16]>(acc[0][32]), reinterpret_cast<float (&)[16]>(acc[1][32])"),
            1u);
  EXPECT_EQ(occurrences(r.source, "reinterpret_cast<float (&)[16]>(acc[2][32]), reinterpret_cast<float (&)[16]>(acc[3][32])"),
            1u);
}

TEST(LoweringAccSlice, SlicesThatCannotBeLoweredAreRefused) {
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      // a start inside a column pair group of 8
      {"lm.mma(acc[:, 0:64], smem_a[it], smem_b[it][0:64, :]", "lm.mma(acc[:, 4:68], smem_a[it], smem_b[it][0:64, :]",
       "must start at a multiple of 8"},
      // rows of the accumulator (m64 blocks) are not sliced
      {"lm.mma(acc[:, 0:64], smem_a[it], smem_b[it][0:64, :]", "lm.mma(acc[0:64, 0:64], smem_a[it][0:64, :], smem_b[it][0:64, :]",
       "not a column range of a 2-D fragment"},
      // instances of two warps: mma.sync, which has no sliced accumulator
      {"group=4", "group=2", "is lowered for wgmma (not transposed) only"},
      // a symbolic start
      {"lm.mma(acc[:, 0:64], smem_a[it], smem_b[it][0:64, :]",
       "lm.mma(acc[:, 64 * (k % 2):64 * (k % 2) + 64], smem_a[it], smem_b[it][0:64, :]", "must start at a constant"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    std::string why;
    auto r = lowerTail64(c.from, c.to, why);
    EXPECT_FALSE(r.ok) << c.to;
    EXPECT_NE(why.find(c.message), std::string::npos) << c.to << ": " << why;
  }
}

TEST(LoweringAccSlice, ThreeTileWidthsFromOneFragment) {
  // bench/gpu/schedules/sm90_pingpong_128xvar.cake (bench/gpu/streamk/gen_var.py): 208-, 200- and
  // 192-column tiles, the narrower two as wgmmas into the first columns of the 208-column fragment
  std::string err;
  const char* rel = "bench/gpu/schedules/sm90_pingpong_128xvar.cake";
  auto f = ir::readSourceFile(test::sourceDir() + "/" + rel, err);
  ASSERT_TRUE(f) << err;
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(f, {}, sink);
  ASSERT_TRUE(m && !m->schedules.empty());
  auto r = lowering::lowerToCuda(m->schedules[0]);
  std::string why;
  for (const auto& x : r.findings) why += ir::renderText(x) + "\n";
  ASSERT_TRUE(r.ok) << why;
  for (int n : {208, 200, 192})
    EXPECT_EQ(occurrences(r.source, "void cake_wgmma_m64n" + std::to_string(n) + "k16_bf16("), 1u) << n;
  EXPECT_EQ(occurrences(r.source, "cake_wgmma_m64n208k16_bf16(acc[0], acc[1], "), 1u);
  for (int n : {200, 192})
    EXPECT_EQ(occurrences(r.source, "cake_wgmma_m64n" + std::to_string(n) + "k16_bf16(reinterpret_cast<float (&)[" +
                                  std::to_string(n / 4) + "]>(acc[0][0]), "),
              n == 200 ? 2u : 1u)
        << n;
}

TEST(LoweringAccSlice, VarWidthVariantsLowerAsGemms) {
  // bench/gpu/streamk/gen_var.py --group / --ywide / --coop (session 16): every variant lowers with
  // the GEMM ABI; a --ywide file's Y strips are 208/200 columns, so it has no 192-column wgmma
  for (const std::string v : {"pingpong_128xvar_g8", "pingpong_128xvar_g16", "pingpong_128xvar_yw",
                              "pingpong_128xvar_g8_yw", "coop_128xvar", "coop_128xvar_g8", "coop_128xvar_yw",
                              "coop_128xvar_g8_yw"}) {
    std::string err;
    auto f = ir::readSourceFile(test::sourceDir() + "/bench/gpu/schedules/sm90_" + v + ".cake", err);
    ASSERT_TRUE(f) << err;
    ir::DiagnosticSink sink;
    auto m = ir::compileModule(f, {}, sink);
    ASSERT_TRUE(m && !m->schedules.empty()) << v;
    auto r = lowering::lowerToCuda(m->schedules[0]);
    std::string why;
    for (const auto& x : r.findings) why += ir::renderText(x) + "\n";
    ASSERT_TRUE(r.ok) << v << "\n" << why;
    EXPECT_EQ(r.problem, lowering::Problem::Gemm) << v;
    const bool yw = v.size() > 3 && v.compare(v.size() - 3, 3, "_yw") == 0;
    EXPECT_EQ(occurrences(r.source, "void cake_wgmma_m64n208k16_bf16("), 1u) << v;
    EXPECT_EQ(occurrences(r.source, "void cake_wgmma_m64n200k16_bf16("), 1u) << v;
    EXPECT_EQ(occurrences(r.source, "void cake_wgmma_m64n192k16_bf16("), yw ? 0u : 1u) << v;
  }
}
