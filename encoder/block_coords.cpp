#include "encoder/block_coords.h"

#include <tuple>
#include <vector>

#include "encoder/system.h"
#include <algorithm>
#include <set>

namespace cake::encoder {
namespace {

using ir::ExprKind;

bool readsBlock(const ir::Expr& e) { return ir::exprUses(e, {ExprKind::BlockIdx, ExprKind::GridDim}); }

// A product of block indices, grid sizes and constants >= 0: its value is
// >= 0 wherever CUDA launches the block (0 <= block_idx < grid_dim).
bool nonNegativeBlockMonomial(const ir::Expr& e) {
  switch (e.kind) {
    case ExprKind::BlockIdx:
    case ExprKind::GridDim: return true;
    case ExprKind::Const: return e.value >= 0;
    case ExprKind::Mul:
      for (const ir::ExprPtr& a : e.args)
        if (!a || !nonNegativeBlockMonomial(*a)) return false;
      return true;
    default: return false;
  }
}

}  // namespace

// The additive terms of e with their signs (+1 added, -1 subtracted).
void additiveTerms(const ir::Expr& e, int sign, std::vector<std::pair<const ir::Expr*, int>>& out) {
  if (e.kind == ExprKind::Add && e.args.size() == 2 && e.args[0] && e.args[1]) {
    additiveTerms(*e.args[0], sign, out);
    additiveTerms(*e.args[1], sign, out);
  } else if (e.kind == ExprKind::Sub && e.args.size() == 2 && e.args[0] && e.args[1]) {
    additiveTerms(*e.args[0], sign, out);
    additiveTerms(*e.args[1], -sign, out);
  } else if (e.kind == ExprKind::Neg && e.args.size() == 1 && e.args[0]) {
    additiveTerms(*e.args[0], -sign, out);
  } else {
    out.push_back({&e, sign});
  }
}

const ir::Expr* blockTermOf(const ir::ExprPtr& coord) {
  if (!coord) return nullptr;
  std::vector<std::pair<const ir::Expr*, int>> terms;
  additiveTerms(*coord, 1, terms);
  const ir::Expr* found = nullptr;
  for (const auto& [t, sign] : terms) {
    if (!readsBlock(*t)) continue;
    if (found || sign < 0 || !nonNegativeBlockMonomial(*t)) return nullptr;
    found = t;
  }
  return found;
}

ir::ExprPtr withoutBlockTerm(const ir::ExprPtr& coord, const ir::Expr& term) {
  if (!coord || coord.get() == &term) return ir::makeConst(0);
  if (coord->args.empty()) return coord;
  auto copy = std::make_shared<ir::Expr>(*coord);
  for (ir::ExprPtr& a : copy->args) a = withoutBlockTerm(a, term);
  return copy;
}

std::map<CoordSite, const ir::Expr*> blockOwnedCoords(const ir::Schedule& s) {
  const std::set<int> rw = readAndWrittenTensors(s);
  // (tensor, rank, dimension) -> its coordinates; owned while every one has
  // the same block term
  std::map<std::tuple<int, size_t, size_t>, std::vector<const ir::ExprPtr*>> dims;
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      const ir::Op& o = st.op;
      for (const ir::BufferRef* r : {&o.dst, &o.src})
        if (r->kind == ir::BufferRef::Kind::Param && rw.count(r->index))
          for (size_t d = 0; d < o.coords.size(); ++d) dims[{r->index, o.coords.size(), d}].push_back(&o.coords[d]);
    });
  std::map<CoordSite, const ir::Expr*> out;
  for (const auto& [key, coords] : dims) {
    std::vector<const ir::Expr*> terms;
    for (const ir::ExprPtr* c : coords) terms.push_back(blockTermOf(*c));
    const bool owned = std::all_of(terms.begin(), terms.end(), [&](const ir::Expr* t) {
      return t && ir::sameExpr(*t, *terms.front());
    });
    if (!owned) continue;
    const auto& [tensor, rank, dim] = key;
    for (size_t i = 0; i < coords.size(); ++i) out[{tensor, rank, dim, coords[i]->get()}] = terms[i];
  }
  return out;
}

}  // namespace cake::encoder
