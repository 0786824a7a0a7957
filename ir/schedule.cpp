#include "ir/schedule.h"
#include "ir/pdl.h"

#include <algorithm>

#include <fmt/format.h>

#include "ir/int_eval.h"

namespace cake::ir {

std::string_view targetName(Target t) {
  switch (t) {
    case Target::SM80: return "sm_80";
    case Target::SM90a: return "sm_90a";
    case Target::SM100a: return "sm_100a";
    case Target::Unspecified: return "";
  }
  return "";
}

std::optional<Target> parseTarget(std::string_view s) {
  if (s == "sm_80") return Target::SM80;
  if (s == "sm_90a") return Target::SM90a;
  if (s == "sm_100a") return Target::SM100a;
  return std::nullopt;
}

std::string_view dtypeName(DType d) {
  switch (d) {
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::F32: return "f32";
    case DType::E4M3: return "e4m3";
    case DType::E5M2: return "e5m2";
    case DType::I8: return "i8";
    case DType::I32: return "i32";
  }
  return "?";
}

int dtypeBytes(DType d) {
  switch (d) {
    case DType::BF16: case DType::F16: return 2;
    case DType::F32: case DType::I32: return 4;
    case DType::E4M3: case DType::E5M2: case DType::I8: return 1;
  }
  return 0;
}

int unionRoot(const Schedule& s, int view) {
  while (s.views[view].union_with >= 0) view = s.views[view].union_with;
  return view;
}

bool sameUnion(const Schedule& s, int a, int b) {
  return a != b && a >= 0 && b >= 0 && unionRoot(s, a) == unionRoot(s, b);
}

std::string_view swizzleName(Swizzle s) {
  switch (s) {
    case Swizzle::None: return "None";
    case Swizzle::B32: return "32B";
    case Swizzle::B64: return "64B";
    case Swizzle::B128: return "128B";
  }
  return "None";
}

int cpAsyncChunkBytes(int64_t rowBytes) {
  for (int ch : {16, 8, 4})
    if (rowBytes % ch == 0) return ch;
  return 0;
}

int swizzleBytes(Swizzle s) {
  switch (s) {
    case Swizzle::None: return 0;
    case Swizzle::B32: return 32;
    case Swizzle::B64: return 64;
    case Swizzle::B128: return 128;
  }
  return 0;
}

std::string_view paramTypeName(ParamType t) {
  switch (t) {
    case ParamType::Tma1d: return "LM.tma1d";
    case ParamType::Tma2d: return "LM.tma2d";
    case ParamType::Tma3d: return "LM.tma3d";
    case ParamType::Tma4d: return "LM.tma4d";
    case ParamType::Tma5d: return "LM.tma5d";
    case ParamType::Gmem: return "LM.gmem";
    case ParamType::I32: return "LM.i32";
    case ParamType::F32: return "LM.f32";
  }
  return "?";
}

int tmaRank(ParamType t) {
  switch (t) {
    case ParamType::Tma1d: return 1;
    case ParamType::Tma2d: return 2;
    case ParamType::Tma3d: return 3;
    case ParamType::Tma4d: return 4;
    case ParamType::Tma5d: return 5;
    default: return 0;
  }
}

ExprPtr makeConst(int64_t v, SourceRange r) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Const;
  e->value = v;
  e->range = std::move(r);
  return e;
}

ExprPtr makeExpr(ExprKind k, std::vector<ExprPtr> args, SourceRange r) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->args = std::move(args);
  e->range = std::move(r);
  return e;
}

static std::optional<int64_t> lookup(const std::map<int, int64_t>& m, int key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

static std::optional<int64_t> dimValue(const std::optional<int64_t> (&dims)[3], int d) {
  if (d < 0 || d > 2) return std::nullopt;
  return dims[d];
}

bool sameExpr(const Expr& a, const Expr& b) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.value != b.value || a.index != b.index || a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!a.args[i] || !b.args[i] || !sameExpr(*a.args[i], *b.args[i])) return false;
  return true;
}

bool sameOptExpr(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b) return !a && !b;
  return sameExpr(*a, *b);
}

std::optional<int64_t> evaluate(const Expr& e, const EvalEnv& env) {
  if (env.replace && sameExpr(e, *env.replace)) {
    if (env.replace_hits) ++*env.replace_hits;
    return env.replace_value;
  }
  switch (e.kind) {
    case ExprKind::Const: return e.value;
    case ExprKind::Param:
      if (env.params_read) env.params_read->insert(e.index);
      return lookup(env.params, e.index);
    case ExprKind::LoopVar: return lookup(env.loop_vars, e.index);
    case ExprKind::BlockIdx:
      if (env.params_read) env.params_read->insert(-1 - e.index);
      return dimValue(env.block_idx, e.index);
    case ExprKind::GridDim:
      if (env.params_read) env.params_read->insert(-4 - e.index);
      return dimValue(env.grid_dim, e.index);
    case ExprKind::Instance: return env.instance;
    case ExprKind::Neg:
    case ExprKind::Not: {
      if (e.args.size() != 1) return std::nullopt;
      auto a = evaluate(*e.args[0], env);
      if (!a) return std::nullopt;
      return applyIntOp(e.kind, *a);
    }
    default: break;
  }
  if (e.args.size() != 2) return std::nullopt;
  // Short-circuit and/or so a guarded division (`n > 0 and k % n == 0`) evaluates.
  auto a = evaluate(*e.args[0], env);
  if (!a) return std::nullopt;
  if (e.kind == ExprKind::And && *a == 0) return 0;
  if (e.kind == ExprKind::Or && *a != 0) return 1;
  auto b = evaluate(*e.args[1], env);
  if (!b) return std::nullopt;
  return applyIntOp(e.kind, *a, *b);
}

