// Bounded model checking of a flat System with Z3: the System's semantics
// (docs/semantics.md, executable form in sim_state.cpp) as a symbolic
// transition system over bit-vectors, one guarded command per Step
// (Exec of a process's current instruction, Land of a TMA load, Complete of
// an sm_100a MMA group), each rule as a bad-state predicate or as a bad
// firing of a command. z3w::bmc() finds the shortest run to each rule along
// violation-free runs; every trace is then replayed by the simulator.
//
// The state, per the simulator's state vector:
//   per process       pc, sync generation awaited, observed MMA seq,
//                     retired/completed groups per group kind (MMA, store,
//                     cp.async) -- group membership is static in a
//                     straight-line program: an async op belongs to the
//                     group closed by the first commit after it;
//   per barrier slot  completed, pending arrivals, transaction count
//                     (bytes divided by their gcd: only == 0 matters);
//   per named barrier generation, warps arrived;
//   per smem atom     the write id of the data it holds, one "unfenced
//                     generic write" and one "unfenced generic read" bit
//                     per process;
//   per TMA load      in flight, phase meant at issue; landed-unobserved
//                     and its phase;
//   per MMA commit    completed-unobserved and its phase (sm_100a).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <stdexcept>

#include <fmt/format.h>

#include "encoder/cluster_exits.h"
#include "encoder/sim_model.h"
#include "encoder/simulator.h"
#include "encoder/z3_engine.h"
#include "encoder/z3_solver.h"
#include "encoder/z3_sts.h"

namespace cake::encoder {

namespace {

using sim::Model;

class Flat {
 public:
  Flat(const System& sys, z3::context& c, z3w::Sts& sts) : sys_(sys), m_(sys), c_(c), sts_(sts) {}

  bool build(std::string* why) {
    if (m_.P > 30) {
      *why = "more than 30 processes (unfenced-write bits alias)";
      return false;
    }
    if (auto no = notEncodedInZ3(sys_)) {
      *why = *no;
      return false;
    }
    statics_ = staticViolations(sys_);
    scaleAndWidth();
    declare();
    for (int p = 0; p < m_.P; ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc) execTransition(p, pc);
    for (size_t l = 0; l < loads_.size(); ++l) landTransition(static_cast<int>(l));
    for (size_t x = 0; x < mcs_.size(); ++x) completeTransition(static_cast<int>(x));
    stateBads();
    return true;
  }

  const std::vector<Step>& steps() const { return steps_; }

  // Partial-order reduction for BMC. Two Exec commands of different
  // processes that are independent (neither writes what the other reads or
  // writes, bads included) commute: a then b and b then a reach the same
  // state and meet the same step violations. Only the order with the lower
  // index first is kept. The state in between differs, but it cannot end a
  // run the other order does not end: both commands are Exec of unfinished
  // processes (no stop state, no deadlock in between), and lost-phase is
  // monotone in the completed counts that the commands leave alone
  // (docs/z3.md argues it in full).
  std::vector<std::pair<int, int>> commuting(const z3w::Sts& sts, bool trace) const {
    z3w::Footprint fp = z3w::footprints(sts);
    std::vector<std::pair<int, int>> out;
    const auto& trs = sts.transitions();
    auto disjoint = [](const std::set<int>& a, const std::set<int>& b) {
      for (int x : a)
        if (b.count(x)) return false;
      return true;
    };
    // pc[q] is read by other processes' commands only as events
    // Exec(q, x) (evReadsOf_); replace those reads and the write of pc[q]
    // by event ids (negative, so they never clash with variable ids)
    std::set<int> pcVars(pc_.begin(), pc_.end());
    auto evId = [&](int q, int x) { return -1 - (q * 100000 + x); };
    for (size_t t = 0; t < trs.size(); ++t) {
      const Step& st = steps_[trs[t].tag];
      if (st.kind != Step::Kind::Exec) continue;
      std::set<int> r;
      for (int v : fp.reads[t])
        if (!pcVars.count(v) || v == pc_[st.proc]) r.insert(v);
      auto it = evReadsOf_.find(static_cast<int>(t));
      if (it != evReadsOf_.end())
        for (const auto& [q, x] : it->second) r.insert(evId(q, x));
      fp.reads[t] = std::move(r);
      fp.writes[t].erase(pc_[st.proc]);
      fp.writes[t].insert(evId(st.proc, st.pc));
    }
    for (size_t a = 0; a < trs.size(); ++a) {
      const Step& sa = steps_[trs[a].tag];
      if (sa.kind != Step::Kind::Exec) continue;
      for (size_t b = 0; b < a; ++b) {
        const Step& sb = steps_[trs[b].tag];
        if (sb.kind != Step::Kind::Exec || sb.proc == sa.proc) continue;
        if (disjoint(fp.writes[a], fp.reads[b]) && disjoint(fp.writes[a], fp.writes[b]) &&
            disjoint(fp.writes[b], fp.reads[a]))
          out.push_back({static_cast<int>(a), static_cast<int>(b)});
      }
    }
    if (trace) fprintf(stderr, "  POR: %zu commuting pairs of %zu commands\n", out.size(), trs.size());
    return out;
  }
  const std::vector<Violation>& statics() const { return statics_; }
  unsigned width() const { return W_; }
  int maxDepth() const {
    int n = 0;
    for (int p = 0; p < m_.P; ++p) n += m_.programSize(p);
    return n + static_cast<int>(loads_.size() + mcs_.size());
  }

