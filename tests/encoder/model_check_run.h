// `cake check`'s model checker on one schedule's text, for the tests of the
// bounded check's covering values (review48, view_offset48, views49): the
// findings and the verdicts, with the proof's work budget `proof_ms` (0:
// the bounded check alone) and no wall-clock limit that decides.
#pragma once

#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/model_check.h"
#include "test_util.h"

namespace cake::testing {

struct CheckRun {
  ir::DiagnosticSink sink;
  std::vector<checks::PropertyVerdict> verdicts;
  // The first finding of `rule`, or null.
  const ir::Finding* finding(const std::string& rule) const {
    for (const auto& f : sink.findings())
      if (f.rule == rule) return &f;
    return nullptr;
  }
  bool found(const std::string& rule) const { return finding(rule) != nullptr; }
  // Exits 0: no finding and a verdict of proved or checked.
  bool passes() const {
    if (!sink.findings().empty()) return false;
    for (const auto& v : verdicts)
      if (v.kind != checks::VerdictKind::Proved && v.kind != checks::VerdictKind::Checked) return false;
    return true;
  }
  // The synchronization's verdict (the first; unknown where none).
  checks::VerdictKind kind() const { return verdicts.empty() ? checks::VerdictKind::Unknown : verdicts[0].kind; }
  std::string detail() const { return verdicts.empty() ? "(no verdict)" : verdicts[0].detail; }
};

inline CheckRun runModelCheck(const std::string& text, unsigned proof_ms) {
  auto mod = compile(text);
  CheckRun r;
  checks::CheckOptions o;
  o.proof_timeout_ms = proof_ms;
  o.timeout_ms = 600000;  // the work budget decides, not the wall clock
  checks::runModelChecker(mod.schedules.at(0), o, r.sink, r.verdicts);
  return r;
}

// Warp 1 of a 4-warp group writes a flag the group reads after a named
// barrier that every warp skips where GUARD fails, 4 rounds: a race at the
// values of `k` (0 <= k <= K_MAX) where it fails only.
inline std::string flagGuardForm(const std::string& guard, const std::string& k_max) {
  return R"(@cake.schedule(target="sm_80")
def gm(lm, Data: LM.gmem, Out: LM.gmem, k: LM.i32):
    lm.assume(k >= 0)
    lm.assume(k <= )" + k_max + R"()
    pool   = lm.smem(256)
    flag   = pool.view(offset=0, shape=(1, 2), dtype=lm.f32)
    fv     = lm.regs(shape=(1, 2), dtype=lm.f32)
    sgs    = lm.role(warps=[0, 1, 2, 3], group=1)
    wgroup = lm.named_barrier(roles=[sgs])
    with sgs:
        w = lm.instance()
        for t in lm.range(0, 4):
            if w == 1:
                lm.copy(fv, Data, coords=(t, 0))
                lm.copy(flag[0], fv)
            if )" + guard + R"(:
                lm.sync(wgroup)
            lm.copy(fv, flag[0])
            lm.sync(wgroup)
        lm.copy(Out, fv, coords=(0, 2 * w))
)";
}

}  // namespace cake::testing
