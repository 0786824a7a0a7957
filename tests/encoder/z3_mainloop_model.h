// A hand-built symbolic model of the standard warp-specialized Hopper
// mainloop (IR.md semantics), used to show that Spacer can prove the
// pipeline invariants for every trip count before the generic encoder
// exists, and as a regression for the prover:
//
//   producer (1 instance):      consumers (NC instances):
//   for k in range(0, T):        for k in range(0, T):
//     wait(empty, iter=k-S)        wait(full, iter=k)
//     expect_tx(full, iter=k)      mma(acc, a[k], b[k]); commit
//     a.tma_load(iter=k, full)     mma_wait(0)
//     b.tma_load(iter=k, full)     arrive(empty, iter=k)
//
// Bugs can be switched on to check that the prover does not prove them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "encoder/z3_sts.h"

namespace cake::encoder::testing {

struct MainloopBugs {
  int producer_wait_offset = -1;  // -1: k - S (correct); else k - this
  bool consumer_skip_mma_wait = false;
  int empty_init_count = -1;      // -1: NC (correct)
  int consumer_arrive_offset = 0; // arrive(empty, iter=k + this)
  // Model reductions for prover experiments (not bugs): drop data
  // identity (stale-read) or transaction bytes.
  bool no_data = false;
  bool no_tx = false;
};

// linear = false: loop counters are integers, slots and phases are k % S and
// k / S, a wait passes on parity — the literal semantics (what BMC uses).
//
// linear = true: the form Spacer can prove. (1) Each loop counter k is kept
// as a lap q and a slot r (k == S q + r, 0 <= r < S), updated incrementally,
// so no state formula needs mod or div: the slot/phase of k + off is a
// constant/linear case split on r. (2) A wait passes only on the phase it
// means (c == n + 1); passing on parity at any other phase is a bad state of
// its own (sync.stale-phase). The two systems reach the same bad states:
// they agree up to the first stale pass, which is bad in both.
inline void buildMainloop(z3w::Sts& m, int S, int NC, MainloopBugs bugs = {}, bool linear = false) {
  z3::context& c = m.ctx();
  const int BYTES_A = 16384, BYTES_B = 16384;
  const int initFull = 1, initEmpty = bugs.empty_init_count < 0 ? NC : bugs.empty_init_count;
  const int waitOff = bugs.producer_wait_offset < 0 ? S : bugs.producer_wait_offset;
  z3::expr K = m.param("K");
  z3::expr T = m.param("T");
  m.assume(K >= 0);
  m.assume(64 * T >= K && 64 * T - 64 < K);  // T == cdiv(K, 64)
  auto V = [&](int i) { return m.var(i); };
  auto fdiv = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  auto fmod = [&](int a, int b) { return a - b * fdiv(a, b); };

  // A loop counter: k (literal) or (q, r) (linear).
  struct Ctr { int k = -1, q = -1, r = -1; };
  auto mkCtr = [&](const std::string& n) {
    Ctr x;
    if (linear) { x.q = m.addInt(n + ".q", 0); x.r = m.addInt(n + ".r", 0); }
    else x.k = m.addInt(n, 0);
    return x;
  };
  auto kval = [&](const Ctr& x) { return linear ? S * V(x.q) + V(x.r) : V(x.k); };
  auto inc = [&](const Ctr& x, std::vector<std::pair<int, z3::expr>>& u) {
    if (!linear) { u.push_back({x.k, V(x.k) + 1}); return; }
    z3::expr wrap = V(x.r) == S - 1;
    u.push_back({x.r, z3::ite(wrap, c.int_val(0), V(x.r) + 1)});
    u.push_back({x.q, z3::ite(wrap, V(x.q) + 1, V(x.q))});
  };
  // The cases of "k + off": guard, slot, lap (phase number).
  struct Case { z3::expr g; int slot; z3::expr lap; };
  auto cases = [&](const Ctr& x, int off) {
    std::vector<Case> out;
    for (int v = 0; v < S; ++v) {
      if (linear) {
        out.push_back({V(x.r) == v, fmod(v + off, S), V(x.q) + fdiv(v + off, S)});
      } else {
        z3::expr e = V(x.k) + off;
        out.push_back({z3::mod(e, S) == v, v, z3::ite(e >= 0, e / S, -((-e + S - 1) / S))});
      }
    }
    return out;
  };

  int pcP = m.addInt("pcP", 0);
  Ctr kP = mkCtr("kP");
  std::vector<int> pcC, grp, gslot;
  std::vector<Ctr> kC;
  for (int i = 0; i < NC; ++i) {
    pcC.push_back(m.addInt("pcC" + std::to_string(i), 0));
    kC.push_back(mkCtr("kC" + std::to_string(i)));
    grp.push_back(m.addInt("grp" + std::to_string(i), 0));
    gslot.push_back(m.addInt("gslot" + std::to_string(i), 0));
  }
  std::vector<int> cf, af, txf, ce, ae, inA, inB, itA, itB, dA, dB;
  for (int s = 0; s < S; ++s) {
    std::string n = std::to_string(s);
    cf.push_back(m.addInt("cf" + n, 0));
    af.push_back(m.addInt("af" + n, 0));
    txf.push_back(m.addInt("txf" + n, 0));
    ce.push_back(m.addInt("ce" + n, 0));
    ae.push_back(m.addInt("ae" + n, 0));
    inA.push_back(m.addBool("inA" + n, false));
    inB.push_back(m.addBool("inB" + n, false));
    itA.push_back(m.addInt("itA" + n, 0));
    itB.push_back(m.addInt("itB" + n, 0));
    dA.push_back(m.addInt("dA" + n, -1));
    dB.push_back(m.addInt("dB" + n, -1));
  }
  auto tr = [&](std::string name, z3::expr g, std::vector<std::pair<int, z3::expr>> u) {
    z3w::Sts::Transition t{name, -1, g, std::move(u), {}};
    return m.addTransition(std::move(t));
  };
  auto bad = [&](std::string rule, z3::expr pred, int t = -1, std::vector<z3::expr> locals = {}) {
    z3w::Sts::Bad b{rule, -1, pred, std::move(locals), t};
    m.addBad(std::move(b));
  };
  // arrival on a barrier slot with `addTx` more bytes expected
  auto arriveUpd = [&](std::vector<std::pair<int, z3::expr>>& u, int cnt, int arr, int tx, int init, z3::expr addTx) {
    z3::expr na = V(arr) + 1, nt = tx >= 0 ? V(tx) + addTx : addTx;
    z3::expr done = na == init && nt == 0;
    u.push_back({arr, z3::ite(done, c.int_val(0), na)});
    if (tx >= 0) u.push_back({tx, z3::ite(done, c.int_val(0), nt)});
    u.push_back({cnt, z3::ite(done, V(cnt) + 1, V(cnt))});
  };
  // wait(b, iter=k+off) on slots whose completed-phase counts are `cnt`
  auto waitTr = [&](std::string name, z3::expr at, const Ctr& x, int off, const std::vector<int>& cnt,
                    std::vector<std::pair<int, z3::expr>> u) {
    for (const Case& cs : cases(x, off)) {
      z3::expr here = at && cs.g;
      tr(name + ".neg", here && cs.lap < 0, u);
      z3::expr cn = V(cnt[cs.slot]);
      if (!linear) {
        z3::expr g = here && cs.lap >= 0 && z3::mod(cn, 2) != z3::mod(cs.lap, 2);
        int t = tr(name + std::to_string(cs.slot), g, u);
        bad("sync.stale-phase", g && cn != cs.lap + 1, t);
      } else {
        tr(name + std::to_string(cs.slot), here && cs.lap >= 0 && cn == cs.lap + 1, u);
        z3::expr j = m.local("j");
        bad("sync.stale-phase", here && cs.lap >= 0 && cn != cs.lap + 1 && cn - cs.lap - 1 == 2 * j, -1, {j});
      }
    }
  };
  auto readers = [&](int s) {
    z3::expr r = c.bool_val(false);
    for (int i = 0; i < NC; ++i) r = r || (V(grp[i]) != 0 && V(gslot[i]) == s);
    return r;
  };

  // ---- producer
  tr("P.head", V(pcP) == 0 && kval(kP) < T, {{pcP, c.int_val(1)}});
  tr("P.exit", V(pcP) == 0 && kval(kP) >= T, {{pcP, c.int_val(5)}});
  waitTr("P.wait.empty", V(pcP) == 1, kP, -waitOff, ce, {{pcP, c.int_val(2)}});
  for (const Case& cs : cases(kP, 0)) {
    int s = cs.slot;
    z3::expr g = V(pcP) == 2 && cs.g;
    std::vector<std::pair<int, z3::expr>> u{{pcP, c.int_val(3)}};
    arriveUpd(u, cf[s], af[s], txf[s], initFull, c.int_val(bugs.no_tx ? 0 : BYTES_A + BYTES_B));
    int t = tr("P.expect_tx" + std::to_string(s), g, u);
    bad("sync.arrival-overflow", g && V(af[s]) + 1 > initFull, t);
  }
  for (const Case& cs : cases(kP, 0)) {
    int s = cs.slot;
    z3::expr g = V(pcP) == 3 && cs.g;
    std::vector<std::pair<int, z3::expr>> ua{{pcP, c.int_val(4)}, {inA[s], c.bool_val(true)}};
    if (!bugs.no_data) ua.push_back({itA[s], kval(kP)});
    int t = tr("P.load_a" + std::to_string(s), g, ua);
    bad("sync.race", g && (V(inA[s]) || readers(s)), t);
  }
  for (const Case& cs : cases(kP, 0)) {
    int s = cs.slot;
    z3::expr g = V(pcP) == 4 && cs.g;
    std::vector<std::pair<int, z3::expr>> u{{pcP, c.int_val(0)}, {inB[s], c.bool_val(true)}};
    if (!bugs.no_data) u.push_back({itB[s], kval(kP)});
    inc(kP, u);
    int t = tr("P.load_b" + std::to_string(s), g, u);
    bad("sync.race", g && (V(inB[s]) || readers(s)), t);
  }
  // ---- TMA completions (complete_tx on full slot s: the view and the
  // barrier have the same number of slots here)
  for (int s = 0; s < S; ++s) {
    for (int which = 0; which < 2; ++which) {
      int in = which ? inB[s] : inA[s], it = which ? itB[s] : itA[s], d = which ? dB[s] : dA[s];
      int bytes = bugs.no_tx ? 0 : (which ? BYTES_B : BYTES_A);
      z3::expr nt = V(txf[s]) - bytes;
      z3::expr done = V(af[s]) == initFull && nt == 0;
      std::vector<std::pair<int, z3::expr>> tu{{in, c.bool_val(false)}};
      if (!bugs.no_data) tu.push_back({d, V(it)});
      for (auto& x : std::vector<std::pair<int, z3::expr>>{
          {txf[s], z3::ite(done, c.int_val(0), nt)},
          {af[s], z3::ite(done, c.int_val(0), V(af[s]))},
          {cf[s], z3::ite(done, V(cf[s]) + 1, V(cf[s]))}})
        tu.push_back(x);
      tr(std::string("tma.") + (which ? "b" : "a") + std::to_string(s), V(in), tu);
    }
  }
  // ---- consumers
  for (int i = 0; i < NC; ++i) {
    std::string n = "C" + std::to_string(i);
    z3::expr pc = V(pcC[i]), k = kval(kC[i]);
    tr(n + ".head", pc == 0 && k < T, {{pcC[i], c.int_val(1)}});
    tr(n + ".exit", pc == 0 && k >= T, {{pcC[i], c.int_val(6)}});
    waitTr(n + ".wait.full", pc == 1, kC[i], 0, cf, {{pcC[i], c.int_val(2)}});
    for (const Case& cs : cases(kC[i], 0)) {
      int s = cs.slot;
      z3::expr g = pc == 2 && cs.g;
      int t = tr(n + ".mma" + std::to_string(s), g, {{pcC[i], c.int_val(3)}, {grp[i], c.int_val(1)}, {gslot[i], c.int_val(s)}});
      bad("sync.race", g && (V(inA[s]) || V(inB[s])), t);
      if (!bugs.no_data) bad("data.stale-read", g && !(V(inA[s]) || V(inB[s])) && (V(dA[s]) != k || V(dB[s]) != k), t);
    }
    tr(n + ".commit", pc == 3, {{pcC[i], c.int_val(4)}, {grp[i], c.int_val(2)}});
    tr(n + ".mma.done", V(grp[i]) == 2, {{grp[i], c.int_val(0)}});
    if (bugs.consumer_skip_mma_wait) tr(n + ".mma_wait", pc == 4, {{pcC[i], c.int_val(5)}});
    else tr(n + ".mma_wait", pc == 4 && V(grp[i]) != 2, {{pcC[i], c.int_val(5)}});
    for (const Case& cs : cases(kC[i], bugs.consumer_arrive_offset)) {
      int s = cs.slot;
      z3::expr g = pc == 5 && cs.g;
      std::vector<std::pair<int, z3::expr>> u{{pcC[i], c.int_val(0)}};
      inc(kC[i], u);
      arriveUpd(u, ce[s], ae[s], -1, initEmpty, c.int_val(0));
      int t = tr(n + ".arrive.empty" + std::to_string(s), g, u);
      bad("sync.race", g && readers(s), t);
      bad("sync.arrival-overflow", g && V(ae[s]) + 1 > initEmpty, t);
    }
  }
  // ---- deadlock and async work at exit
  z3::expr allDone = V(pcP) == 5;
  for (int i = 0; i < NC; ++i) allDone = allDone && V(pcC[i]) == 6;
  z3::expr anyEnabled = c.bool_val(false);
  for (const auto& t : m.transitions()) anyEnabled = anyEnabled || t.guard;
  bad("sync.deadlock", !allDone && !anyEnabled);
  z3::expr async = c.bool_val(false);
  for (int s = 0; s < S; ++s) async = async || V(inA[s]) || V(inB[s]);
  for (int i = 0; i < NC; ++i) async = async || V(grp[i]) != 0;
  bad("sync.async-at-exit", allDone && async);
}

}  // namespace cake::encoder::testing