 private:
  const System& sys_;
  Model m_;
  z3::context& c_;
  z3w::Sts& sts_;
  std::vector<Violation> statics_;
  unsigned W_ = 16;
  int64_t tx_scale_ = 1;

  std::vector<int> pc_, sgen_, obs_;
  std::vector<std::array<int, sim::kGroupKinds>> retired_;
  std::vector<int> comp_, pend_, tx_;
  std::vector<int> ngen_, narr_;
  std::vector<int> data_;
  std::vector<std::vector<int>> unf_;   // [tracked][proc]: unfenced generic write
  std::vector<std::vector<int>> unfr_;  // [tracked][proc]: unfenced generic read
  struct LoadV { int p, pc, in, ph, uo, uoph; };
  std::vector<LoadV> loads_;
  struct MmaC { int p, pc, slot, seq, idx, uo, uoph; };
  std::vector<MmaC> mcs_;
  // commit pcs per (proc, kind), in program order
  std::vector<std::array<std::vector<int>, sim::kGroupKinds>> commits_;
  std::vector<Step> steps_;
  // For partial-order reduction: the "Exec(q, x) has happened" events whose
  // occurrence a command's guard, updates or bads observe through pc[q]
  // (pc[q] > x, pc[q] == x + 1), per transition.
  mutable std::set<std::pair<int, int>>* evReads_ = nullptr;
  std::map<int, std::set<std::pair<int, int>>> evReadsOf_;

  z3::expr num(int64_t v) const { return c_.bv_val(static_cast<int64_t>(v), W_); }
  z3::expr V(int i) const { return sts_.var(i); }
  z3::expr tt() const { return c_.bool_val(true); }
  z3::expr ff() const { return c_.bool_val(false); }
  static z3::expr max(z3::expr a, z3::expr b) { return z3::ite(a >= b, a, b); }

  // ------------------------------------------------------------ setup

  void scaleAndWidth() {
    int64_t g = 0, bytes = 0, arrivals = 0, phases = 0, warps = 0;
    int maxInit = 1, maxPc = 0, ncommits = 0;
    for (const Process& p : sys_.procs) {
      maxPc = std::max(maxPc, static_cast<int>(p.program.size()) + 1);
      for (const Instr& in : p.program) {
        if (in.kind == InstrKind::ExpectTx || in.kind == InstrKind::TmaLoad) {
          if (in.bytes != 0) g = std::gcd(g, std::abs(in.bytes));
          bytes += std::abs(in.bytes);
        }
        if (in.kind == InstrKind::Arrive) arrivals += std::abs(in.count);
        if (in.kind == InstrKind::ExpectTx || in.kind == InstrKind::MmaCommit) arrivals += 1;
        phases = std::max(phases, std::abs(in.phase) + 2);
        if (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive) warps += p.warps;
        if (in.kind == InstrKind::MmaCommit || in.kind == InstrKind::StoreCommit ||
            in.kind == InstrKind::CpAsyncCommit)
          ++ncommits;
        phases = std::max<int64_t>(phases, in.pending + ncommits + 2);
      }
    }
    for (const BarrierSlot& s : sys_.slots) maxInit = std::max(maxInit, s.init_count);
    for (const auto& nb : sys_.named) warps += nb.expected_warps;
    tx_scale_ = g > 0 ? g : 1;
    int64_t b = std::max<int64_t>({(arrivals + 2) * (maxInit + 1), bytes / tx_scale_ + 2,
                                   static_cast<int64_t>(m_.writes.size()) + 2, maxPc, warps * 2 + 2,
                                   phases + arrivals + 4, ncommits + 4, 16});
    W_ = static_cast<unsigned>(std::min(62, z3w::bitsFor(b) + 2));
  }

  int bv(const std::string& name, int64_t init) {
    return sts_.addVar(name, c_.bv_sort(W_), num(init));
  }
  int boolean(const std::string& name) { return sts_.addVar(name, c_.bool_sort(), ff()); }

