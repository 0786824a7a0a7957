#include "encoder/loop_coords.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "encoder/block_coords.h"
#include "encoder/system.h"
#include "ir/global_box.h"

namespace cake::encoder {
namespace {

using ir::ExprKind;

bool readsLoopVar(const ir::Expr& e) { return ir::exprUses(e, {ExprKind::LoopVar}); }

// Each loop variable's |step| (0 where the step is not a constant).
void loopSteps(const ir::Block& block, std::map<int, int64_t>& out) {
  for (const ir::Stmt& st : block) {
    if (st.kind == ir::Stmt::Kind::For) {
      const auto step = st.step ? ir::constValue(st.step) : std::optional<int64_t>(1);
      out[st.loop_var] = step ? std::llabs(*step) : 0;
    }
    loopSteps(st.body, out);
    loopSteps(st.orelse, out);
  }
}

// A product of one loop variable and constants: its variable and constant
// factor (nullopt for any other shape, or a factor of 0).
std::optional<std::pair<int, int64_t>> loopMonomial(const ir::Expr& e) {
  if (e.kind == ExprKind::LoopVar) return std::pair<int, int64_t>{e.index, 1};
  if (e.kind != ExprKind::Mul) return std::nullopt;
  std::optional<int> var;
  int64_t factor = 1;
  for (const ir::ExprPtr& a : e.args) {
    if (!a) return std::nullopt;
    if (a->kind == ExprKind::Const) {
      if (__builtin_mul_overflow(factor, a->value, &factor)) return std::nullopt;
      continue;
    }
    const auto inner = loopMonomial(*a);
    if (!inner || var) return std::nullopt;
    var = inner->first;
    if (__builtin_mul_overflow(factor, inner->second, &factor)) return std::nullopt;
  }
  // a factor past 2^31 is never folded (the folded box stays far inside
  // the layout: addLoopOwned)
  if (!var || factor == 0 || std::llabs(factor) > (int64_t{1} << 31)) return std::nullopt;
  return std::pair<int, int64_t>{*var, factor};
}

// A coordinate's loop term: the node, its variable and signed factor.
struct LoopTerm {
  const ir::Expr* node = nullptr;
  int var = -1;
  int64_t factor = 0;
};

std::optional<LoopTerm> loopTermDetail(const ir::ExprPtr& coord) {
  if (!coord || !readsLoopVar(*coord)) return std::nullopt;
  std::vector<std::pair<const ir::Expr*, int>> terms;
  additiveTerms(*coord, 1, terms);
  std::optional<LoopTerm> found;
  for (const auto& [t, sign] : terms) {
    if (!readsLoopVar(*t)) {
      // the rest: constants and the instance only (its values per instance
      // are what loopOwnedCoords bounds)
      if (ir::exprUses(*t, {ExprKind::Param, ExprKind::BlockIdx, ExprKind::GridDim})) return std::nullopt;
      continue;
    }
    const auto mono = loopMonomial(*t);
    if (found || !mono) return std::nullopt;
    found = LoopTerm{t, mono->first, mono->second * sign};
  }
  return found;
}

// One access of a read-and-written tensor: its coordinates, the tile's
// unsliced shape (nullopt where not constant) and its role's instances.
struct TensorAccess {
  const std::vector<ir::ExprPtr>* coords = nullptr;
  std::optional<std::vector<int64_t>> tile;
  int instances = 1;
};

std::optional<std::vector<int64_t>> constantShape(const ir::Schedule& s, const ir::BufferRef& ref) {
  const std::vector<ir::ExprPtr>* shape = nullptr;
  if (ref.kind == ir::BufferRef::Kind::View) shape = &s.views[ref.index].shape;
  else if (ref.kind == ir::BufferRef::Kind::Regs) shape = &s.regs[ref.index].shape;
  else return std::nullopt;
  std::vector<int64_t> out;
  for (const ir::ExprPtr& e : *shape) {
    const auto v = ir::constValue(e);
    if (!v || *v < 0) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// An upper bound of the box extent in each dimension: slices only shrink
// the tile, and the copy and TMA box shapes both grow with it; the larger
// of the two (an access of either kind). Empty where the builder places
// neither (it leaves the access out).
std::vector<int64_t> extentBound(const std::vector<int64_t>& tile, int rank) {
  const std::vector<int64_t> a = ir::opBoxShape(tile, rank, false), b = ir::opBoxShape(tile, rank, true);
  if (a.empty()) return b;
  if (b.empty()) return a;
  std::vector<int64_t> out(rank);
  for (int d = 0; d < rank; ++d) out[d] = std::max(a[d], b[d]);
  return out;
}

// The values of `rest` (constants and the instance) over the instances.
std::optional<std::vector<int64_t>> restValues(const ir::ExprPtr& rest, int instances) {
  std::vector<int64_t> out;
  for (int i = 0; i < instances; ++i) {
    ir::EvalEnv env;
    env.instance = i;
    const auto v = ir::evaluate(*rest, env);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// The largest loop step (and lcm of steps) a fold takes: its modulus keeps
// the folded boxes far below the layout's end.
constexpr int64_t kMaxStep = 1024;

// The lowest rest and the highest rest + extent in one dimension, over
// the accesses.
struct Span {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
};

// Whether the accesses of one tensor and rank qualify (loopOwnedCoords);
// the coordinates to place without their term go to `out`.
bool addLoopOwned(const std::vector<TensorAccess>& accesses, int rank, int address_bits,
                  const std::map<int, int64_t>& steps, std::map<const ir::ExprPtr*, LoopFold>& out) {
  std::map<size_t, int64_t> factors;  // dimension -> c, from the first access
  std::map<size_t, Span> spans;
  std::map<const ir::ExprPtr*, LoopFold> found;
  int64_t modulus = 1;  // the lcm of the loops' steps, then doubled
  const int64_t limit = int64_t{1} << (address_bits / rank);
  for (size_t a = 0; a < accesses.size(); ++a) {
    const TensorAccess& x = accesses[a];
    std::map<size_t, int64_t> mine;
    std::set<int> vars;
    for (size_t d = 0; d < x.coords->size(); ++d) {
      const ir::ExprPtr& c = (*x.coords)[d];
      if (!c || !readsLoopVar(*c)) continue;
      const auto term = loopTermDetail(c);
      if (!term) return false;
      mine[d] = term->factor;
      vars.insert(term->var);
      const auto step = steps.find(term->var);
      if (step == steps.end() || step->second <= 0 || step->second > kMaxStep) return false;
      modulus = std::lcm(modulus, step->second);
      if (modulus > kMaxStep) return false;
      found[&c] = {term->node, term->factor, 0};
    }
    if (vars.size() != 1 || (a > 0 && mine != factors)) return false;
    if (a == 0) factors = mine;
    if (!x.tile) return false;
    const std::vector<int64_t> extent = extentBound(*x.tile, rank);
    if (extent.empty()) continue;  // the builder leaves it out
    for (const auto& [d, factor] : mine) {
      const ir::ExprPtr& c = (*x.coords)[d];
      const auto values = restValues(withoutBlockTerm(c, *found[&c].term), x.instances);
      if (!values) return false;
      for (int64_t v : *values) {
        if (v < 0 || v + extent[d] > limit / 4 - std::llabs(factor) * 2 * kMaxStep) return false;
        spans[d].lo = std::min(spans[d].lo, v);
        spans[d].hi = std::max(spans[d].hi, v + extent[d]);
      }
    }
  }
  const bool apart = std::any_of(factors.begin(), factors.end(), [&](const auto& f) {
    const Span& sp = spans[f.first];
    return sp.lo > sp.hi || sp.hi - sp.lo <= std::llabs(f.second);
  });
  if (factors.empty() || !apart) return false;
  for (auto& [coord, fold] : found) fold.modulus = 2 * modulus;
  out.insert(found.begin(), found.end());
  return true;
}

}  // namespace

const ir::Expr* loopTermOf(const ir::ExprPtr& coord) {
  const auto t = loopTermDetail(coord);
  return t ? t->node : nullptr;
}

std::map<const ir::ExprPtr*, LoopFold> loopOwnedCoords(const ir::Schedule& s, int address_bits) {
  const std::set<int> rw = readAndWrittenTensors(s);
  std::map<int, int64_t> steps;
  for (const auto& body : s.bodies) loopSteps(body.body, steps);
  std::map<std::pair<int, size_t>, std::vector<TensorAccess>> tensors;  // (tensor, rank) -> its accesses
  for (const auto& body : s.bodies) {
    const int instances = s.roles[body.role].instanceCount();
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      const ir::Op& o = st.op;
      for (const ir::BufferRef* r : {&o.dst, &o.src}) {
        if (r->kind != ir::BufferRef::Kind::Param || !rw.count(r->index)) continue;
        const ir::BufferRef& tile = r == &o.dst ? o.src : o.dst;
        tensors[{r->index, o.coords.size()}].push_back({&o.coords, constantShape(s, tile), instances});
      }
    });
  }
  std::map<const ir::ExprPtr*, LoopFold> out;
  for (const auto& [key, accesses] : tensors)
    if (key.second > 0) addLoopOwned(accesses, static_cast<int>(key.second), address_bits, steps, out);
  return out;
}

}  // namespace cake::encoder
