// TMEM accumulator hazards, decided on one run (encoder/tmem_values.h;
// docs/rules/data.stale-accumulator.md "TMEM").
#include "encoder/tmem_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "encoder/sim_model.h"

namespace cake::encoder {

namespace {

// What an atom of TMEM holds at a point of the run.
struct TmemAtomValue {
  bool written = false;         // some write reached it (or an empty loop's body would have)
  bool unread_product = false;  // a value (an MMA product, a tcgen05.st's) no op has read since
  int64_t read_step = -1;       // the step of the last read since the last overwrite, -1: none
  int read_pc = -1;             // the last read (the note of a stale accumulation)
  int product_pc = -1;          // the write of the unread value (the note of a lost one)
  int product_proc = -1;        // its process
  // The last write (process, step), and the one whose value the last read
  // saw: a write and a read of the atom conflict, so their order is the
  // barriers' and the same on every run (unlike a read and another
  // process's loop start, which nothing orders).
  int write_proc = -1;
  int64_t write_step = -1;
  int read_write_proc = -1;
  int64_t read_write_step = -1;
};

// The run's order of accesses is the barriers' only up to its first
// synchronization violation.
bool isSyncViolation(const Violation& v) { return v.rule.rfind("sync.", 0) == 0; }

class TmemRun {
 public:
  TmemRun(System& sys, const TmemBuildFacts& facts) : sys_(sys), facts_(facts), m_(sys) {}

  void run() {
    summarize();
    values_.assign(static_cast<size_t>(m_.atoms), {});
    exec_step_.resize(static_cast<size_t>(m_.P));
    for (int p = 0; p < m_.P; ++p) exec_step_[p].assign(static_cast<size_t>(m_.programSize(p)), -1);
    sim::State s = sim::initialState(m_);
    std::vector<Violation> found;
    for (int64_t step = 0;; ++step) {
      const sim::Async a = sim::decodeAsync(m_, s);
      const std::vector<Step> steps = sim::enabledSteps(m_, s, a);
      if (steps.empty()) break;
      const Step st = steps.front();
      found.clear();
      sim::applyStep(m_, s, a, st, found, nullptr);
      if (std::any_of(found.begin(), found.end(), isSyncViolation)) break;
      if (st.kind != Step::Kind::Exec) continue;
      exec_step_[st.proc][st.pc] = step;
      observe(st.proc, st.pc, step);
    }
    // marked after the run: the model reads the system while it runs
    for (const auto& [where, h] : hazards_) sys_.procs[where.first].program[where.second].regs_hazard = h;
  }

 private:
  System& sys_;
  const TmemBuildFacts& facts_;
  sim::Model m_;
  std::vector<TmemAtomValue> values_;
  std::vector<std::vector<int64_t>> exec_step_;
  std::vector<char> ever_read_, operand_read_, skipped_;
  std::map<std::pair<int, int>, Instr::RegsHazard> hazards_;

  bool isTmem(const Access& a) const { return sys_.spaces[a.space].kind == MemSpace::Kind::Tmem; }
  bool accumulates(int p, int pc) const { return facts_.accumulating.count({p, pc}) > 0; }

  // Per atom, over the whole system: some op reads it (its value is used:
  // data.discarded-product stays silent on columns nothing reads, as on a
  // fragment no op reads), an MMA reads it as an operand (a TMEM A
  // operand: P, dS, a state input staged there for the tensor core), an
  // empty loop's body writes it.
  void summarize() {
    ever_read_.assign(static_cast<size_t>(m_.atoms), 0);
    operand_read_.assign(static_cast<size_t>(m_.atoms), 0);
    skipped_.assign(static_cast<size_t>(m_.atoms), 0);
    for (int p = 0; p < m_.P; ++p)
      for (int pc = 0; pc < m_.programSize(p); ++pc) {
        const Instr& in = m_.instr(p, pc);
        for (size_t i = 0; i < in.accesses.size(); ++i) {
          if (!isTmem(in.accesses[i]) || in.accesses[i].write) continue;
          const sim::AtomRange& r = m_.atoms_of[p][pc][i];
          for (int x = r.a0; x < r.a1; ++x) {
            ever_read_[x] = 1;
            if (in.kind == InstrKind::Mma) operand_read_[x] = 1;
          }
        }
      }
    for (int x = 0; x < m_.atoms; ++x)
      for (const TmemBuildFacts::Skipped& k : facts_.skipped) {
        const int64_t base = m_.atom_lo[x] / kTmemQuarterStride * kTmemQuarterStride;
        if (m_.atom_space[x] == k.space && m_.atom_lo[x] - base < k.c1 && k.c0 < m_.atom_hi[x] - base) skipped_[x] = 1;
      }
  }

