// Helpers shared by the layout-gate tests.
#pragma once

#include "tests/common/build_paths.h"
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "checks/layout.h"
#include "ir/frontend.h"

namespace cake::layout_test {

inline std::filesystem::path sourceDir() {
  return CAKE_SOURCE_DIR;
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct GateRun {
  ir::DiagnosticSink frontend;
  std::optional<ir::Module> module;
  ir::DiagnosticSink sink;
  nlohmann::json resources;
  std::vector<checks::PropertyVerdict> verdicts;

  const ir::Schedule& schedule() const { return module->schedules.front(); }
  std::vector<const ir::Finding*> rule(std::string_view id) const {
    std::vector<const ir::Finding*> out;
    for (const auto& f : sink.findings())
      if (f.rule == id) out.push_back(&f);
    return out;
  }
  bool has(std::string_view id) const { return !rule(id).empty(); }
  size_t errors() const { return sink.errorCount(); }
  const checks::PropertyVerdict* verdict(std::string_view id) const {
    for (const auto& v : verdicts)
      if (v.property == id) return &v;
    return nullptr;
  }
  std::string describe() const {
    std::string out;
    for (const auto& f : frontend.findings())
      out += "[frontend] " + f.rule + " @" + std::to_string(f.range.line) + ": " + f.message + "\n";
    for (const auto& f : sink.findings())
      out += std::string(ir::severityName(f.severity)) + " " + f.rule + " @" + std::to_string(f.range.line) + ": " +
             f.message + "\n";
    for (const auto& v : verdicts)
      out += "verdict " + v.property + " " + std::string(checks::verdictName(v.kind)) + ": " + v.detail + "\n";
    return out;
  }
};

// A small sm_90a ring: TMA warp -> warpgroup; `decls` replaces the view line.
inline std::string ring(const std::string& params, const std::string& assumes, const std::string& pool,
                 const std::string& view, const std::string& rows = "128", const std::string& target = "sm_90a") {
  return R"(@cake.schedule(target=")" + target + R"(")
def ring(lm, X: LM.tma2d, Y: LM.gmem, D: LM.i32)" + params + R"():
    lm.assume(D > 0)
)" + assumes + R"(    pool   = lm.smem()" + pool + R"()
    smem_x = )" + view + R"(
    x      = lm.regs(shape=()" + rows + R"(, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    red  = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[red], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[red], cons=[load], init_count=1, pipeline=pipe)
    with load:
        for j in lm.range(0, lm.cdiv(D, 64)):
            lm.wait(empty, iter=j - 2)
            smem_x.tma_load(X, coords=(0, j * 64), iter=j, barrier=full)
    with red:
        for j in lm.range(0, lm.cdiv(D, 64)):
            lm.wait(full, iter=j)
            lm.copy(x, smem_x[j])
            lm.arrive(empty, iter=j)
)";
}

// Compiles `text` and runs the gates on its first schedule.
inline std::unique_ptr<GateRun> runGates(const std::string& text, ir::Target target = ir::Target::Unspecified,
                                         const std::string& name = "test.cake", bool cross_cta_stores = false,
                                         bool resource_report = true) {
  auto run = std::make_unique<GateRun>();
  ir::SourceFilePtr file = ir::makeSourceFile(name, text);
  ir::FrontendOptions fo;
  fo.target_override = target;
  run->module = ir::compileModule(file, fo, run->frontend);
  if (!run->module || run->module->schedules.empty()) {
    ADD_FAILURE() << "front end rejected the schedule:\n" << run->describe();
    return run;
  }
  checks::CheckOptions opts;
  opts.target = target;
  opts.cross_cta_stores = cross_cta_stores;
  opts.resource_report = resource_report;
  checks::runLayoutGates(run->schedule(), opts, run->sink, run->resources, run->verdicts);
  return run;
}

// The line of `text` (1-based) holding `needle`.
inline int lineOf(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  return 0;
}

}  // namespace cake::layout_test
