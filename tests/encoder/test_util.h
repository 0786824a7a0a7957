// Helpers for the encoder tests: compile .cake text, build a system, explore.
#pragma once

#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/system.h"
#include "ir/frontend.h"

namespace cake::testing {

// Budgets for the tests whose answer must not depend on the machine's load.
// Wall-clock budgets made them flaky on a loaded CI machine (a proof or a
// query that takes 2 s alone came back "timeout" with five builds sharing
// two cores). Here every Z3 query gets a resource limit instead (Z3's
// rlimit counts solver work, not time: a query spends the same on any
// machine). The queries of the TripProof, Z3Bmc and StaleRead tests
// consumed at most 29.7 million units (Z3's "rlimit count" after each
// query, a count that only grows per context: an upper bound on any one
// query; docs/ci.md); kQueryRlimit is ten times that. The explicit-state
// searches keep their state caps, and the wall clock is set past ctest's
// own per-test timeout (900 s in .ci/test), so it never decides. A query
// that needs more than the limit is unknown: the test fails, it never
// passes on it.
inline constexpr unsigned kNoWallClockMs = 3'600'000;
inline constexpr uint64_t kQueryRlimit = 300'000'000;

// The text of a file of the source tree (a corpus file: path relative to
// the source tree), read as the front end reads it; fails the test when it
// cannot be read.
inline std::string corpusText(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile(std::string(CAKE_SOURCE_DIR) + "/" + rel, err);
  EXPECT_TRUE(file) << rel << ": " << err;
  return file ? file->text : std::string();
}

// `text` with the first `from` replaced by `to`; fails the test when there is none.
inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// `text` with `lm.assume(fact)` added after its `lm.assume(K > 0)` (a
// schedule of the K loop under a further fact on K).
inline std::string withFactOnK(const std::string& text, const std::string& fact) {
  return replace(text, "    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(" + fact + ")\n");
}

// Compiles one schedule; fails the test on front-end errors.
inline ir::Module compile(const std::string& text) {
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(ir::makeSourceFile("test.cake", text), {}, sink);
  std::string errs;
  for (const auto& f : sink.findings()) errs += f.rule + ": " + f.message + "\n";
  EXPECT_TRUE(mod.has_value()) << errs << text;
  if (!mod) return ir::Module{};
  return std::move(*mod);
}

// Sets parameter `name` of s to v in b (nothing when s has no such parameter).
inline void setParam(const ir::Schedule& s, encoder::Binding& b, const std::string& name, int64_t v) {
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == name) b.params[p] = v;
}

// Parameter values by name.
inline encoder::Binding bind(const ir::Schedule& s, std::initializer_list<std::pair<std::string, int64_t>> vals) {
  encoder::Binding b;
  for (const auto& [name, v] : vals) setParam(s, b, name, v);
  return b;
}

inline encoder::System build(const ir::Schedule& s, const encoder::Binding& b) {
  std::string err;
  auto sys = encoder::buildSystem(s, b, ir::Target::Unspecified, &err);
  EXPECT_TRUE(sys.has_value()) << err;
  return sys ? std::move(*sys) : encoder::System{};
}

// The bounded check (explicit-state, stopping at the first violation, no
// wall clock) at these parameter values.
inline encoder::ModelCheckResult exploreToFirst(const ir::Schedule& s, const encoder::Binding& b) {
  encoder::ExploreOptions eo;
  eo.timeout_ms = kNoWallClockMs;
  eo.stop_at_first = true;
  return encoder::explore(build(s, b), eo);
}
// Does it meet a violation there?
inline bool violatedAt(const ir::Schedule& s, const encoder::Binding& b) {
  return exploreToFirst(s, b).outcome == encoder::Outcome::Violation;
}
inline bool violatedAt(const ir::Schedule& s, std::initializer_list<std::pair<std::string, int64_t>> values) {
  return violatedAt(s, bind(s, values));
}

// One axis of a grid of parameter values: a parameter and the values it takes.
struct GridAxis {
  std::string param;
  std::vector<int64_t> values;
};