  void declare() {
    commits_.resize(m_.P);
    retired_.resize(m_.P);
    for (int p = 0; p < m_.P; ++p) {
      std::string n = sys_.procs[p].name;
      pc_.push_back(bv(n + ".pc", 0));
      sgen_.push_back(bv(n + ".sgen", 0));
      obs_.push_back(bv(n + ".obs", -1));
      for (int k = 0; k < sim::kGroupKinds; ++k) retired_[p][k] = bv(n + ".retired" + std::to_string(k), 0);
      int seq = 0;
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const Instr& in = m_.instr(p, pc);
        if (in.kind == InstrKind::MmaCommit || in.kind == InstrKind::StoreCommit ||
            in.kind == InstrKind::CpAsyncCommit)
          commits_[p][m_.groupKind(in.kind)].push_back(pc);
        if (in.kind == InstrKind::TmaLoad) {
          std::string ln = fmt::format("{}.load@{}", n, pc);
          loads_.push_back({p, pc, boolean(ln + ".inflight"), bv(ln + ".phase", 0), boolean(ln + ".unobserved"),
                            bv(ln + ".uphase", 0)});
        }
        if (in.kind == InstrKind::MmaCommit) {
          int idx = static_cast<int>(commits_[p][sim::kMma].size()) - 1;
          if (in.slot >= 0) {
            std::string ln = fmt::format("{}.commit@{}", n, pc);
            mcs_.push_back({p, pc, in.slot, m_.commit_seq[p][pc], idx, boolean(ln + ".unobserved"),
                            bv(ln + ".uphase", 0)});
          }
          (void)seq;
        }
      }
    }
    for (int k = 0; k < m_.S; ++k) {
      const std::string& n = sys_.slots[k].name;
      comp_.push_back(bv(n + ".completed", 0));
      pend_.push_back(bv(n + ".pending", std::max(1, sys_.slots[k].init_count)));
      tx_.push_back(bv(n + ".tx", 0));
    }
    for (int i = 0; i < m_.N; ++i) {
      ngen_.push_back(bv(sys_.named[i].name + ".gen", 0));
      narr_.push_back(bv(sys_.named[i].name + ".arrived", 0));
    }
    unf_.resize(m_.tracked);
    unfr_.resize(m_.tracked);
    for (int x = 0; x < m_.atoms; ++x) {
      int t = m_.tracked_of[x];
      if (t < 0) continue;
      std::string n = fmt::format("atom{}", t);
      data_.push_back(bv(n + ".data", -1));
      for (int p = 0; p < m_.P; ++p) unf_[t].push_back(boolean(fmt::format("{}.unfenced{}", n, p)));
      for (int p = 0; p < m_.P; ++p) unfr_[t].push_back(boolean(fmt::format("{}.unfencedread{}", n, p)));
    }
  }

  // commits of `kind` in process p before pc (= the group index of an op at pc)
  int commitsBefore(int p, int kind, int pc) const {
    const auto& v = commits_[p][kind];
    return static_cast<int>(std::lower_bound(v.begin(), v.end(), pc) - v.begin());
  }

  // ------------------------------------------------------------ updates

  // The updates of one command, read back in order (sequential effects).
  struct Upd {
    const Flat& f;
    std::map<int, z3::expr> m;
    z3::expr get(int i) const {
      auto it = m.find(i);
      return it == m.end() ? f.V(i) : it->second;
    }
    void set(int i, z3::expr e) { m.insert_or_assign(i, e); }
    std::vector<std::pair<int, z3::expr>> list() const {
      std::vector<std::pair<int, z3::expr>> out;
      for (const auto& [i, e] : m) out.push_back({i, e});
      return out;
    }
  };

  void settle(Upd& u, int k) {
    int init = std::max(1, sys_.slots[k].init_count);
    z3::expr p = u.get(pend_[k]), t = u.get(tx_[k]);
    z3::expr ready = p <= 0 && t == 0;
    z3::expr n = z3::udiv(-p, num(init)) + 1;
    u.set(comp_[k], z3::ite(ready, u.get(comp_[k]) + n, u.get(comp_[k])));
    u.set(pend_[k], z3::ite(ready, p + n * num(init), p));
  }

  // Returns the arrival-overflow condition.
  z3::expr arrive(Upd& u, int k, int64_t count) {
    z3::expr p = u.get(pend_[k]) - num(count);
    u.set(pend_[k], p);
    z3::expr over = p < 0 && u.get(tx_[k]) != 0;
    settle(u, k);
    return over;
  }

  void writeData(Upd& u, int p, int pc, z3::expr cond) {
    const Instr& in = m_.instr(p, pc);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const Access& acc = in.accesses[i];
      if (!acc.write) continue;
      const sim::AtomRange& r = m_.atoms_of[p][pc][i];
      for (int x = r.a0; x < r.a1; ++x) {
        int t = m_.tracked_of[x];
        if (t < 0) continue;
        u.set(data_[t], z3::ite(cond, num(m_.write_id[p][pc][i]), u.get(data_[t])));
        for (int q = 0; q < m_.P; ++q) {
          if (acc.proxy == Proxy::Generic) {
            if (q == p) u.set(unf_[t][q], cond || u.get(unf_[t][q]));
          } else {
            u.set(unf_[t][q], !cond && u.get(unf_[t][q]));
            u.set(unfr_[t][q], !cond && u.get(unfr_[t][q]));
          }
        }
      }
    }
  }