  // "tmem_acc lanes [0, 32) columns [64, 96)": the part of access a in atom x
  std::string atomName(const Access& a, int x) const {
    const int64_t lo = std::max(a.lo, m_.atom_lo[x]), hi = std::min(a.hi, m_.atom_hi[x]);
    const int64_t q = lo / kTmemQuarterStride;
    return fmt::format("{} lanes [{}, {}) columns [{}, {})", a.what.substr(0, a.what.find(" lanes [")), 32 * q,
                       32 * q + 32, lo - q * kTmemQuarterStride, hi - q * kTmemQuarterStride);
  }

  void mark(int p, int pc, Instr::RegsHazard h) {
    if (m_.instr(p, pc).regs_hazard.regs_space >= 0) return;  // a register hazard of its own comes first
    hazards_.try_emplace({p, pc}, std::move(h));
  }

  Instr::RegsHazard hazard(const Access& a, int x) const {
    Instr::RegsHazard h;
    h.regs_space = a.space;
    h.element = m_.atom_lo[x];
    h.what = atomName(a, x);
    return h;
  }

  // The exec step of the first instruction of the current run of the
  // innermost loop around program[pc] (-1: no loop): the instructions
  // before pc with the same values of the outer loops inside that loop.
  int64_t loopRunStart(int p, int pc) const {
    const auto& loops = m_.instr(p, pc).loops;
    if (loops.empty()) return -1;
    const size_t depth = loops.size();
    auto sameRun = [&](const Instr& in) {
      return in.loops.size() >= depth && in.loops[depth - 1].first == loops[depth - 1].first &&
             std::equal(loops.begin(), loops.end() - 1, in.loops.begin());
    };
    int first = pc;
    while (first > 0 && sameRun(m_.instr(p, first - 1))) --first;
    return exec_step_[p][first];
  }

  // The instruction's reads, then its writes, each atom once: an atom may
  // stand for columns of several lane quarters, which are one access each.
  void observe(int p, int pc, int64_t step) {
    const Instr& in = m_.instr(p, pc);
    for (const bool writes : {false, true}) {
      std::set<int> done;
      for (size_t i = 0; i < in.accesses.size(); ++i) {
        const Access& a = in.accesses[i];
        if (a.write != writes || !isTmem(a)) continue;
        const sim::AtomRange& r = m_.atoms_of[p][pc][i];
        for (int x = r.a0; x < r.a1; ++x) {
          if (!done.insert(x).second) continue;
          if (!writes)
            read(p, pc, a, x, step);
          else if (accumulates(p, pc))
            accumulate(p, pc, a, x);
          else
            overwrite(p, pc, a, x);
          if (writes) {
            values_[x].write_proc = p;
            values_[x].write_step = step;
          }
        }
      }
    }
  }

  bool undefined(int x) const { return !values_[x].written && !skipped_[x]; }

  // A read of the columns (a tcgen05.ld, a copy from TMEM, an MMA operand).
  void read(int p, int pc, const Access& a, int x, int64_t step) {
    TmemAtomValue& v = values_[x];
    if (undefined(x)) mark(p, pc, hazard(a, x));
    v.read_step = step;
    v.read_pc = pc;
    v.read_write_proc = v.write_proc;
    v.read_write_step = v.write_step;
    v.unread_product = false;
  }