// Does the bounded check meet a violation at some point of the grid (every
// combination of the axes' values; the last axis varies fastest)? The
// broken variants of a proof test are "broken somewhere" on such a grid.
inline bool brokenOnGrid(const ir::Schedule& s, const std::vector<GridAxis>& axes) {
  if (std::any_of(axes.begin(), axes.end(), [](const GridAxis& a) { return a.values.empty(); })) return false;
  std::vector<size_t> at(axes.size(), 0);
  for (;;) {
    encoder::Binding b;
    for (size_t i = 0; i < axes.size(); ++i) setParam(s, b, axes[i].param, axes[i].values[at[i]]);
    if (violatedAt(s, b)) return true;
    size_t i = axes.size();  // the next combination, like an odometer
    while (i > 0 && ++at[i - 1] == axes[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return false;
  }
}

inline bool hasRule(const encoder::ModelCheckResult& r, const std::string& rule) {
  return std::any_of(r.violations.begin(), r.violations.end(),
                     [&](const encoder::Violation& v) { return v.rule == rule; });
}

inline const encoder::Violation* find(const encoder::ModelCheckResult& r, const std::string& rule) {
  for (const auto& v : r.violations)
    if (v.rule == rule) return &v;
  return nullptr;
}

inline std::string rules(const encoder::ModelCheckResult& r) {
  std::string out;
  for (const auto& v : r.violations) out += v.rule + " (" + v.message + ")\n";
  return out;
}

// The rules of the violations found.
inline std::set<std::string> ruleSet(const encoder::ModelCheckResult& r) {
  std::set<std::string> s;
  for (const auto& v : r.violations) s.insert(v.rule);
  return s;
}

// Source line of a violation's primary op.
inline int primaryLine(const encoder::System& sys, const encoder::Violation& v) {
  if (v.primary.proc < 0) return -1;
  return sys.procs[v.primary.proc].program[v.primary.pc].stmt->op.range.line;
}

// The 1-based line of the first line of `text` containing `needle`.
inline int lineOf(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

// Mutants of a schedule's text, one line changed each ({what, text}, the
// base first): each line holding one of `ops` dropped, each two
// neighbouring statements of a loop body (12 spaces in) swapped, and each
// line holding an edit's `from` with its `to` there.
inline std::vector<std::pair<std::string, std::string>> lineMutants(
    const std::string& base, const std::vector<std::pair<std::string, std::string>>& edits,
    const std::vector<std::string>& ops) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < base.size();) {
    size_t nl = base.find('\n', at);
    if (nl == std::string::npos) nl = base.size();
    lines.push_back(base.substr(at, nl - at));
    at = nl + 1;
  }
  auto join = [&](size_t i, const std::string* with) {
    std::string t;
    for (size_t j = 0; j < lines.size(); ++j) {
      if (j == i && !with) continue;
      t += (j == i ? *with : lines[j]) + "\n";
    }
    return t;
  };
  std::vector<std::pair<std::string, std::string>> mutants = {{"base", base}};
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    for (const std::string& op : ops)
      if (l.find(op) != std::string::npos) mutants.push_back({"drop line " + std::to_string(i + 1), join(i, nullptr)});
    // two neighbouring statements swapped (a release before the MMA retired,
    // a wait after the use: hazards of some interleavings only)
    if (i + 1 < lines.size() && l.rfind("            ", 0) == 0 && lines[i + 1].rfind("            ", 0) == 0) {
      std::string t;
      for (size_t j = 0; j < lines.size(); ++j) t += (j == i ? lines[i + 1] : j == i + 1 ? lines[i] : lines[j]) + "\n";
      mutants.push_back({"swap lines " + std::to_string(i + 1) + ", " + std::to_string(i + 2), t});
    }
    for (const auto& [from, to] : edits)
      if (size_t at = l.find(from); at != std::string::npos) {
        std::string changed = l;
        changed.replace(at, from.size(), to);
        mutants.push_back({"line " + std::to_string(i + 1) + ": " + to, join(i, &changed)});
      }
  }
  return mutants;
}

