// Kernels of the covering-value tests (cover40_test.cpp, cover41_test.cpp):
// the ring with knobs, a 64-column table read one column per K step behind
// guards on parameters, and two warps' global boxes that move with a
// parameter; and the bounded check alone.
#pragma once

#include <set>
#include <string>

#include "attack_pair.h"
#include "checks/check.h"
#include "test_util.h"

namespace cake::testing::cover {

// The 2-slot ring of the standard mainloop with more i32 parameters
// (`knobs`: ", T: LM.i32, ...") and their lm.assume facts (`facts`, one a
// line) that change nothing else.
inline std::string ringWithKnobs(const std::string& knobs, const std::string& facts) {
  return pairs::edited(wsRingSchedule(2, {.name = "mainloop", .assume_k_positive = true, .epilogue = true}),
                       {{"K: LM.i32):\n", "K: LM.i32" + knobs + "):\n" + facts}});
}

// The bounded check alone (the proof off).
inline checks::CheckResult bounded(const std::string& text) {
  auto mod = compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {};
  checks::CheckOptions opts;
  opts.target = mod.schedules.at(0).target;
  opts.timeout_ms = kNoWallClockMs;
  opts.proof_timeout_ms = 0;
  return checks::checkSchedule(mod.schedules.at(0), opts);
}

// The rules a check reports with an error.
inline std::set<std::string> errorRules(const checks::CheckResult& r) {
  std::set<std::string> rules;
  for (const ir::Finding& f : r.findings)
    if (f.severity == ir::Severity::Error) rules.insert(f.rule);
  return rules;
}

// Whether the check's synchronization verdict is unknown.
inline bool syncUnknown(const checks::CheckResult& r) {
  for (const checks::PropertyVerdict& v : r.verdicts)
    if (v.property == "sync" && v.kind == checks::VerdictKind::Unknown) return true;
  return false;
}

// The bounded check's error rules and whether its synchronization verdict
// is unknown, together (the form the guard-placement tests assert on).
struct BoundedVerdict {
  std::set<std::string> rules;
  bool unknown = false;
};
inline BoundedVerdict boundedVerdict(const std::string& text) {
  const checks::CheckResult r = bounded(text);
  return {errorRules(r), syncUnknown(r)};
}

// A 64-column table in shared memory, two warps, a barrier (DECLS), and
// the write of the table (SHORT_WRITE): its first 63 columns only in the
// broken form.
inline std::string withTable(const std::string& text, bool broken) {
  const std::string decls = R"(    pool  = lm.smem(1024)
    tab   = pool.view(offset=0, shape=(1, 64), dtype=lm.i32, stages=1)
    v     = lm.regs(shape=(1, 64), dtype=lm.i32)
    x     = lm.regs(shape=(1, 1), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps]))";
  return cake::testing::replace(cake::testing::replace(text, "DECLS", decls), "SHORT_WRITE",
                                broken ? "lm.copy(tab[0][:, 0:63], v[:, 0:63])" : "lm.copy(tab[0], v)");
}

// The same table on one tile, written short on block 3 only, behind three
// guards on parameters that change nothing the table needs.
// `else_block3`: the else branch of the block-3 guard (16 spaces deep),
// SHORT_WRITE where the table is written short.
inline std::string bandVectors(bool broken, const std::string& else_block3 = "                SHORT_WRITE\n") {
  std::string text = R"(@cake.schedule(target="sm_80")
def band_vectors(lm, Out: LM.gmem, K: LM.i32, P: LM.i32, Q: LM.i32):
    lm.assume(K >= 1)
    lm.assume(K <= 64)
    lm.assume(P >= 0)
    lm.assume(Q >= 0)
DECLS
    with warps:
        w = lm.instance()
        if P > 1:
            lm.sync(cta)
        if Q > 1:
            lm.sync(cta)
        if P > Q:
            lm.sync(cta)
        if w == 0:
            lm.fill(v, 1)
            if lm.block_idx(0) != 3:
                lm.copy(tab[0], v)
            else:
ELSE_BLOCK3        lm.sync(cta)
        for k in lm.range(0, K):
            lm.copy(x, tab[0][:, k:k + 1])
            lm.copy(Out, x, coords=(k, w))
)";
  return withTable(cake::testing::replace(text, "ELSE_BLOCK3", else_block3), broken);
}

// A writer zeroes one element of T at column `col` (row `row`: 0 in the
// broken form, 1 in the fixed one) while a reader loads a 32-column box of
// row 0 at `read`, with no barrier between them.
// `least_d`: the least column d the facts allow.
inline std::string movingBoxes(const std::string& params, const std::string& col, const std::string& read, int row,
                               bool loop, const std::string& least_d = "0") {
  return R"(@cake.schedule(target="sm_90a")
def moving_boxes(lm, T: LM.gmem, d: LM.i32)" +
         params + R"():
    lm.assume(d >= )" +
         least_d + R"()
    lm.assume(d < 256)
    zero = lm.regs(shape=(1, 1), dtype=lm.f32)
    prob = lm.regs(shape=(1, 32), dtype=lm.f32)
    writer = lm.role(warps=[0])
    reader = lm.role(warps=[1])
    with writer:
        lm.fill(zero, 0.0)
        lm.copy(T, zero, coords=()" +
         std::to_string(row) + ", " + col + R"())
    with reader:
)" + (loop ? "        for k in lm.range(0, K):\n    " : "") +
         "        lm.copy(prob, T, coords=(0, " + read + "))\n";
}

// cover47's row: two warps store 32 floats each at `32 * w`, every warp
// reads `0:READ` after the barrier, 1 <= P <= 1000; GUARD: statements (8
// spaces deep) before the stores. bench/attacks/sound49_mutants.py reads
// this text too (its ROW), so the tests and the attack share one form.
inline const std::string kGuardedRowRead = R"(@cake.schedule(target="sm_80")
def slices(lm, Src: LM.gmem, Dst: LM.gmem, P: LM.i32):
    lm.assume(P >= 1)
    lm.assume(P <= 1000)
    pool = lm.smem(1024)
    buf = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)
    part = lm.regs(shape=(1, 128), dtype=lm.f32)
    got = lm.regs(shape=(1, 128), dtype=lm.f32)
    red = lm.regs(shape=(1, 1), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
GUARD        lm.copy(part[0:1, 0:32], Src, coords=(lm.block_idx(0), 0))
        lm.copy(buf[0][0:1, 32 * w:32 * w + 32], part[0:1, 0:32])
        lm.sync(block)
        lm.copy(got[0:1, 0:READ], buf[0][0:1, 0:READ])
        lm.reduce(red, got[0:1, 0:READ], op="max", axis=1)
        lm.copy(Dst, red, coords=(lm.block_idx(0), w))
)";

// kGuardedRowRead with its GUARD and READ filled in.
inline std::string guardedRowRead(const std::string& guard, const std::string& read) {
  std::string text = replace(kGuardedRowRead, "GUARD", guard);
  for (int i = 0; i < 3; ++i) text = replace(text, "READ", read);  // (the copy's two, the reduce's)
  return text;
}

}  // namespace cake::testing::cover