  // sim's markGenericReads(): a synchronous generic-proxy read marks its
  // atoms until its process fences.
  void markGenericReads(Upd& u, int p, int pc) {
    const Instr& in = m_.instr(p, pc);
    for (size_t i = 0; i < in.accesses.size(); ++i) {
      const Access& acc = in.accesses[i];
      if (acc.write || acc.proxy != Proxy::Generic) continue;
      const sim::AtomRange& r = m_.atoms_of[p][pc][i];
      for (int x = r.a0; x < r.a1; ++x)
        if (m_.tracked_of[x] >= 0) u.set(unfr_[m_.tracked_of[x]][p], tt());
    }
  }

  // sim's checkAsyncWrite(): an async-proxy write of atoms an unfenced
  // generic access reached.
  z3::expr asyncWriteUnfenced(int p, int pc, int i) const {
    const sim::AtomRange& r = m_.atoms_of[p][pc][i];
    z3::expr f = ff();
    for (int x = r.a0; x < r.a1; ++x) {
      int t = m_.tracked_of[x];
      if (t < 0) continue;
      for (int q = 0; q < m_.P; ++q) f = f || V(unf_[t][q]) || V(unfr_[t][q]);
    }
    return f;
  }

  // observe(k, completed c) at a passing wait
  void observe(Upd& u, int k, z3::expr cval) {
    std::vector<z3::expr> newObs;
    for (int q = 0; q < m_.P; ++q) newObs.push_back(u.get(obs_[q]));
    std::vector<z3::expr> remMma;
    for (const MmaC& x : mcs_) {
      z3::expr rem = x.slot == k ? (u.get(x.uo) && u.get(x.uoph) < cval) : ff();
      remMma.push_back(rem);
      if (x.slot == k) newObs[x.p] = z3::ite(rem, max(newObs[x.p], num(x.seq)), newObs[x.p]);
    }
    for (const LoadV& l : loads_) {
      if (m_.instr(l.p, l.pc).slot != k) continue;
      u.set(l.uo, u.get(l.uo) && !(u.get(l.uoph) < cval));
    }
    for (size_t i = 0; i < mcs_.size(); ++i) u.set(mcs_[i].uo, u.get(mcs_[i].uo) && !remMma[i]);
    for (int q = 0; q < m_.P; ++q) knowCompleted(u, q, newObs[q]);
  }

  // As the simulator's knowCompleted: process p knows every MMA group up to
  // sequence `known` has completed (after its mma_wait, or through a wait
  // that observed a later commit's arrival), so their arrivals count as
  // observed.
  void knowCompleted(Upd& u, int p, const z3::expr& known) {
    z3::expr obs = max(u.get(obs_[p]), known);
    u.set(obs_[p], obs);
    for (const MmaC& x : mcs_)
      if (x.p == p) u.set(x.uo, u.get(x.uo) && !(num(x.seq) <= obs));
  }

  // ------------------------------------------------------------ accesses

  // Is the async op of (q, qpc) still accessing memory (issued, group not retired)?
  z3::expr live(int q, int qpc) const {
    if (evReads_) evReads_->insert({q, qpc});
    int k = m_.groupKind(m_.instr(q, qpc).kind);
    return V(pc_[q]) > num(qpc) && V(retired_[q][k]) <= num(commitsBefore(q, k, qpc));
  }

  bool isGroupOp(int q, int qpc) const {
    InstrKind k = m_.instr(q, qpc).kind;
    return k == InstrKind::TmaStore || k == InstrKind::CpAsync || (k == InstrKind::Mma && m_.async_mma);
  }

  z3::expr race(int p, int pc, int i) const {
    const Access& acc = m_.access(p, pc, i);
    const Instr& me = m_.instr(p, pc);
    std::vector<z3::expr> conds;
    for (const LoadV& l : loads_) {
      if (m_.overlap(p, pc, i, l.p, l.pc, 0)) conds.push_back(V(l.in));  // a load writes
    }
    for (int q = 0; q < m_.P; ++q)
      for (int qpc = 0; qpc < m_.programSize(q); ++qpc) {
        if (!isGroupOp(q, qpc)) continue;
        const Instr& qi = m_.instr(q, qpc);
        if (q == p && me.kind == InstrKind::Mma && qi.kind == InstrKind::Mma) continue;
        bool hit = false;
        for (size_t j = 0; j < qi.accesses.size(); ++j) {
          const Access& b = qi.accesses[j];
          if (b.async && accessesConflict(m_.sys, acc, b) && m_.overlap(p, pc, i, q, qpc, static_cast<int>(j))) hit = true;
        }
        if (hit) conds.push_back(live(q, qpc));
      }
    for (int q = 0; q < m_.P; ++q) {
      if (q == p) continue;
      for (int qpc = 0; qpc < m_.programSize(q); ++qpc) {
        if (!m_.isSyncAccess(q, qpc)) continue;
        const Instr& qi = m_.instr(q, qpc);
        bool hit = false;
        for (size_t j = 0; j < qi.accesses.size(); ++j)
          if (accessesConflict(m_.sys, acc, qi.accesses[j]) && m_.overlap(p, pc, i, q, qpc, static_cast<int>(j))) hit = true;
        if (hit) {
          if (evReads_) { evReads_->insert({q, qpc}); evReads_->insert({q, qpc + 1}); }
          conds.push_back(V(pc_[q]) == num(qpc + 1));
        }
      }
    }
    z3::expr r = ff();
    for (const auto& e : conds) r = r || e;
    return r;
  }