// The warp-specialized ring of the standard mainloop, small: a producer
// warp loads a 128 x 64 tile of A and a 64 x 64 tile of B per iteration k
// of K into a ring of `stages` slots (barriers full and empty, one slot per
// stage), and two consumer warpgroups each multiply their 64 rows of A's
// tile and release the slot. Tests edit exact substrings of this text
// (tests/encoder/attack_util.h kProdWait, ...): keep it stable.
struct WsRingOptions {
  std::string name = "ring";       // the schedule's name
  bool assume_k_positive = false;  // lm.assume(K > 0) first
  bool epilogue = false;           // each consumer then stores its accumulator to C through smem_c (TMA)
};
inline std::string wsRingSchedule(int stages, const WsRingOptions& o = {}) {
  const std::string n = std::to_string(stages);
  const int64_t a_bytes = 128 * 64 * 2, b_bytes = 64 * 64 * 2, b_at = stages * a_bytes,
                c_at = stages * (a_bytes + b_bytes), pool = c_at + (o.epilogue ? 2 * b_bytes : 0);
  auto offset = [](int64_t at) {  // "offset=0,     " as wide as "offset=65536, "
    std::string f = "offset=" + std::to_string(at) + ",";
    return f + std::string(f.size() < 14 ? 14 - f.size() : 1, ' ');
  };
  std::string t = "@cake.schedule(target=\"sm_90a\")\n";
  t += "def " + o.name + "(lm, A: LM.tma2d, B: LM.tma2d, " + (o.epilogue ? "C: LM.tma2d, " : "") + "K: LM.i32):\n";
  if (o.assume_k_positive) t += "    lm.assume(K > 0)\n";
  t += "    pool   = lm.smem(" + std::to_string(pool) + ")\n";
  t += "    smem_a = pool.view(" + offset(0) + "shape=(128, 64), dtype=lm.bf16, stages=" + n + ")\n";
  t += "    smem_b = pool.view(" + offset(b_at) + "shape=(64, 64),  dtype=lm.bf16, stages=" + n + ")\n";
  if (o.epilogue) t += "    smem_c = pool.view(" + offset(c_at) + "shape=(64, 64),  dtype=lm.bf16, stages=2)\n";
  t += "    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
       "    producer  = lm.role(warps=[0])\n"
       "    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)\n";
  t += "    full  = lm.barrier(count=" + n + ", prod=[producer], cons=[consumers], init_count=1)\n";
  t += "    empty = lm.barrier(count=" + n + ", prod=[consumers], cons=[producer], init_count=2)\n";
  t += "    with producer:\n"
       "        for k in lm.range(0, K):\n"
       "            lm.wait(empty, iter=k - " + n + ")\n"
       "            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)\n"
       "            smem_b.tma_load(B, coords=(0, k), iter=k, barrier=full)\n"
       "    with consumers:\n"
       "        m0 = 64 * lm.instance()\n"
       "        for k in lm.range(0, K):\n"
       "            lm.wait(full, iter=k)\n"
       "            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))\n"
       "            lm.mma_commit()\n"
       "            lm.mma_wait(pending=0)\n"
       "            lm.arrive(empty, iter=k)\n";
  if (o.epilogue)
    t += "        lm.copy(smem_c[lm.instance()], acc)\n"
         "        lm.fence_proxy()\n"
         "        smem_c.tma_store(C, coords=(0, 0), stage=lm.instance())\n"
         "        lm.tma_store_commit()\n"
         "        lm.tma_store_wait(pending=0)\n";
  return t;
}

// The standard warp-specialized mainloop, small: 2 stages, 2 consumers, and
// the epilogue.
inline const std::string kMainloop = wsRingSchedule(2, {.name = "mainloop", .epilogue = true});

// Two tiles per instance; the K loop reduces into acc, which reaches C
// through a converted copy `out` (data.stale-accumulator, data.discarded-product).
inline const std::string kTwoTilesKLoop = R"(@cake.schedule(target="sm_80")
def tiles(lm, C: LM.gmem, K: LM.i32):
    acc = lm.regs(shape=(128, 128), dtype=lm.f32)
    fa  = lm.regs(shape=(128, 16), dtype=lm.bf16)
    fb  = lm.regs(shape=(128, 16), dtype=lm.bf16)
    out = lm.regs(shape=(128, 128), dtype=lm.bf16)
    w = lm.role(warps=[0, 1, 2, 3])
    with w:
        lm.fill(fa, 1.0)
        lm.fill(fb, 1.0)
        for t in lm.range(0, 2):
            for k in lm.range(0, K):
                lm.mma(acc, fa, fb, init=(k == 0))
            lm.copy(out, acc)
            lm.copy(C, out, coords=(128 * t, 0))
)";

