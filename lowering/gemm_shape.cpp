// Does a schedule compute the GEMM size `cake run` asks for? (lower.h,
// gemmShapeMismatch). Decided statically, so a run at a size the schedule
// does not compute is `unsupported_shape` before any GPU work, never a
// "wrong" result blamed on the kernel.
#include <algorithm>

#include <fmt/format.h>

#include "lowering/gemm_shape.h"

namespace cake::lowering {

namespace {

using ir::Stmt;

// The K extent covered by the loads of A and B: their K coordinate (the
// second) plus the slot's width, over every iteration of the loops that
// issue them. Undecided (nullopt) when a bound, guard or coordinate does
// not evaluate from the parameters the run binds, or the loops are too long
// to walk.
class KExtent {
 public:
  KExtent(const ir::Schedule& s, int a, int b, const ir::EvalEnv& env) : s_(s), a_(a), b_(b), env_(env) {}

  std::optional<int64_t> run() {
    for (const ir::RoleBody& body : s_.bodies) {
      const int instances = std::max(1, s_.roles[body.role].instanceCount());
      for (int i = 0; i < instances && ok_; ++i) {
        env_.instance = i;
        block(body.body);
      }
    }
    if (!ok_ || !found_) return std::nullopt;
    return hi_;
  }

 private:
  static constexpr int64_t kMaxSteps = 1000000;

  void block(const ir::Block& b) {
    for (const Stmt& st : b) {
      if (!ok_) return;
      switch (st.kind) {
        case Stmt::Kind::Op: op(st.op); break;
        case Stmt::Kind::If: {
          auto c = ir::evaluate(*st.cond, env_);
          if (!c) {   // both ways
            block(st.body);
            block(st.orelse);
          } else {
            block(*c ? st.body : st.orelse);
          }
          break;
        }
        case Stmt::Kind::For: loop(st); break;
      }
    }
  }

  void loop(const Stmt& st) {
    auto lo = ir::evaluate(*st.lo, env_), hi = ir::evaluate(*st.hi, env_);
    auto step = st.step ? ir::evaluate(*st.step, env_) : std::optional<int64_t>(1);
    if (!lo || !hi || !step || *step == 0) return fail();
    for (int64_t v = *lo; *step > 0 ? v < *hi : v > *hi; v += *step) {
      if (++steps_ > kMaxSteps) return fail();
      env_.loop_vars[st.loop_var] = v;
      block(st.body);
      if (!ok_) return;
    }
    env_.loop_vars.erase(st.loop_var);
  }

  void op(const ir::Op& o) {
    if (o.kind != ir::OpKind::TmaLoad && o.kind != ir::OpKind::CpAsync) return;
    if (o.src.kind != ir::BufferRef::Kind::Param || (o.src.index != a_ && o.src.index != b_)) return;
    if (o.coords.size() != 2 || o.dst.kind != ir::BufferRef::Kind::View) return fail();
    auto k = ir::evaluate(*o.coords[1], env_);
    const ir::View& v = s_.views[o.dst.index];
    auto width = v.shape.empty() ? std::nullopt : ir::evaluate(*v.shape.back(), env_);
    if (!o.dst.slices.empty() && o.dst.slices.size() == v.shape.size()) {
      const ir::Slice& last = o.dst.slices.back();
      auto l = last.lo ? ir::evaluate(*last.lo, env_) : std::optional<int64_t>(0);
      auto h = last.hi ? ir::evaluate(*last.hi, env_) : width;
      width = l && h ? std::optional<int64_t>(*h - *l) : std::nullopt;
    }
    if (!k || !width) return fail();
    hi_ = found_ ? std::max(hi_, *k + *width) : *k + *width;
    found_ = true;
  }

  void fail() { ok_ = false; }

  const ir::Schedule& s_;
  const int a_, b_;
  ir::EvalEnv env_;
  int64_t steps_ = 0;
  int64_t hi_ = 0;
  bool found_ = false, ok_ = true;
};

}  // namespace

std::optional<std::string> gemmShapeMismatch(const ir::Schedule& s, int64_t M, int64_t N, int64_t K) {
  std::vector<int> tensors;
  ir::EvalEnv env;
  bool hasK = false;
  for (size_t i = 0; i < s.params.size(); ++i) {
    const ir::Param& p = s.params[i];
    if (ir::isTensorParam(p.type)) tensors.push_back(static_cast<int>(i));
    if (p.type != ir::ParamType::I32) continue;
    if (p.name == "M") env.params[static_cast<int>(i)] = M;
    if (p.name == "N") env.params[static_cast<int>(i)] = N;
    if (p.name == "K") env.params[static_cast<int>(i)] = K, hasK = true;
  }
  const std::string shape = fmt::format("M={}, N={}, K={}", M, N, K);
  for (const ir::Assume& a : s.assumes) {
    auto holds = ir::evaluate(*a.cond, env);
    if (holds && !*holds)
      return fmt::format("the schedule assumes {} (line {}), which {} does not satisfy", ir::exprToString(*a.cond, s),
                         a.range.line, shape);
  }
  if (hasK || tensors.size() < 2) return std::nullopt;
  auto extent = KExtent(s, tensors[0], tensors[1], env).run();
  if (extent && *extent != K)
    return fmt::format("schedule '{}' has no parameter K: it computes K = {} (its loads of A and B cover K columns "
                       "[0, {})), not the K = {} asked for",
                       s.name, *extent, *extent, K);
  return std::nullopt;
}

}  // namespace cake::lowering