  // sim's staleRead(): does reading `acc` (of p) see stale data when the
  // atom holds write `w`? (one decision for every engine: sim::staleWrite)
  bool staleWith(int p, const Access& acc, int w) const { return sim::staleWrite(m_, p, acc, w); }

  // (missing fence, stale read) for a read that does not race
  std::pair<z3::expr, z3::expr> readIssues(int p, int pc, int i) const {
    const Access& acc = m_.access(p, pc, i);
    const sim::AtomRange& r = m_.atoms_of[p][pc][i];
    z3::expr fence = ff(), stale = ff(), earlier = ff();
    for (int x = r.a0; x < r.a1; ++x) {
      int t = m_.tracked_of[x];
      if (t < 0) continue;
      z3::expr f = ff();
      if (acc.proxy == Proxy::Async)
        for (int q = 0; q < m_.P; ++q) f = f || V(unf_[t][q]);
      z3::expr s = ff();
      if (acc.view >= 0) {
        s = V(data_[t]) == num(-1);
        for (size_t w = 0; w < m_.writes.size(); ++w) {
          const Model::WriteRef& wr = m_.writes[w];
          if (!m_.atoms_of[wr.proc][wr.pc][wr.acc].overlaps({x, x + 1})) continue;
          if (staleWith(p, acc, static_cast<int>(w))) s = s || V(data_[t]) == num(static_cast<int64_t>(w));
        }
      }
      fence = fence || (!earlier && f);
      stale = stale || (!earlier && !f && s);
      earlier = earlier || f || s;
    }
    return {fence, stale};
  }

  // ------------------------------------------------------------ commands

  int addStep(Step st, const std::string& name, z3::expr guard, const Upd& u) {
    int tag = static_cast<int>(steps_.size());
    steps_.push_back(st);
    z3w::Sts::Transition t{name, tag, guard, u.list(), {}};
    return sts_.addTransition(std::move(t));
  }
  void bad(const std::string& rule, z3::expr pred, int transition) {
    z3::expr s = pred.simplify();
    if (s.is_false()) return;
    z3w::Sts::Bad b{rule, transition >= 0 ? sts_.transitions()[transition].tag : -1, pred, {}, transition};
    sts_.addBad(std::move(b));
  }

  void execTransition(int p, int pc) {
    std::set<std::pair<int, int>> ev;
    evReads_ = &ev;
    execTransitionImpl(p, pc);
    evReads_ = nullptr;
    evReadsOf_[static_cast<int>(sts_.transitions().size()) - 1] = std::move(ev);
  }

