// Thread-block clusters in lap induction (trip_cluster.h, docs/z3.md
// "Clusters").
#include "encoder/trip_cluster.h"

#include "encoder/empty_loop_sizes.h"

#include <fmt/format.h>

#include <utility>

namespace cake::encoder::trip {

namespace {
// The semantics every buildForProof of this thread builds with, and the
// proof's question about empty loops (a proof runs on one thread: its
// builds are nested in proveEveryTripCount's call).
thread_local BuildSemantics proof_semantics;
thread_local EmptyLoopSizesAsk proof_ask;
}  // namespace

ScopedProofSemantics::ScopedProofSemantics(const BuildSemantics& sem, EmptyLoopSizesAsk ask)
    : prev_(proof_semantics), prev_ask_(std::exchange(proof_ask, std::move(ask))) {
  proof_semantics = sem;
}
ScopedProofSemantics::~ScopedProofSemantics() {
  proof_semantics = prev_;
  proof_ask = std::move(prev_ask_);
}
const BuildSemantics& proofSemantics() { return proof_semantics; }
ScopedReadCaps::ScopedReadCaps(bool caps) : prev_(std::exchange(proof_semantics.cap_read_generations, caps)) {}
ScopedReadCaps::~ScopedReadCaps() { proof_semantics.cap_read_generations = prev_; }
ScopedRegsDigests::ScopedRegsDigests() : prev_(std::exchange(proof_semantics.regs_digests, true)) {}
ScopedRegsDigests::~ScopedRegsDigests() { proof_semantics.regs_digests = prev_; }

namespace {
std::optional<System> buildWithSizes(const ir::Schedule& s, const Binding& b, ir::Target target, std::string* error,
                                     const EvalHook* extra, ReplacedEmptyLoops& sizes);

// Whether two builds of one binding mark the same hazards (the builds
// differ at most in the writes an empty loop counts).
bool sameHazards(const System& a, const System& b) {
  if (a.procs.size() != b.procs.size()) return false;
  for (size_t p = 0; p < a.procs.size(); ++p) {
    const std::vector<Instr>& x = a.procs[p].program;
    const std::vector<Instr>& y = b.procs[p].program;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].kind != y[i].kind || !(x[i].regs_hazard == y[i].regs_hazard)) return false;
  }
  return true;
}

}  // namespace

// A loop the replaced expression leaves empty writes its body only where
// every binding with that value is at a degenerate size
// (empty_loop_sizes.h): built first as writing nothing; where a loop was
// left so, it is built again as writing its body, and where both mark the
// same hazards (the loop's writes are read nowhere) the one system stands
// for every binding. Else the sizes are asked (the proof's
// EmptyLoopSizesAsk, ScopedProofSemantics):
// all degenerate or all positive sizes pick the build; both kinds, or not
// known: no system (the proof is refused, docs/z3.md "Soundness review,
// session 33").
std::optional<System> buildForProof(const ir::Schedule& s, const Binding& b, ir::Target target, std::string* error,
                                    const EvalHook* extra) {
  ReplacedEmptyLoops nothing{EmptyLoopSizes::Undecided};
  std::optional<System> writing_nothing = buildWithSizes(s, b, target, error, extra, nothing);
  if (!writing_nothing || !nothing.undecided_met || !b.replace) return writing_nothing;
  ReplacedEmptyLoops body{EmptyLoopSizes::Degenerate};
  std::optional<System> writing_body = buildWithSizes(s, b, target, error, extra, body);
  if (!writing_body || sameHazards(*writing_nothing, *writing_body)) return writing_nothing;
  switch (proof_ask ? proof_ask(s, *b.replace, b.replace_value) : EmptyLoopSizes::Undecided) {
    case EmptyLoopSizes::Positive: return writing_nothing;
    case EmptyLoopSizes::Degenerate: return writing_body;
    case EmptyLoopSizes::Undecided: break;
  }
  if (error)
    *error = fmt::format("a loop is empty where {} is {}, whose writes a later read meets, and the allowed bindings "
                         "with that value are not shown to be all at a zero or negative size or all at positive "
                         "sizes (an empty loop writes its body only at the former: data.uninitialized)",
                         ir::exprToString(*b.replace, s), b.replace_value);
  return std::nullopt;
}

namespace {
std::optional<System> buildWithSizes(const ir::Schedule& s, const Binding& b, ir::Target target, std::string* error,
                                     const EvalHook* extra, ReplacedEmptyLoops& sizes) {
  // The builder models every CTA of the cluster exactly when the schedule
  // reaches across it (system.cpp makeCluster); only then is a CTA's block
  // index cluster[d] * b + c_d.
  const bool modelled = s.cluster_ops && s.clusterSize() > 1;
  BuildSemantics sem = proof_semantics;
  sem.translate_block_coords = true;  // a proof's build (system_hook.h)
  sem.translate_loop_coords = true;
  const bool capped = sem.cap_read_generations;
  if (!modelled) {
    if (extra) return buildSystemHooked(s, b, target, *extra, error, sem, &sizes);
    if (!capped) {
      const EvalHook none = [](const ir::Expr&, const ir::EvalEnv&) -> std::optional<int64_t> { return std::nullopt; };
      return buildSystemHooked(s, b, target, none, error, sem, &sizes);
    }
    return buildSystemHooked(s, b, target, EvalHook{}, error, sem, &sizes);  // (no hook: buildSystem's evaluation)
  }
  const EvalHook hook = [&](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
    if (extra)
      if (auto v = (*extra)(e, env)) return v;
    if (e.kind != ir::ExprKind::Mod || e.args.size() != 2 || !e.args[0] || !e.args[1]) return std::nullopt;
    const ir::Expr& x = *e.args[0];
    const ir::Expr& m = *e.args[1];
    if (x.kind != ir::ExprKind::BlockIdx || m.kind != ir::ExprKind::Const || x.index < 0 || x.index > 2)
      return std::nullopt;
    const int64_t dim = s.cluster[x.index];
    const std::optional<int64_t> bidx = env.block_idx[x.index];
    if (m.value != dim || dim < 1 || !bidx || *bidx < 0) return std::nullopt;
    return *bidx % dim;  // c_d: the same for every binding's block index
  };
  return buildSystemHooked(s, b, target, hook, error, sem, &sizes);
}
}  // namespace

bool ctasShareOnlyTheClusterBarrier(const System& sys) {
  if (sys.ctas <= 1 || sys.named_per_cta < 0) return false;
  for (const Process& proc : sys.procs) {
    const int c = proc.cta;
    for (const Instr& in : proc.program) {
      if (in.slot >= 0 && (in.slot >= static_cast<int>(sys.slots.size()) || sys.slots[in.slot].cta != c)) return false;
      if (in.named >= 0 && in.named != sys.cluster_named &&
          (sys.named_per_cta == 0 || in.named / sys.named_per_cta != c))
        return false;
      for (const Access& a : in.accesses) {
        if (a.space < 0 || a.space >= static_cast<int>(sys.spaces.size())) return false;
        const MemSpace& sp = sys.spaces[a.space];
        if (sp.kind == MemSpace::Kind::Regs) {
          if (sp.process < 0 || sp.process >= static_cast<int>(sys.procs.size()) || sys.procs[sp.process].cta != c)
            return false;
        } else if (sp.cta != c) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace cake::encoder::trip
