#include "workload/walk.h"

namespace cake::workload {

namespace {

struct Walker {
  const ir::Schedule& s;
  const OpVisitor& visit;
  int64_t& budget;
  std::string* why;
  int role = -1, instance = 0;
  bool after_loop = false;

  bool fail(const std::string& m) {
    if (why && why->empty()) *why = m;
    return false;
  }

  bool block(const ir::Block& b, ir::EvalEnv& env, int depth) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::Op) {
        if (--budget < 0) return fail("too many ops to walk");
        visit(OpVisit{st.op, role, instance, env, depth, after_loop && depth == 0});
      } else if (st.kind == ir::Stmt::Kind::If) {
        auto c = st.cond ? ir::evaluate(*st.cond, env) : std::nullopt;
        if (!c) return fail("a condition does not evaluate");
        if (!block(*c ? st.body : st.orelse, env, depth)) return false;
      } else {
        auto lo = st.lo ? ir::evaluate(*st.lo, env) : std::nullopt;
        auto hi = st.hi ? ir::evaluate(*st.hi, env) : std::nullopt;
        auto step = st.step ? ir::evaluate(*st.step, env) : std::optional<int64_t>(1);
        if (!lo || !hi || !step) return fail("a loop bound does not evaluate");
        if (*step == 0) return fail("a loop has step 0");
        for (int64_t v = *lo; *step > 0 ? v < *hi : v > *hi; v += *step) {
          env.loop_vars[st.loop_var] = v;
          if (!block(st.body, env, depth + 1)) return false;
        }
        env.loop_vars.erase(st.loop_var);
        if (depth == 0) after_loop = true;
      }
    }
    return true;
  }
};

}  // namespace

bool walkCta(const ir::Schedule& s, const ir::EvalEnv& env0, const OpVisitor& visit, int64_t& budget,
             std::string* why) {
  Walker w{s, visit, budget, why};
  for (const ir::RoleBody& rb : s.bodies) {
    if (rb.role < 0 || rb.role >= static_cast<int>(s.roles.size())) continue;
    const int n = s.roles[rb.role].instanceCount();
    for (int i = 0; i < n; ++i) {
      ir::EvalEnv env = env0;
      env.instance = i;
      w.role = rb.role;
      w.instance = i;
      w.after_loop = false;
      if (!w.block(rb.body, env, 0)) return false;
    }
  }
  return true;
}

std::vector<int64_t> operandShape(const ir::Schedule& s, const ir::BufferRef& r, const ir::EvalEnv& env) {
  const std::vector<ir::ExprPtr>* shape = nullptr;
  switch (r.kind) {
    case ir::BufferRef::Kind::View: shape = &s.views.at(r.index).shape; break;
    case ir::BufferRef::Kind::Regs: shape = &s.regs.at(r.index).shape; break;
    case ir::BufferRef::Kind::Tmem: shape = &s.tmems.at(r.index).shape; break;
    default: return {};
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < shape->size(); ++d) {
    auto v = (*shape)[d] ? ir::evaluate(*(*shape)[d], env) : std::nullopt;
    if (!v) return {};
    int64_t ext = *v;
    if (d < r.slices.size()) {
      const ir::Slice& sl = r.slices[d];
      auto lo = sl.lo ? ir::evaluate(*sl.lo, env) : std::optional<int64_t>(0);
      auto hi = sl.hi ? ir::evaluate(*sl.hi, env) : std::optional<int64_t>(ext);
      if (!lo || !hi) return {};
      ext = *hi - *lo;
    }
    out.push_back(ext);
  }
  return out;
}

namespace {

std::optional<ir::DType> operandDtype(const ir::Schedule& s, const ir::BufferRef& r) {
  switch (r.kind) {
    case ir::BufferRef::Kind::View: return s.views.at(r.index).dtype;
    case ir::BufferRef::Kind::Regs: return s.regs.at(r.index).dtype;
    case ir::BufferRef::Kind::Tmem: return s.tmems.at(r.index).dtype;
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<TensorBox> tensorBox(const ir::Schedule& s, const ir::Op& op, const ir::EvalEnv& env) {
  if (op.coords.empty()) return std::nullopt;
  const ir::BufferRef* tensor = nullptr;
  const ir::BufferRef* other = nullptr;
  bool write = false;
  if (op.dst.kind == ir::BufferRef::Kind::Param) {
    tensor = &op.dst, other = &op.src, write = true;
  } else if (op.src.kind == ir::BufferRef::Kind::Param) {
    tensor = &op.src, other = &op.dst;
  } else if (op.src2.kind == ir::BufferRef::Kind::Param) {
    tensor = &op.src2, other = &op.dst;
  } else {
    return std::nullopt;
  }
  TensorBox b;
  b.param = tensor->index;
  b.write = write;
  std::vector<int64_t> shape = operandShape(s, *other, env);
  auto dt = operandDtype(s, *other);
  if (shape.empty() || !dt) return std::nullopt;
  b.dtype = *dt;
  const size_t rank = op.coords.size();
  for (size_t d = 0; d < rank; ++d) {
    auto c = op.coords[d] ? ir::evaluate(*op.coords[d], env) : std::nullopt;
    if (!c) return std::nullopt;
    b.lo.push_back(*c);
    const int64_t off = static_cast<int64_t>(rank) - static_cast<int64_t>(shape.size());
    // a view of fewer dimensions than the tensor covers its innermost ones;
    // one of more dimensions merges its leading ones into the outermost
    int64_t ext = 1;
    if (off >= 0) {
      if (static_cast<int64_t>(d) >= off) ext = shape[d - off];
    } else if (d == 0) {
      for (int64_t i = 0; i <= -off; ++i) ext *= shape[i];
    } else {
      ext = shape[d - off];
    }
    b.ext.push_back(ext);
  }
  return b;
}

}  // namespace cake::workload
