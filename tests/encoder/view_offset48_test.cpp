// Views placed at an offset that reads a parameter (helper hunt48a, session
// 48). sgl-project/DeepGEMM PR #82 / #85: the host sized each dispatch warp's
// pull slice at 3,584 bytes while the kernel TMA-loads a whole 7,168-byte
// token into it, so a warp's load writes the next warp's slice; written with
// the slice stride as a parameter, whether two warps' views share bytes
// depends on its value. The covering values did not read view offsets at
// all: the bounded check ran one value and, without a symbolic loop, main
// even *proved* the broken schedule ("the synchronization does not depend
// on the parameters"). Now each two slots of such views run meeting and
// apart (BindingSearch::viewOverlaps), and the offset's parameter counts as
// read wherever the bytes may meet.
#include <gtest/gtest.h>

#include <string>

#include "model_check_run.h"


namespace view_offset48_test {

// Warp b's slot at `off` bytes, warp a's at 102400: one pool, a 1 KiB box
// each, both refilled and stored every iteration. `off` is allowed from 0
// to `hi` in steps of 1 KiB (more values than the proof runs one by one);
// the trip count is `trips` (a constant, or `n` for a symbolic loop).
std::string slices(const std::string& hi, const std::string& trips) {
  return R"(@cake.schedule(target="sm_90a")
def slices(lm, Src: LM.tma2d, Dst: LM.tma2d, n: LM.i32, off: LM.i32):
    lm.assume(n > 0)
    lm.assume(off >= 0)
    lm.assume(off <= )" + hi + R"()
    lm.assume(off % 1024 == 0)
    pool = lm.smem(205824)
    mid  = pool.view(offset=102400, shape=(4, 128), dtype=lm.bf16)
    mine = pool.view(offset=off,    shape=(4, 128), dtype=lm.bf16)
    a = lm.role(warps=[0])
    b = lm.role(warps=[1])
    ba = lm.barrier(count=1, prod=[a], cons=[a], init_count=1)
    bb = lm.barrier(count=1, prod=[b], cons=[b], init_count=1)
    with a:
        for t in lm.range(0, )" + trips + R"():
            mid.tma_load(Src, coords=(t * 4, 0), stage=0, barrier=ba)
            lm.wait(ba, stage=0)
            mid.tma_store(Dst, coords=(t * 4, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
    with b:
        for t in lm.range(0, )" + trips + R"():
            mine.tma_load(Src, coords=(t * 4, 128), stage=0, barrier=bb)
            lm.wait(bb, stage=0)
            mine.tma_store(Dst, coords=(t * 4, 128), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
)";
}

using Result = cake::testing::CheckRun;
Result check(const std::string& text, unsigned proof_timeout_ms) { return cake::testing::runModelCheck(text, proof_timeout_ms); }
const cake::ir::Finding* race(const Result& r) { return r.finding("sync.race"); }

}  // namespace view_offset48_test

namespace vo48 = view_offset48_test;

// The two slices meet only at off = 102400, inside a domain of 201 values:
// the race is found there by the bounded check alone, with a constant trip
// count (main: *proved*) and with a symbolic one (main: exit 0 *checked*,
// "n in {1,2,3}", `off` never named), and the finding names the offset.
TEST(ViewOffset48, SlicesMeetingAtOneOffsetRaceThere) {
  for (const std::string trips : {"2", "n"}) {
    vo48::Result r = vo48::check(vo48::slices("204800", trips), 0);
    const cake::ir::Finding* f = vo48::race(r);
    ASSERT_NE(f, nullptr) << "trips " << trips;
    EXPECT_NE(f->message.find("off=102400"), std::string::npos) << f->message;
  }
}

// Kept apart by the facts (off <= 100352: its slice ends before 102400) the
// offset changes no conflict: proved as before, without running its values
// one by one (which the proof cannot past 32 of them).
TEST(ViewOffset48, SlicesTheFactsKeepApartAreProved) {
  vo48::Result r = vo48::check(vo48::slices("100352", "2"), 3000);
  EXPECT_TRUE(r.sink.findings().empty());
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, cake::checks::VerdictKind::Proved) << r.verdicts[0].detail;
}

// The same slice placed by the block index (`1024 * lm.block_idx(0)`): the
// race is found at the block whose slice meets the other (main: *proved*,
// the synchronization reading no parameter), and the finding names it.
TEST(ViewOffset48, SlicesPlacedByTheBlockIndexRaceWhereTheyMeet) {
  std::string text = vo48::slices("204800", "2");
  const std::string placed = "offset=off,";
  text.replace(text.find(placed), placed.size(), "offset=1024 * lm.block_idx(0),");
  vo48::Result r = vo48::check(text, 0);
  const cake::ir::Finding* f = vo48::race(r);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("block_idx(0)=100"), std::string::npos) << f->message;
}
