#include "encoder/sim_symmetry.h"

#include <algorithm>
#include <utility>

namespace cake::encoder::sim {

std::optional<SymPair> pairInModel(const Model& m, int p, int q) {
  const Process &P = m.sys.procs[p], &Q = m.sys.procs[q];
  // (the unfenced marks hold a bit per process below 31)
  if (q >= 30 || P.role != Q.role || P.cta != Q.cta || P.warps != Q.warps || m.programSize(p) != m.programSize(q))
    return std::nullopt;
  const int n = m.programSize(p);
  // The instructions, but for their atoms. A view access's data identity
  // (index, generation, laps) is read only by staleRead, for the data a
  // read finds: in atoms that no other process accesses (async ops count
  // as their issuer's accesses) that is the reader's own write or none,
  // and neither reads the identity (staleWrite: its own data is never
  // stale; no write is stale whatever it means). There the identities of
  // p's and q's accesses may differ (`smem_c[2 * lm.instance() + t % 2]`).
  std::vector<uint64_t> by(static_cast<size_t>(m.atoms), 0);  // processes accessing each atom (bit per process)
  for (int r = 0; r < m.P; ++r)
    for (int pc = 0; pc < m.programSize(r); ++pc)
      for (const AtomRange& a : m.atoms_of[r][pc])
        for (int x = a.a0; x < a.a1; ++x) by[x] |= uint64_t{1} << std::min(r, 63);
  auto privateTo = [&](int r, const AtomRange& a) {
    for (int x = a.a0; x < a.a1; ++x)
      if (by[x] != uint64_t{1} << r) return false;
    return true;
  };
  auto sameAccess = [&](const Access& x, const Access& y, int pc, size_t i) {
    if (x.write != y.write || x.proxy != y.proxy || x.async != y.async || x.view != y.view || x.hi - x.lo != y.hi - y.lo)
      return false;
    if (x.index == y.index && x.gen == y.gen && x.stage_like == y.stage_like && x.view_written == y.view_written)
      return true;
    return q < 63 && privateTo(p, m.atoms_of[p][pc][i]) && privateTo(q, m.atoms_of[q][pc][i]);
  };
  for (int pc = 0; pc < n; ++pc) {
    const Instr &a = m.instr(p, pc), &b = m.instr(q, pc);
    if (a.kind != b.kind || a.stmt != b.stmt || a.derived != b.derived || a.slot != b.slot || a.phase != b.phase ||
        a.count != b.count || a.bytes != b.bytes || a.pending != b.pending || a.named != b.named ||
        a.grid_dep_early != b.grid_dep_early || a.regs_hazard.regs_space >= 0 || b.regs_hazard.regs_space >= 0 ||
        a.iteration != b.iteration || a.loops != b.loops || a.accesses.size() != b.accesses.size())
      return std::nullopt;
    for (size_t i = 0; i < a.accesses.size(); ++i) {
      if (!sameAccess(a.accesses[i], b.accesses[i], pc, i)) return std::nullopt;
      if ((m.write_id[p][pc][i] >= 0) != (m.write_id[q][pc][i] >= 0)) return std::nullopt;
    }
  }
  // The involution of the atoms: p's range at a pc onto q's (disjoint,
  // as long), identity elsewhere.
  std::vector<int32_t> beta(static_cast<size_t>(m.atoms));
  for (int x = 0; x < m.atoms; ++x) beta[x] = x;
  auto pairAtoms = [&](int x, int y) {
    if (beta[x] == y && beta[y] == x) return true;
    if (beta[x] != x || beta[y] != y) return false;
    beta[x] = y;
    beta[y] = x;
    return true;
  };
  for (int pc = 0; pc < n; ++pc)
    for (size_t i = 0; i < m.atoms_of[p][pc].size(); ++i) {
      const AtomRange &r = m.atoms_of[p][pc][i], &t = m.atoms_of[q][pc][i];
      if (r.a0 == t.a0 && r.a1 == t.a1) continue;
      if (r.a1 - r.a0 != t.a1 - t.a0 || r.overlaps(t)) return std::nullopt;
      for (int k = 0; k < r.a1 - r.a0; ++k)
        if (!pairAtoms(r.a0 + k, t.a0 + k)) return std::nullopt;
    }
  // beta maps every access of p onto q's (and q's onto p's: an
  // involution) and every access of another process onto itself, as sets
  // of atoms (beta is a bijection: into a range as long is onto it), and
  // keeps which atoms are tracked.
  auto onto = [&](const AtomRange& from, const AtomRange& to) {
    if (from.a1 - from.a0 != to.a1 - to.a0) return false;
    for (int x = from.a0; x < from.a1; ++x)
      if (beta[x] < to.a0 || beta[x] >= to.a1) return false;
    return true;
  };
  for (int r = 0; r < m.P; ++r)
    for (int pc = 0; pc < m.programSize(r); ++pc)
      for (size_t i = 0; i < m.atoms_of[r][pc].size(); ++i) {
        const AtomRange& from = m.atoms_of[r][pc][i];
        const int image = r == p ? q : r == q ? p : r;
        if (!onto(from, m.atoms_of[image][pc][i])) return std::nullopt;
      }
  for (int x = 0; x < m.atoms; ++x)
    if ((m.tracked_of[x] >= 0) != (m.tracked_of[beta[x]] >= 0)) return std::nullopt;
  // The model's own tables per process: control flow and commit counts.
  auto same = [&](const auto& v) { return v.empty() || v[p] == v[q]; };
  if (!same(m.flow.next) || !same(m.flow.prev) || !same(m.commit_seq) || !same(m.commits_before) ||
      !same(m.ordinal_commits))
    return std::nullopt;
  // How the state moves.
  SymPair sp;
  sp.p = p;
  sp.q = q;
  sp.tracked.assign(static_cast<size_t>(m.tracked), -1);
  for (int x = 0; x < m.atoms; ++x)
    if (m.tracked_of[x] >= 0) sp.tracked[m.tracked_of[x]] = m.tracked_of[beta[x]];
  sp.write.resize(m.writes.size());
  for (size_t id = 0; id < m.writes.size(); ++id) {
    const Model::WriteRef& w = m.writes[id];
    sp.write[id] = w.proc == p || w.proc == q ? m.write_id[w.proc == p ? q : p][w.pc][w.acc] : static_cast<int>(id);
  }
  return sp;
}

State swapPair(const Model& m, const State& s, const SymPair& sp, const std::vector<int32_t>* canon) {
  const int p = sp.p, q = sp.q;
  State n = s;
  for (int off : {m.off_pc, m.off_sgen, m.off_obs}) std::swap(n.v[off + p], n.v[off + q]);
  const int32_t bp = int32_t{1} << p, bq = int32_t{1} << q;
  auto bits = [&](int32_t x) { return (x & ~(bp | bq)) | ((x & bp) ? bq : 0) | ((x & bq) ? bp : 0); };
  for (int t = 0; t < m.tracked; ++t) {
    const int to = sp.tracked[t];
    const int32_t d = s.v[atomField(m, t, kData)];
    n.v[atomField(m, to, kData)] = d < 0 ? d : canon ? (*canon)[sp.write[d]] : sp.write[d];
    n.v[atomField(m, to, kUnfencedWrites)] = bits(s.v[atomField(m, t, kUnfencedWrites)]);
    n.v[atomField(m, to, kUnfencedReads)] = bits(s.v[atomField(m, t, kUnfencedReads)]);
  }
  Async a = decodeAsync(m, s);
  auto other = [&](int32_t x) { return x == p ? q : x == q ? p : x; };
  for (Load& l : a.loads) l.proc = other(l.proc);
  for (int k = 0; k < kGroupKinds; ++k) std::swap(a.of(p, k), a.of(q, k));
  for (Unobserved& x : a.unobserved)
    if (x.proc >= 0) x.proc = other(x.proc);
  encodeAsync(m, n, a);
  return n;
}

std::vector<SymPair> interchangeablePairs(const Model& m, const std::function<bool(const SymPair&)>& tables_agree) {
  std::vector<SymPair> out;
  std::vector<char> paired(static_cast<size_t>(m.P), 0);
  for (int p = 0; p < m.P; ++p)
    for (int q = p + 1; q < m.P && !paired[p]; ++q) {
      if (paired[q]) continue;
      std::optional<SymPair> sp = pairInModel(m, p, q);
      if (!sp || (tables_agree && !tables_agree(*sp))) continue;
      out.push_back(std::move(*sp));
      paired[p] = paired[q] = 1;
    }
  return out;
}

uint32_t canonicalUnderPairs(const Model& m, const std::vector<SymPair>& pairs, State& s) {
  uint32_t applied = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    State t = swapPair(m, s, pairs[i], nullptr);
    if (t.v < s.v) {
      s.v.swap(t.v);
      applied |= uint32_t{1} << i;
    }
  }
  return applied;
}

int imageOf(const std::vector<SymPair>& pairs, uint32_t mask, int proc) {
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!(mask >> i & 1)) continue;
    if (proc == pairs[i].p) return pairs[i].q;
    if (proc == pairs[i].q) return pairs[i].p;
  }
  return proc;
}

}  // namespace cake::encoder::sim