  void execTransitionImpl(int p, int pc) {
    const Instr& in = m_.instr(p, pc);
    z3::expr guard = V(pc_[p]) == num(pc);
    Upd u{*this, {}};
    u.set(pc_[p], num(pc + 1));
    std::vector<std::pair<std::string, z3::expr>> viol;
    if (in.regs_hazard.regs_space >= 0) viol.push_back({in.regs_hazard.rule(), c_.bool_val(true)});  // decided at build
    auto accesses = [&]() {
      z3::expr r = ff(), f = ff(), s = ff();
      for (size_t i = 0; i < in.accesses.size(); ++i) {
        z3::expr ri = race(p, pc, static_cast<int>(i));
        r = r || ri;
        if (!in.accesses[i].write) {
          auto [fi, si] = readIssues(p, pc, static_cast<int>(i));
          f = f || (!ri && fi);
          s = s || (!ri && si);
        } else if (in.accesses[i].proxy == Proxy::Async) {
          f = f || (!ri && asyncWriteUnfenced(p, pc, static_cast<int>(i)));
        }
      }
      viol.push_back({"sync.race", r});
      viol.push_back({"proxy.missing-fence", f});
      viol.push_back({"data.stale-read", s});
    };
    switch (in.kind) {
      case InstrKind::Wait: {
        z3::expr cval = V(comp_[in.slot]);
        guard = guard && (cval - num(in.phase)).extract(0, 0) == c_.bv_val(1, 1);
        viol.push_back({"sync.stale-phase", cval != num(in.phase + 1)});
        observe(u, in.slot, cval);
        break;
      }
      case InstrKind::Arrive:
        viol.push_back({"sync.arrival-overflow", arrive(u, in.slot, in.count)});
        break;
      case InstrKind::ExpectTx:
        u.set(tx_[in.slot], u.get(tx_[in.slot]) + num(in.bytes / tx_scale_));
        viol.push_back({"sync.arrival-overflow", arrive(u, in.slot, 1)});
        break;
      case InstrKind::TmaLoad: {
        accesses();
        auto it = std::find_if(loads_.begin(), loads_.end(), [&](const LoadV& l) { return l.p == p && l.pc == pc; });
        u.set(it->in, tt());
        u.set(it->ph, V(comp_[in.slot]));
        break;
      }
      case InstrKind::TmaStore:
      case InstrKind::CpAsync:
        accesses();
        break;
      case InstrKind::Mma:
        accesses();
        if (!m_.async_mma) {
          markGenericReads(u, p, pc);
          writeData(u, p, pc, tt());
        }
        break;
      case InstrKind::StoreCommit:
      case InstrKind::CpAsyncCommit:
      case InstrKind::MmaCommit:
        break;
      case InstrKind::StoreWait:
      case InstrKind::CpAsyncWait:
      case InstrKind::MmaWait: {
        int k = m_.groupKind(in.kind);
        int C = commitsBefore(p, k, pc);
        z3::expr R = V(retired_[p][k]);
        z3::expr R2 = max(R, num(C - in.pending));
        // As the simulator (mmaWaitBlocked): a group that arrives on a
        // barrier retires only through its Complete step, so the wait blocks
        // while one it would retire has not completed.
        if (k == sim::kMma)
          for (const MmaC& x : mcs_)
            if (x.p == p && x.idx < C - in.pending) guard = guard && R > num(x.idx);
        u.set(retired_[p][k], R2);
        if (k == sim::kMma) knowCompleted(u, p, R2 - num(1));
        if (k == sim::kCp) {
          for (int opc = 0; opc < pc; ++opc) {
            if (m_.instr(p, opc).kind != InstrKind::CpAsync) continue;
            int g = commitsBefore(p, k, opc);
            writeData(u, p, opc, R <= num(g) && num(g) < R2);
          }
        }
        break;
      }
      case InstrKind::SyncArrive:
      case InstrKind::BarArrive: {
        const NamedBarrier& nb = sys_.named[in.named];
        z3::expr gen = V(ngen_[in.named]);
        z3::expr arrived = V(narr_[in.named]) + num(sys_.procs[p].warps);
        if (in.kind == InstrKind::SyncArrive) u.set(sgen_[p], gen);  // waits until this generation completes
        if (nb.expected_warps > 0) {
          viol.push_back({"sync.arrival-overflow", arrived > num(nb.expected_warps)});
          z3::expr wrap = arrived >= num(nb.expected_warps);
          u.set(ngen_[in.named], z3::ite(wrap, gen + 1, gen));
          u.set(narr_[in.named], z3::ite(wrap, max(num(0), arrived - num(nb.expected_warps)), arrived));
        } else {
          u.set(narr_[in.named], arrived);
        }
        break;
      }
      case InstrKind::SyncWait:
        guard = guard && V(ngen_[in.named]) > V(sgen_[p]);
        u.set(sgen_[p], num(0));
        break;
      case InstrKind::Fence:
        for (int t = 0; t < m_.tracked; ++t) {
          u.set(unf_[t][p], ff());
          u.set(unfr_[t][p], ff());
        }
        break;
      case InstrKind::Generic:
        accesses();
        markGenericReads(u, p, pc);
        writeData(u, p, pc, tt());
        break;
      case InstrKind::TmemLoad:
      case InstrKind::TmemStore:
      case InstrKind::TmemLoadWait:
      case InstrKind::TmemStoreWait:
        throw std::logic_error("z3-bmc: tcgen05.ld / st reached the encoding (build() refuses them)");
    }
    int t = addStep({Step::Kind::Exec, p, pc}, fmt::format("{}@{}", sys_.procs[p].name, pc), guard, u);
    for (auto& [rule, cond] : viol) bad(rule, guard && cond, t);
  }

  void landTransition(int l) {
    const LoadV& L = loads_[l];
    const Instr& in = m_.instr(L.p, L.pc);
    int k = in.slot;
    z3::expr guard = V(L.in);
    Upd u{*this, {}};
    u.set(L.in, ff());
    writeData(u, L.p, L.pc, tt());
    z3::expr imbalance = V(comp_[k]) > V(L.ph);
    z3::expr now = V(comp_[k]);
    u.set(tx_[k], u.get(tx_[k]) - num(in.bytes / tx_scale_));
    settle(u, k);
    u.set(L.uo, tt());
    u.set(L.uoph, now);
    int t = addStep({Step::Kind::Land, L.p, L.pc}, fmt::format("land {}@{}", sys_.procs[L.p].name, L.pc), guard, u);
    bad("sync.tx-imbalance", guard && imbalance, t);
  }

