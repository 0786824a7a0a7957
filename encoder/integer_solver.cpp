#include "encoder/integer_solver.h"

#include <initializer_list>
#include <utility>

namespace cake::encoder::z3w {

// (the order and parameters of Z3 4.8's qfnia_tactic.cpp, less what reads
// the clock or the process's memory: `try_for`, and the `max_memory` caps of
// the bit-blaster and of cofactor-term-ite, which compare Z3's allocations in
// the whole process (another thread's queries included) with a few MB. The
// bit-blasted attempt stops after 500 conflicts instead, as later Z3's does.)
z3::solver integerSolver(z3::context& c) {
  auto t = [&](const char* name) { return z3::tactic(c, name); };
  auto with = [&](const z3::tactic& x, std::initializer_list<std::pair<const char*, unsigned>> uints,
                  std::initializer_list<std::pair<const char*, bool>> bools = {}) {
    z3::params p(c);
    for (const auto& [k, v] : uints) p.set(k, v);
    for (const auto& [k, v] : bools) p.set(k, v);
    return z3::with(x, p);
  };
  const auto skipIfFailed = [&](const z3::tactic& x) { return x | t("skip"); };
  const z3::tactic preamble =
      t("simplify") & t("propagate-values") & with(t("ctx-simplify"), {{"max_depth", 30}, {"max_steps", 5000000}}) &
      with(t("simplify"), {{"local_ctx_limit", 10000000}}, {{"pull_cheap_ite", true}, {"local_ctx", true}}) &
      t("elim-uncnstr") & t("lia2card") & t("card2bv");
  const z3::tactic bv_solver =
      with(t("simplify") & t("propagate-values") &
               with(t("simplify"), {{"local_ctx_limit", 10000000}}, {{"local_ctx", true}}) & t("max-bv-sharing") &
               t("bit-blast") & with(t("sat"), {{"max_conflicts", 500}}),
           {}, {{"flat", false}, {"hi_div0", true}, {"elim_and", true}, {"blast_distinct", true}});
  const z3::tactic bit_blasted = with(t("simplify"), {}, {{"hoist_mul", true}}) &
                                 with(t("nla2bv"), {{"nla2bv_max_bv_size", 64}}) & skipIfFailed(bv_solver) &
                                 t("fail-if-undecided");
  const z3::tactic smt = with(t("simplify"), {}, {{"som", true}}) & t("smt");
  return (preamble & (bit_blasted | smt)).mk_solver();
}

}  // namespace cake::encoder::z3w