  // Whether the last read of the atom saw a value this MMA's process wrote
  // during the current run of the MMA's innermost loop: a running state
  // read as it goes (a chunked scan), as the register rule's store inside
  // the same loop. Decided on the write the read saw, not on when the read
  // ran: a read and the loop's start in another process are not ordered
  // (the MMA warp may enter its next tile's K loop before or after the
  // epilogue's tcgen05.ld), a read and the write it sees are.
  bool readWithinLoopRun(const TmemAtomValue& v, int p, int64_t run_start) const {
    return v.read_write_proc == p && v.read_write_step >= run_start;
  }

  // An MMA adding its product to the columns (init= false or absent): they
  // must be defined (data.uninitialized), and must not hold a result that
  // was read out and was not written during the current run of the MMA's
  // innermost loop (data.stale-accumulator: the previous tile's).
  void accumulate(int p, int pc, const Access& a, int x) {
    TmemAtomValue& v = values_[x];
    const int64_t run_start = loopRunStart(p, pc);
    if (undefined(x)) {
      Instr::RegsHazard h = hazard(a, x);
      h.accumulates = true;
      mark(p, pc, std::move(h));
    } else if (v.read_step >= 0 && run_start >= 0 && !readWithinLoopRun(v, p, run_start)) {
      Instr::RegsHazard h = hazard(a, x);
      h.accumulates = h.stored = true;
      h.stored_at = v.read_pc;
      mark(p, pc, std::move(h));
    }
    v.written = v.unread_product = true;
    v.product_pc = pc;
    v.product_proc = p;
  }

  // An MMA with init= true, a tcgen05.st or a copy into the columns: a new
  // value. One that no op read is lost (data.discarded-product): an MMA
  // product, and a tile a tcgen05.st or a copy staged in columns an MMA reads
  // as its A operand (a dS tile for the dK MMA, clobbered by an MMA that
  // reuses its columns first: facebookexperimental/triton PR #1851). A value
  // stored into columns only tcgen05.ld reads (a rescale written back that
  // nothing reads again) is a wasted store, not a wrong result: not judged.
  // Writes and reads of one column conflict, so the barriers order them and
  // the verdict is the same on every run.
  bool judged(const TmemAtomValue& v, int x) const {
    if (!v.unread_product || !ever_read_[x]) return false;
    return m_.instr(v.product_proc, v.product_pc).kind == InstrKind::Mma || operand_read_[x];
  }

  void overwrite(int p, int pc, const Access& a, int x) {
    TmemAtomValue& v = values_[x];
    if (judged(v, x)) {
      Instr::RegsHazard h = hazard(a, x);
      h.discarded = true;
      h.stored_at = v.product_pc;
      h.stored = m_.instr(v.product_proc, v.product_pc).kind != InstrKind::Mma;  // a staged tile, not a product
      mark(p, pc, std::move(h));
    }
    v = {};
    v.written = v.unread_product = true;
    v.product_pc = pc;
    v.product_proc = p;
  }
};

// A system with no TMEM access has nothing to follow: one of a schedule
// without lm.tmem (no TMEM space, decided without reading the programs),
// or one whose ops reach no TMEM for these parameter values. One that reads
// TMEM but writes none (a K = 0 group whose MMAs all sit in loops or
// branches that do not run) is run too: its reads are data.uninitialized
// unless an empty loop's body counts as writing them.
bool touchesTmem(const System& sys) {
  if (std::none_of(sys.spaces.begin(), sys.spaces.end(),
                   [](const MemSpace& m) { return m.kind == MemSpace::Kind::Tmem; }))
    return false;
  for (const Process& p : sys.procs)
    for (const Instr& in : p.program)
      for (const Access& a : in.accesses)
        if (sys.spaces[a.space].kind == MemSpace::Kind::Tmem) return true;
  return false;
}

}  // namespace

void markTmemHazards(System& sys, const TmemBuildFacts& facts) {
  if (!touchesTmem(sys)) return;
  TmemRun(sys, facts).run();
}

}  // namespace cake::encoder
