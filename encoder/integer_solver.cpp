#include "encoder/integer_solver.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cake::encoder::z3w {

namespace {

// Z3 4.8.12's tactics by name, with their parameters (each strategy below
// follows src/tactic/smtlogics/qfnia_tactic.cpp and qflia_tactic.cpp and
// src/tactic/portfolio/default_tactic.cpp of that release).
class Tactics {
 public:
  using Value = std::variant<bool, unsigned, const char*>;
  using Params = std::initializer_list<std::pair<const char*, Value>>;
  explicit Tactics(z3::context& c) : c_(c) {}

  z3::tactic t(const char* name) const { return z3::tactic(c_, name); }
  z3::tactic t(const char* name, Params ps) const { return with(t(name), ps); }
  z3::tactic with(const z3::tactic& x, Params ps) const {
    z3::params p(c_);
    for (const auto& [key, v] : ps) {
      if (const bool* b = std::get_if<bool>(&v)) p.set(key, *b);
      if (const unsigned* u = std::get_if<unsigned>(&v)) p.set(key, *u);
      if (const char* const* s = std::get_if<const char*>(&v)) p.set(key, c_.str_symbol(*s));
    }
    return z3::with(x, p);
  }
  z3::probe probe(const char* name) const { return z3::probe(c_, name); }
  z3::tactic skipIfFailed(const z3::tactic& x) const { return x | t("skip"); }
  z3::tactic decided(const z3::tactic& x) const { return x & t("fail-if-undecided"); }