  void completeTransition(int x) {
    const MmaC& M = mcs_[x];
    z3::expr R = V(retired_[M.p][sim::kMma]);
    z3::expr guard = V(pc_[M.p]) > num(M.pc) && R == num(M.idx);
    Upd u{*this, {}};
    u.set(retired_[M.p][sim::kMma], R + 1);
    z3::expr now = V(comp_[M.slot]);
    z3::expr over = arrive(u, M.slot, 1);
    u.set(M.uo, tt());
    u.set(M.uoph, now);
    int t = addStep({Step::Kind::Complete, M.p, M.pc}, fmt::format("complete {}@{}", sys_.procs[M.p].name, M.pc),
                    guard, u);
    bad("sync.arrival-overflow", guard && over, t);
  }

  // The static finding that explains a wait at (p, pc) blocking forever, or null.
  const Violation* explained(int p, int pc) const {
    const Instr& in = m_.instr(p, pc);
    if (in.kind != InstrKind::Wait) return nullptr;
    for (const Violation& v : statics_)
      if (sim::explainsDeadlock(v, in.slot, in.phase)) return &v;
    return nullptr;
  }

  void stateBads() {
    z3::expr allDone = tt();
    for (int p = 0; p < m_.P; ++p) allDone = allDone && V(pc_[p]) == num(m_.programSize(p));
    sts_.setStop(allDone);
    // lost phase
    z3::expr lost = ff();
    for (int p = 0; p < m_.P; ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const Instr& in = m_.instr(p, pc);
        if (in.kind == InstrKind::Wait)
          lost = lost || (V(pc_[p]) == num(pc) && V(comp_[in.slot]) >= num(in.phase + 2));
      }
    bad("sync.lost-phase", lost, -1);
    // async work at exit
    z3::expr async = ff();
    for (const LoadV& l : loads_) async = async || V(l.in) || V(l.uo);
    for (const MmaC& x : mcs_) async = async || V(x.uo);
    for (int q = 0; q < m_.P; ++q)
      for (int qpc = 0; qpc < m_.programSize(q); ++qpc)
        if (isGroupOp(q, qpc)) async = async || live(q, qpc);
    // a lost phase explains whatever else is wrong with the state
    bad("sync.async-at-exit", !lost && allDone && async, -1);
    // deadlock
    z3::expr any = ff();
    for (const auto& t : sts_.transitions()) any = any || t.guard;
    // a blocked wait whose phase a static finding explains (underflow, tx
    // imbalance) makes the deadlock that finding's consequence: reported
    // under its rule (as sim::stateViolations does)
    z3::expr anyExplained = ff();
    std::map<std::string, z3::expr> byRule;
    for (int p = 0; p < m_.P; ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc)
        if (const Violation* v = explained(p, pc)) {
          z3::expr at = V(pc_[p]) == num(pc);
          anyExplained = anyExplained || at;
          auto it = byRule.find(v->rule);
          if (it == byRule.end()) byRule.emplace(v->rule, at);
          else it->second = it->second || at;
        }
    bad("sync.deadlock", !lost && !allDone && !any && !anyExplained, -1);
    for (const auto& [rule, at] : byRule) bad(rule, !lost && !allDone && !any && at, -1);
  }
};

}  // namespace

std::string z3ReplayTrace(const System& sys, const Trace& trace) {
  z3::context c;
  z3w::Sts sts(c);
  Flat flat(sys, c, sts);
  std::string why;
  if (!flat.build(&why)) return "unsupported: " + why;
  std::vector<z3::expr> state;
  for (int v = 0; v < sts.numVars(); ++v) state.push_back(sts.initOf(v).simplify());
  auto eval = [&](z3::expr e) {
    z3::expr_vector from(c), to(c);
    for (int v = 0; v < sts.numVars(); ++v) { from.push_back(sts.var(v)); to.push_back(state[v]); }
    return e.substitute(from, to).simplify();
  };
  std::string out;
  for (size_t i = 0; i <= trace.size(); ++i) {
    for (const auto& b : sts.bads())
      if (b.transition < 0 && eval(b.pred).is_true()) out += fmt::format("state {}: {}\n", i, b.rule);
    if (sts.stop() && eval(*sts.stop()).is_true()) out += fmt::format("state {}: stop\n", i);
    if (i == trace.size()) break;
    int t = -1;
    for (size_t k = 0; k < sts.transitions().size(); ++k)
      if (flat.steps()[sts.transitions()[k].tag] == trace[i]) t = static_cast<int>(k);
    if (t < 0) return out + fmt::format("step {} ({}) has no command\n", i, stepToString(sys, trace[i]));
    const auto& T = sts.transitions()[t];
    if (!eval(T.guard).is_true()) return out + fmt::format("step {} ({}) not enabled\n", i, stepToString(sys, trace[i]));
    for (const auto& b : sts.bads())
      if (b.transition == t && eval(b.pred).is_true()) out += fmt::format("step {} ({}): {}\n", i, stepToString(sys, trace[i]), b.rule);
    std::vector<z3::expr> next = state;
    for (const auto& [v, e] : T.updates) next[v] = eval(e);
    state = next;
  }
  return out;
}