// One instance writes a table once, then both read it every iteration of a
// loop paced by a named barrier (docs/z3.md "Private generations").
inline const std::string kTableReadEveryIteration = R"(
@cake.schedule(target="sm_80")
def table_read_every_iteration(lm, Out: LM.gmem, K: LM.i32):
    lm.assume(K >= 1)
    pool  = lm.smem(1024)
    tab   = pool.view(offset=0, shape=(1, 64), dtype=lm.i32, stages=1)
    v     = lm.regs(shape=(1, 64), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(v, 1)
            lm.copy(tab[0], v)
        lm.sync(cta)
        for k in lm.range(0, K):
            lm.copy(v, tab[0])
            lm.copy(Out, v, coords=(k, 64 * w))
            lm.sync(cta)
)";

// A one-slot hand-off: arrivals land in the slot's current phase whatever
// iter= says (lowering names only the slot), so annotations that disagree
// with where they land are a warning when every run is fine.
inline const std::string kOneSlotHandoff = R"(@cake.schedule(target="sm_90a")
def handoff(lm, X: LM.tma2d, Y: LM.gmem, K: LM.i32):
    pool   = lm.smem(16384)
    smem_x = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=1)
    x      = lm.regs(shape=(64, 128), dtype=lm.f32)
    load     = lm.role(warps=[0])
    wg       = lm.role(warps=[4, 5, 6, 7])
    ready    = lm.barrier(count=1, prod=[load], cons=[wg], init_count=1)
    consumed = lm.barrier(count=1, prod=[wg], cons=[load], init_count=1)
    with load:
        for t in lm.range(0, K):
            lm.wait(consumed, iter=t - 1)
            smem_x.tma_load(X, coords=(t * 64, 0), stage=0, barrier=ready)
    with wg:
        for t in lm.range(0, K):
            lm.wait(ready, stage=0)
            lm.copy(x, smem_x[0])
            lm.fence_proxy()
            lm.arrive(consumed, iter=t)
            lm.copy(Y, x, coords=(t * 64, 0))
)";

// Two CTAs share B: each loads half of it, multicast to both, and releases
// every slot in both CTAs (corpus/cluster/sm90_multicast_b.cake, small;
// tests/encoder/cluster_test.cpp, trip_gaps_test.cpp).
inline const std::string kClusterMulticast = R"(@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def mc(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool    = lm.smem(49152)
    smem_a  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2)
    smem_b  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2)
    smem_bh = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)
    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[load], cons=[math], init_count=1)
    empty = lm.barrier(count=2, prod=[math], cons=[load], init_count=2)
    rank = lm.cluster_rank()
    with load:
        lm.cluster_sync()
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)
            smem_bh[2 * (k % 2) + rank].tma_load(B, coords=(64 * rank, k), iter=k, barrier=full, multicast=3)
        lm.cluster_sync()
    with math:
        lm.cluster_sync()
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k, cta=0)
            lm.arrive(empty, iter=k, cta=1)
        lm.cluster_sync()
)";

// A persistent kernel over M (64-row tiles) and K (64-wide iterations) that
// keeps one wgmma group in flight and releases the tile's last slot after
// the K loop (trip_proof_test.cpp, trip_attacks_test.cpp).
inline constexpr const char* kRingEnd = R"(@cake.schedule(target="sm_90a")
def ring_end(lm, A: LM.tma2d, B: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    out    = lm.regs(shape=(64, 128), dtype=lm.f32)
    producer = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumer = lm.role(warps=[4, 5, 6, 7], regs=232)
    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(t * 64, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=1)
                if k > 0:
                    lm.arrive(empty, iter=it - 1)
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)
            lm.copy(out, acc)
)";


}  // namespace cake::testing