 private:
  z3::context& c_;
};

// One try of a strategy's or-else: its tactic and its share of resource
// units (the seconds of Z3's try_for; 0: no time limit, until the query's).
struct Try {
  z3::tactic tactic;
  double seconds = 0;
};

// qfnia: the preamble, then the bit-blasted attempt (untimed), the SMT core
// for 2 s, nlsat for 3 s, the SMT core (untimed). Left out: the preamble's
// last step, cofactor-term-ite, which qfnia stops once the whole process's
// Z3 memory passes 20 MB. In cake that memory is near 20 MB (one context
// holds about 19.6 MB), so the step ran, ran part way or not at all by what
// other contexts held at the moment (on the split-K fix's third integer
// query: 167,307 units with Z3's default solver, 3,679 without the step,
// 2,000,000 and unknown with it run to its end). The bit-blaster's cap of
// the same kind (100 MB) is left out too: every rewrite step counts a
// resource unit, so the query's budget bounds it.
z3::tactic nonlinearPreamble(const Tactics& z) {
  return z.t("simplify") & z.t("propagate-values") &
         z.t("ctx-simplify", {{"max_depth", 30u}, {"max_steps", 5000000u}}) &
         z.t("simplify", {{"pull_cheap_ite", true}, {"local_ctx", true}, {"local_ctx_limit", 10000000u}}) &
         z.t("elim-uncnstr") & z.t("lia2card") & z.t("card2bv");
}

std::vector<Try> nonlinearTries(const Tactics& z) {
  const z3::tactic bv = z.with(z.t("simplify") & z.t("propagate-values") &
                                   z.t("simplify", {{"local_ctx", true}, {"local_ctx_limit", 10000000u}}) &
                                   z.t("max-bv-sharing") & z.t("bit-blast") & z.t("sat"),
                               {{"flat", false}, {"hi_div0", true}, {"elim_and", true}, {"blast_distinct", true}});
  const z3::tactic bitBlasted = z.decided(z.t("simplify", {{"hoist_mul", true}}) &
                                          z.t("nla2bv", {{"nla2bv_max_bv_size", 64u}}) & z.skipIfFailed(bv));
  const z3::tactic smt = z.t("simplify", {{"som", true}}) & z.t("smt");
  const z3::tactic nlsat =
      z.decided(z.t("simplify", {{"som", true}}) & z.t("qfnra-nlsat", {{"som", true}, {"factor", false}}));
  return {{bitBlasted, 0}, {smt, 2}, {nlsat, 3}, {smt, 0}};
}

// The SMT core as qflia asks it: no cuts, a seed, with relevancy (then for
// QF_LIA) or without.
z3::tactic smtNoCuts(const Tactics& z, unsigned seed, bool relevancy) {
  if (relevancy)
    return z.t("smt", {{"auto_config", false},
                       {"smt.logic", "QF_LIA"},
                       {"arith.branch_cut_ratio", 10000000u},
                       {"random_seed", seed}});
  return z.t("smt",
             {{"auto_config", false}, {"arith.branch_cut_ratio", 10000000u}, {"random_seed", seed}, {"relevancy", 0u}});
}

// qflia's bit-vector encoding of a pseudo-Boolean problem (bv2sat).
z3::tactic bitVectorsToSat(const Tactics& z) {
  return z.with(z.t("simplify") & z.t("propagate-values") & z.t("solve-eqs") & z.t("max-bv-sharing") &
                    z.t("bit-blast") & z.t("aig") & z.t("sat", {{"gc", "dyn_psm"}}),
                {{"flat", false}, {"som", false}, {"ite_extra", true}});
}

// qflia's lia2sat: bounded integers to pseudo-Booleans to SAT.
z3::tactic integersToSat(const Tactics& z) {
  return z3::fail_if(z.probe("is-unbounded")) & z.t("propagate-ineqs") & z.t("normalize-bounds") & z.t("lia2pb") &
         z.t("pb2bv", {{"pb2bv_all_clauses_limit", 8u}}) & z3::fail_if(!z.probe("is-qfbv")) & bitVectorsToSat(z);
}

// qflia's parameters, which qflia passes to each of its tactics and each
// reads where it knows them; Z3's API takes a parameter only for a tactic
// that knows it, so they are given to the tactics with a simplifier (the
// SMT core's tries get none).
z3::tactic qfliaParams(const Tactics& z, const z3::tactic& x) {
  return z.with(x, {{"elim_and", true}, {"som", true}, {"blast_distinct", true}, {"blast_distinct_threshold", 128u}});
}

// qflia's preamble (mk_preamble_tactic), which the default tactic's last
// branch runs too, there without qflia's parameters.
z3::tactic preambleSteps(const Tactics& z) {
  return z.t("simplify") & z.t("propagate-values") &
         z.t("ctx-simplify", {{"max_depth", 30u}, {"max_steps", 5000000u}}) &
         z.t("simplify", {{"pull_cheap_ite", true},
                          {"push_ite_arith", false},
                          {"local_ctx", true},
                          {"local_ctx_limit", 10000000u},
                          {"hoist_ite", true}}) &
         z.t("solve-eqs") & z.t("elim-uncnstr") & z.t("simplify", {{"arith_lhs", true}});
}

z3::tactic linearPreamble(const Tactics& z) { return qfliaParams(z, preambleSteps(z)); }

z3::tactic orElse(const std::vector<Try>& tries) {
  z3::tactic all = tries.back().tactic;
  for (size_t i = tries.size() - 1; i-- > 0;) all = tries[i].tactic | all;
  return all;
}

// Z3's default tactic (default_tactic.cpp): simplify, then the strategy of
// the first probe that holds, in its order; qflia and qfnia as `lia` and
// `nia` (their tries in one or-else). The branches whose strategies take
// time limits and that no integer problem reaches (real arithmetic, floats)
// fail instead: an unknown answer.
z3::tactic defaultStrategy(const Tactics& z, const z3::tactic& lia, const z3::tactic& nia) {
  auto when = [&](const char* probe, const z3::tactic& then, const z3::tactic& otherwise) {
    return z3::cond(z.probe(probe), then, otherwise);
  };
  const z3::tactic noTime = z3::fail_if(z3::probe(z.t("skip").ctx(), 1.0));
  z3::tactic rest = preambleSteps(z) & z.t("smt");
  rest = when("is-qffplra", noTime, rest);
  rest = when("is-qffp", noTime, rest);
  rest = when("is-nra", noTime, rest);
  rest = when("is-lira", z.t("lira"), rest);
  rest = when("is-qfnia", nia, rest);
  rest = when("is-qfnra", noTime, rest);
  rest = when("is-qflra", noTime, rest);
  rest = when("is-qfauflia", z.t("qfauflia"), rest);
  rest = when("is-qflia", lia, rest);
  rest = when("is-qfaufbv", z.t("qfaufbv"), rest);
  rest = when("is-qfbv", z.t("qfbv"), rest);
  rest = z3::cond(z.probe("is-propositional") && !z.probe("produce-proofs"), z.t("qffd"), rest);
  return z.t("simplify") & rest;
}

// qflia's tries, each behind the probe by which qflia lets it run on its
// preamble's goal: an unbounded integer program's (the SMT core without
// cuts, seed 100 for 2 s, seed 200 for 5 s), a pseudo-Boolean problem's (to
// SAT), a problem with at most one symbol wider than 0..1 (to SAT), a
// bounded problem's (the SMT core without cuts with seed 100 for 5 s,
// without relevancy with seed 200 for 5 s, with seed 300 for 15 s: what
// intWitness asks), then the SMT core. One difference, in a branch that
// intWitness's bounded queries do not take: the unbounded program's two
// tries that first add bounds of +-16 and +-32 are left out (the API sets no
// rational parameter). (The unbounded program's tries are flattened into
// qflia's or-else: after one of them fails the next one runs.)
struct LinearTries {
  std::vector<Try> program;  // the unbounded integer program's, first
  std::vector<Try> rest;
  std::vector<Try> all() const {
    std::vector<Try> out = program;
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
};

z3::probe unboundedProgram(const Tactics& z) { return z.probe("is-ilp") && z.probe("is-unbounded"); }

LinearTries linearTries(const Tactics& z) {
  LinearTries tries;
  const z3::tactic program = z3::fail_if(!unboundedProgram(z)) & z.t("propagate-ineqs");
  tries.program.push_back({z.decided(program & smtNoCuts(z, 100, true)), 2});
  tries.program.push_back({z.decided(program & smtNoCuts(z, 200, true)), 5});
  auto add = [&](const z3::tactic& x, double seconds) { tries.rest.push_back({x, seconds}); };
  const z3::probe unbounded = z.probe("is-unbounded");
  add(z3::fail_if(!z.probe("is-pb")) & z.t("pb2bv", {{"pb2bv_all_clauses_limit", 8u}}) &
          z3::fail_if(!z.probe("is-qfbv")) & qfliaParams(z, bitVectorsToSat(z)),
      0);
  add(z.decided(z3::fail_if(!z.probe("is-quasi-pb")) &
                qfliaParams(z, z.with(integersToSat(z), {{"lia2pb_max_bits", 64u}}))),
      0);
  add(z.decided(z3::fail_if(unbounded) & smtNoCuts(z, 100, true)), 5);
  add(z.decided(z3::fail_if(unbounded) & smtNoCuts(z, 200, false)), 5);
  add(z.decided(z3::fail_if(unbounded) & smtNoCuts(z, 300, true)), 15);
  add(z.t("smt"), 0);
  return tries;
}

// Z3's reason when the context was interrupted (the watchdog's wall-clock
// safety limit): no later try may run.
bool interrupted(const std::string& reason) { return reason == "canceled" || reason == "interrupted"; }

}  // namespace

IntegerSolver::IntegerSolver(z3::context& c) : c_(c), facts_(c), meter_(z3::tactic(c, "skip").mk_solver()) {}

void IntegerSolver::add(const z3::expr& fact) { facts_.push_back(fact); }

z3::model IntegerSolver::model() const { return *model_; }

uint64_t IntegerSolver::spent() const { return rlimitCount(const_cast<z3::solver&>(meter_)) - start_; }

QueryResult IntegerSolver::check(const Limits& lim) {
  const uint64_t budget =
      lim.rlimit > 0 ? std::max<uint64_t>(1, lim.rlimit / std::max<uint64_t>(1, lim.rlimit_weight)) : 0;
  return checkWith(meter_, lim, false, [&](std::string& reason) {
    model_.reset();
    start_ = rlimitCount(meter_);
    return solve(budget, reason);
  });
}

z3::check_result IntegerSolver::solve(uint64_t budget, std::string& reason) {
  constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();
  auto left = [&] { return budget == 0 ? kNoLimit : budget - std::min(budget, spent()); };
  // `s` on every fact, under `units` (kNoLimit: none).
  auto ask = [&](z3::solver s, uint64_t units) {
    for (unsigned i = 0; i < facts_.size(); ++i) s.add(facts_[i]);
    if (units != kNoLimit) {
      z3::params p(c_);
      p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(units, 0xffffffffu)));
      s.set(p);
    }
    const z3::check_result r = s.check();
    if (r == z3::sat) model_ = s.get_model();
    if (r == z3::unknown) reason = s.reason_unknown();
    return r;
  };
  // A later check: Z3's default solver is incremental once checked, and
  // asks the SMT core first, without a time limit.
  if (checks_++ > 0) {
    const z3::check_result r = ask(z3::solver(c_, z3::solver::simple()), left());
    if (r != z3::unknown || interrupted(reason) || left() == 0) return r;
  }
  const Tactics z(c_);
  const LinearTries linear = linearTries(z);
  const std::vector<Try> lia = linear.all(), nia = nonlinearTries(z);
  const uint64_t units = left();
  auto shareOf = [&](const Try& t) {
    return t.seconds > 0 ? static_cast<uint64_t>(t.seconds * kTryUnitsPerSecond) : kNoLimit;
  };
  auto inOne = [&](const std::vector<Try>& tries) {
    return std::all_of(tries.begin(), tries.end(), [&](const Try& t) { return shareOf(t) >= units; });
  };
  // A branch none of whose tries' shares is below the query's budget runs
  // in one solver with Z3's default strategy (no share can end a try there),
  // and answers as Z3's default solver answers when no time limit is met.
  // Another branch fails at once ("fail tactic") and runs try by try below.
  // (qflia's tries for an unbounded integer program run only where its
  // probes hold: a branch of their own.)
  const z3::tactic byTries = z.t("fail");
  auto oneOrByTries = [&](const std::vector<Try>& tries) { return inOne(tries) ? orElse(tries) : byTries; };
  const z3::tactic liaTactic =
      linearPreamble(z) & z3::cond(unboundedProgram(z), oneOrByTries(lia), oneOrByTries(linear.rest));
  const z3::tactic niaTactic = nonlinearPreamble(z) & oneOrByTries(nia);
  const z3::check_result first = ask(defaultStrategy(z, liaTactic, niaTactic).mk_solver(), units);
  if (first != z3::unknown || reason != "fail tactic") return first;
  // Each try in a solver of its own under its share, the preamble again in
  // each (a goal's model converter does not come back through Z3 4.8's API).
  z3::goal g(c_, true, false, false);
  for (unsigned i = 0; i < facts_.size(); ++i) g.add(facts_[i]);
  const Logic logic = logicOf(z.t("simplify")(g)[0]);
  if (logic == Logic::Other) return first;
  const z3::tactic pre = z.t("simplify") & (logic == Logic::Nia ? nonlinearPreamble(z) : linearPreamble(z));
  reason = "max. resource limit exceeded";
  for (const Try& t : logic == Logic::Nia ? nia : lia) {
    const uint64_t share = std::min(shareOf(t), left());
    if (share == 0) break;
    const z3::check_result answer = ask((pre & t.tactic).mk_solver(), share);
    if (answer != z3::unknown || interrupted(reason)) return answer;
  }
  return z3::unknown;
}

// The branch of Z3's default tactic (default_tactic.cpp) for the simplified
// goal `g`: its probes in its order.
IntegerSolver::Logic IntegerSolver::logicOf(const z3::goal& g) const {
  const Tactics z(c_);
  auto is = [&](const char* probe) { return z.probe(probe)(g) != 0; };
  if (is("is-propositional") || is("is-qfbv") || is("is-qfaufbv")) return Logic::Other;
  if (is("is-qflia")) return Logic::Lia;
  if (is("is-qfauflia") || is("is-qflra") || is("is-qfnra")) return Logic::Other;
  return is("is-qfnia") ? Logic::Nia : Logic::Other;
}

}  // namespace cake::encoder::z3w