std::optional<int64_t> constValue(const ExprPtr& e) {
  if (!e) return std::nullopt;
  return evaluate(*e, EvalEnv{});
}

bool readsSymbol(const Expr& e, ExprKind kind, int index) {
  return anySubExpr(e, [&](const Expr& x) { return x.kind == kind && x.index == index; });
}

bool dependsOnLoopVar(const Expr& e, int loop_var) { return readsSymbol(e, ExprKind::LoopVar, loop_var); }

bool exprUses(const Expr& e, std::initializer_list<ExprKind> kinds) {
  return anySubExpr(e, [&](const Expr& x) { return std::find(kinds.begin(), kinds.end(), x.kind) != kinds.end(); });
}

bool affineIn(const Expr& e, int var) {
  if (!dependsOnLoopVar(e, var)) return true;
  switch (e.kind) {
    case ExprKind::LoopVar: return true;  // (it reads var: it is var)
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Neg:
      return std::all_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return a && affineIn(*a, var); });
    case ExprKind::Mul:
      return e.args.size() == 2 && e.args[0] && e.args[1] &&
             ((!dependsOnLoopVar(*e.args[0], var) && affineIn(*e.args[1], var)) ||
              (!dependsOnLoopVar(*e.args[1], var) && affineIn(*e.args[0], var)));
    default: return false;
  }
}

// Python operator precedence, higher binds tighter.
static int precedence(ExprKind k) {
  switch (k) {
    case ExprKind::Or: return 1;
    case ExprKind::And: return 2;
    case ExprKind::Not: return 3;
    case ExprKind::Lt: case ExprKind::Le: case ExprKind::Gt: case ExprKind::Ge:
    case ExprKind::Eq: case ExprKind::Ne: return 4;
    case ExprKind::Add: case ExprKind::Sub: return 5;
    case ExprKind::Mul: case ExprKind::FloorDiv: case ExprKind::Mod: return 6;
    case ExprKind::Neg: return 7;
    default: return 9;
  }
}

static std::string_view binarySymbol(ExprKind k) {
  switch (k) {
    case ExprKind::Add: return "+";
    case ExprKind::Sub: return "-";
    case ExprKind::Mul: return "*";
    case ExprKind::FloorDiv: return "//";
    case ExprKind::Mod: return "%";
    case ExprKind::Lt: return "<";
    case ExprKind::Le: return "<=";
    case ExprKind::Gt: return ">";
    case ExprKind::Ge: return ">=";
    case ExprKind::Eq: return "==";
    case ExprKind::Ne: return "!=";
    case ExprKind::And: return "and";
    case ExprKind::Or: return "or";
    default: return "?";
  }
}

static std::string exprToStringPrec(const Expr& e, const Schedule& s, int parent) {
  auto sub = [&](size_t i, int p) { return e.args.size() > i && e.args[i] ? exprToStringPrec(*e.args[i], s, p) : std::string("?"); };
  auto named = [](const auto& table, int i) {
    return i >= 0 && i < static_cast<int>(table.size()) ? table[i].name : fmt::format("${}", i);
  };
  std::string out;
  int prec = precedence(e.kind);
  switch (e.kind) {
    case ExprKind::Const: return fmt::format("{}", e.value);
    case ExprKind::Param: return named(s.params, e.index);
    case ExprKind::LoopVar: return named(s.loop_vars, e.index);
    case ExprKind::BlockIdx: return fmt::format("lm.block_idx({})", e.index);
    case ExprKind::GridDim: return fmt::format("lm.grid_dim({})", e.index);
    case ExprKind::Instance: return "lm.instance()";
    case ExprKind::Min: return fmt::format("min({}, {})", sub(0, 0), sub(1, 0));
    case ExprKind::Max: return fmt::format("max({}, {})", sub(0, 0), sub(1, 0));
    case ExprKind::CDiv: return fmt::format("lm.cdiv({}, {})", sub(0, 0), sub(1, 0));
    case ExprKind::Neg: out = "-" + sub(0, prec); break;
    case ExprKind::Not: out = "not " + sub(0, prec); break;
    default:
      // Left-associative: the right operand needs parentheses at equal precedence.
      out = fmt::format("{} {} {}", sub(0, prec), binarySymbol(e.kind), sub(1, prec + 1));
  }
  return prec < parent ? "(" + out + ")" : out;
}

std::string exprToString(const Expr& e, const Schedule& s) { return exprToStringPrec(e, s, 0); }

int Schedule::warpCount() const {
  if (warps) return *warps;
  int highest = -1;
  for (const Role& r : roles)
    for (int w : r.warps) highest = std::max(highest, w);
  return highest + 1;
}

bool launchesWithPdl(const Schedule& s) {
  bool pdl = !s.grid_deps.empty();
  for (const RoleBody& body : s.bodies)
    forEachOp(body.body, [&](const Stmt& st) {
      pdl = pdl || st.op.kind == OpKind::GridDepWait || st.op.kind == OpKind::LaunchDependents;
    });
  return pdl;
}

}  // namespace cake::ir
