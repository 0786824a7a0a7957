// Prints, for every corpus schedule, the CPU time of building its system
// (encoder::buildSystem, the read caps on) at one binding and a digest of
// the system built, then the total. Two builds of the tree compare: equal
// digests, line by line, say the builder gave the same systems (every field
// of every process, instruction and access, the messages' texts included);
// the times say what building costs (docs/ci.md).
//
//   cake_bench_build_times [CORPUS_DIR=corpus] [--value=V] [--repeat=N] [--top=K]
//
// The binding: every i32 parameter at the first of V (default: 256, 512,
// 1024, 4096, 8192, 192, 128, 64, as tests/semantics/expect_tx_test.cpp
// picks) that the lm.assume facts allow. Each build runs N times (default
// 1), its least CPU time kept. --top=K prints the K slowest builds last.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_util.h"
#include "encoder/system.h"
#include "ir/frontend.h"

using namespace cake;
using cake::bench::threadCpu;

namespace {

struct Digest {
  uint64_t h = 1469598103934665603ull;
  void mix(int64_t x) {
    h ^= static_cast<uint64_t>(x);
    h *= 1099511628211ull;
  }
  void mix(const std::string& s) {
    for (char c : s) mix(static_cast<int64_t>(c));
    mix(-1);
  }
};

uint64_t digest(const encoder::System& sys) {
  Digest d;
  for (const encoder::Process& p : sys.procs) {
    d.mix(-7);
    for (int64_t x : {int64_t{p.role}, int64_t{p.instance}, int64_t{p.cta}, int64_t{p.warps}, int64_t{p.grid_dep_wait_at}})
      d.mix(x);
    d.mix(p.name);
    for (const encoder::Instr& in : p.program) {
      for (int64_t x : {static_cast<int64_t>(in.kind), static_cast<int64_t>(in.slot), in.phase, in.count, in.bytes,
                        in.pending, static_cast<int64_t>(in.named), static_cast<int64_t>(in.derived),
                        static_cast<int64_t>(in.grid_dep_early), in.iteration.value_or(-99)})
        d.mix(x);
      for (const auto& [var, v] : in.loops) {
        d.mix(var);
        d.mix(v);
      }
      const encoder::Instr::RegsHazard& r = in.regs_hazard;
      for (int64_t x : {int64_t{r.regs_space}, r.element, static_cast<int64_t>(r.accumulates),
                        static_cast<int64_t>(r.stored), static_cast<int64_t>(r.discarded), int64_t{r.stored_at}})
        d.mix(x);
      d.mix(r.what);
      for (const encoder::Access& a : in.accesses) {
        for (int64_t x : {static_cast<int64_t>(a.space), a.lo, a.hi, a.runs, a.stride, static_cast<int64_t>(a.write),
                          static_cast<int64_t>(a.proxy), static_cast<int64_t>(a.async), int64_t{a.view}, a.index,
                          a.gen, static_cast<int64_t>(a.stage_like), static_cast<int64_t>(a.view_written),
                          a.gen_returns, static_cast<int64_t>(a.own_since.size()),
                          static_cast<int64_t>(a.own_writes.size())})
          d.mix(x);
        d.mix(a.what);
      }
    }
  }
  for (const encoder::BarrierSlot& b : sys.slots) {
    for (int64_t x : {int64_t{b.barrier}, int64_t{b.slot}, int64_t{b.cta}, int64_t{b.init_count}}) d.mix(x);
    d.mix(b.name);
  }
  for (const encoder::NamedBarrier& n : sys.named) {
    for (int64_t x : {int64_t{n.index}, int64_t{n.expected_warps}}) d.mix(x);
    d.mix(n.name);
  }
  for (const encoder::MemSpace& m : sys.spaces) {
    for (int64_t x : {static_cast<int64_t>(m.kind), int64_t{m.index}, int64_t{m.process}, int64_t{m.cta}}) d.mix(x);
    for (int64_t x : m.extents) d.mix(x);
  }
  for (int64_t x : {int64_t{sys.ctas}, int64_t{sys.slots_per_cta}, int64_t{sys.named_per_cta}, int64_t{sys.cluster_named}})
    d.mix(x);
  return d.h;
}

}  // namespace

static int run(int argc, char** argv) {
  cake::bench::keepFreedMemoryAsTheCliDoes();
  std::string dir = "corpus";
  std::vector<int64_t> values = {256, 512, 1024, 4096, 8192, 192, 128, 64};
  int repeat = 1;
  size_t top = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--value=", 0) == 0)
      values = {cake::bench::parseNumber<int64_t>(a.substr(8), "--value")};
    else if (a.rfind("--repeat=", 0) == 0)
      repeat = std::max(1, cake::bench::parseNumber<int>(a.substr(9), "--repeat"));
    else if (a.rfind("--top=", 0) == 0)
      top = cake::bench::parseNumber<size_t>(a.substr(6), "--top");
    else {
      cake::bench::rejectUnknownOption(a);
      dir = a;
    }
  }
  struct Row {
    double cpu;
    std::string name;
    size_t instrs;
  };
  std::vector<Row> rows;
  double total = 0;
  for (const std::string& file : cake::bench::cakeFilesUnder({dir})) {
    ir::DiagnosticSink sink;
    std::string err;
    auto src = ir::readSourceFile(file, err);
    if (!src) continue;
    auto mod = ir::compileModule(src, {}, sink);
    if (!mod) continue;
    for (const ir::Schedule& s : mod->schedules) {
      const std::optional<encoder::Binding> b = encoder::uniformBinding(s, values);
      if (!b) continue;
      double best = 1e30;
      std::string out;
      size_t instrs = 0;
      for (int k = 0; k < repeat; ++k) {
        std::string why;
        const double t0 = threadCpu();
        std::optional<encoder::System> sys = encoder::buildSystem(s, *b, s.target, &why);
        best = std::min(best, threadCpu() - t0);
        out = sys ? fmt::format("{:016x}", digest(*sys)) : "error: " + why;
        instrs = sys ? sys->instrCount() : 0;
      }
      total += best;
      const std::string name = file + ":" + s.name;
      std::printf("%s %s %zu %.4f\n", name.c_str(), out.c_str(), instrs, best);
      rows.push_back({best, name, instrs});
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.cpu > y.cpu; });
  for (size_t i = 0; i < std::min(top, rows.size()); ++i)
    std::printf("slow: %.3f s %zu instrs %s\n", rows[i].cpu, rows[i].instrs, rows[i].name.c_str());
  std::printf("total: %.3f CPU s over %zu schedules\n", total, rows.size());
  return 0;
}

int main(int argc, char** argv) {
  return cake::bench::guardedMain(argv[0], [&] { return run(argc, argv); });
}