Z3BmcResult bmcCheck(const System& sys, const Z3BmcOptions& opts) {
  Z3BmcResult out;
  ModelCheckResult& res = out.result;
  res.engine = "z3-bmc";
  auto t0 = std::chrono::steady_clock::now();
  auto finish = [&]() {
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
  if (sys.ctas > 1 || clusterExitsMatter(sys)) {  // the cluster checks (docs/semantics.md "Clusters") are the explicit engine's only
    res.outcome = Outcome::Unknown;
    res.detail = "the Z3 encoding does not model thread-block clusters (use the explicit engine)";
    return finish();
  }
  try {
    z3::context c;
    z3w::Sts sts(c);
    Flat flat(sys, c, sts);
    std::string why;
    if (!flat.build(&why)) {
      res.outcome = Outcome::Unknown;
      res.detail = "z3-bmc: unsupported: " + why;
      return finish();
    }
    out.width = static_cast<int>(flat.width());
    z3w::BmcOptions bo;
    bo.limits = opts.limits;
    bo.max_depth = opts.max_depth >= 0 ? opts.max_depth : flat.maxDepth();
    bo.violations_end_paths = true;
    bo.bit_blast = opts.bit_blast;
    bo.full_depth = opts.full_depth && opts.max_depth < 0;
    bo.tactic = opts.tactic;
    bo.dump_smt2 = opts.dump_smt2;
    bo.trace = opts.trace;
    if (opts.partial_order) bo.forbidden_adjacent = flat.commuting(sts, opts.trace);
    bo.stop_at_first = opts.stop_at_first;
    z3w::BmcResult r = z3w::bmc(sts, bo);
    out.complete = r.complete;
    out.depth = r.depth;
    out.queries = r.queries;
    for (const z3w::BmcFinding& f : r.findings) {
      Trace trace;
      for (const z3w::BmcStep& st : f.trace) trace.push_back(flat.steps()[st.tag]);
      Violation v;
      v.rule = f.rule;
      v.trace = trace;
      v.binding = sys.binding;
      if (opts.replay) {
        ReplayResult rr = replay(sys, trace);
        const Violation* confirmed = nullptr;
        for (const Violation& x : rr.violations)
          if (x.rule == f.rule) confirmed = &x;
        if (!rr.valid || !confirmed) {
          out.internal_error = true;
          out.error = fmt::format("z3-bmc trace for {} ({} steps) not confirmed by the simulator: {}", f.rule,
                                  trace.size(), rr.valid ? "the rule is not met along it" : rr.error);
          continue;
        }
        v = *confirmed;
        v.trace = trace;
        v.binding = sys.binding;
      }
      res.violations.push_back(std::move(v));
    }
    std::stable_sort(res.violations.begin(), res.violations.end(),
                     [](const Violation& x, const Violation& y) { return x.trace.size() < y.trace.size(); });
    bool finished = r.answer == z3w::Answer::Correct || r.answer == z3w::Answer::Incorrect;
    out.complete = finished && r.complete;
    // the static candidates, as explore() resolves them (an undecided search
    // cannot say every run is clean: they stay errors)
    if (!out.complete && res.violations.empty() && !flat.statics().empty()) res.violations = flat.statics();
    else resolveStatics(sys, flat.statics(), std::nullopt, res.violations, res.warnings);
    if (out.internal_error) {
      res.outcome = Outcome::Unknown;
      res.detail = "internal error: " + out.error;
    } else if (!finished) {
      // budget: the violations found so far stand, the search is undecided
      res.outcome = Outcome::Unknown;
      res.detail = "z3-bmc: " + r.reason;
      if (r.answer == z3w::Answer::Error) {
        out.internal_error = true;
        out.error = r.reason;
      }
    } else if (!res.violations.empty()) {
      res.outcome = Outcome::Violation;
    } else if (r.complete) {
      res.outcome = Outcome::Pass;
      res.detail = fmt::format("z3-bmc: every run ends within {} steps", r.depth);
    } else {
      res.outcome = Outcome::Unknown;
      res.detail = fmt::format("z3-bmc: checked up to depth {} only", r.depth);
    }
  } catch (const z3::exception& e) {
    out.internal_error = true;
    out.error = std::string("z3: ") + e.msg();
    res.outcome = Outcome::Unknown;
    res.detail = out.error;
  }
  return finish();
}

}  // namespace cake::encoder
