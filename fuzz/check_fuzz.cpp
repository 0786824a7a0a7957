// libFuzzer target for the whole `cake check` pipeline after the front end:
// structural checks, layout and hardware gates (Z3), the model checker and
// the proof for every trip count, then both renderings of every finding.
// None of it may crash, hang past its budget or throw, and every finding
// must name a rule of the catalog. Budgets per input are small (solver
// 300 ms, proof 200 ms, 256 MiB of Z3 memory); libFuzzer's -timeout and
// -rss_limit_mb cap the whole input (.ci/test).
#include <string>

#include "checks/check.h"
#include "fuzz/fuzz_util.h"

using namespace cake;
using fuzz::die;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text;
  auto m = fuzz::compileInput(data, size, text);
  if (!m) return 0;
  for (const ir::Schedule& s : m->schedules) {
    checks::CheckOptions o;
    o.target = s.target != ir::Target::Unspecified ? s.target : ir::Target::SM90a;
    o.timeout_ms = 300;
    o.memory_mb = 256;
    o.proof_timeout_ms = 200;
    checks::CheckResult r = checks::checkSchedule(s, o);
    for (const ir::Finding& f : r.findings) {
      if (!ir::findRule(checks::allRules(), f.rule)) die("a finding names no rule of the catalog", text, f.rule);
      std::string t = ir::renderText(f);
      std::string j = ir::dumpJson(ir::toJson(f));
      if (t.empty() || j.empty()) die("empty rendering", text, f.rule);
    }
    for (const checks::PropertyVerdict& v : r.verdicts)
      if (v.property.empty()) die("a verdict without a property", text, v.detail);
  }
  return 0;
}
