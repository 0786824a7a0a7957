#include <gtest/gtest.h>
#include <fstream>
#include <iostream>
#include "encoder/simulator.h"
#include "ir/frontend.h"

using namespace cake;

TEST(SimSmoke, Corpus) {
  const char* f = getenv("CAKE_FILE");
  if (!f) GTEST_SKIP();
  std::string err;
  auto file = ir::readSourceFile(f, err);
  ASSERT_TRUE(file) << err;
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(file, {}, sink);
  ASSERT_TRUE(mod);
  for (auto& s : mod->schedules) {
    encoder::Binding b;
    for (int p = 0; p < (int)s.params.size(); ++p) b.params[p] = atoi(getenv("CAKE_VAL") ? getenv("CAKE_VAL") : "128");
    auto sys = encoder::buildSystem(s, b, ir::Target::Unspecified, &err);
    ASSERT_TRUE(sys) << err;
    if (getenv("CAKE_DUMP")) std::cout << encoder::systemToString(*sys);
    encoder::ExploreOptions o;
    o.reduce = getenv("CAKE_NOPOR") == nullptr;
    auto r = encoder::explore(*sys, o);
    std::cout << s.name << ": " << encoder::outcomeName(r.outcome) << " states=" << r.states << " trans=" << r.transitions << " " << r.seconds << "s " << r.detail << "\n";
    for (auto& v : r.violations) {
      std::cout << "  " << v.rule << ": " << v.message << " @ " << (v.primary.proc >= 0 ? encoder::instrToString(*sys, v.primary.proc, v.primary.pc) : "") << " trace " << v.trace.size() << "\n";
      for (auto& o2 : v.others) if (o2.proc >= 0) std::cout << "     note: " << o2.message << " @ " << encoder::instrToString(*sys, o2.proc, o2.pc) << "\n";
    }
  }
}

#include "encoder/sim_model.h"
#include "encoder/sim_por.h"
TEST(SimSmoke, PorDebug) {
  const char* f = getenv("CAKE_FILE");
  if (!f || !getenv("CAKE_PORDBG")) GTEST_SKIP();
  std::string err;
  auto file = ir::readSourceFile(f, err);
  ir::DiagnosticSink sink;
  auto mod = ir::compileModule(file, {}, sink);
  auto& s = mod->schedules[0];
  encoder::Binding b;
  for (int p = 0; p < (int)s.params.size(); ++p) b.params[p] = atoi(getenv("CAKE_VAL") ? getenv("CAKE_VAL") : "128");
  auto sys = encoder::buildSystem(s, b, ir::Target::Unspecified, &err);
  encoder::sim::Model m(*sys);
  encoder::sim::Reducer red(m);
  auto st = encoder::sim::initialState(m);
  std::map<size_t,int> hist;
  int shown = 0;
  // random walk following reduced sets
  srand(1);
  for (int step = 0; step < 100000; ++step) {
    auto a = encoder::sim::decodeAsync(m, st);
    auto en = encoder::sim::enabledSteps(m, st, a);
    if (en.empty()) break;
    auto r = red.reduce(st, a, en);
    hist[r.size()]++;
    if (r.size() > 1 && shown < 15) {
      ++shown;
      std::cout << "state with " << r.size() << "/" << en.size() << ":\n";
      for (auto& x : r) std::cout << "   " << encoder::stepToString(*sys, x) << "\n";
    }
    std::vector<encoder::Violation> found;
    encoder::sim::applyStep(m, st, a, r[rand() % r.size()], found, nullptr);
  }
  for (auto [k, v] : hist) std::cout << k << ": " << v << "\n";
}
