// MMA: operand shapes, instruction shapes, dtypes, operand locations,
// descriptor swizzles, issuing warpgroups, and sub-tile alignment.
#include <fmt/format.h>

#include "checks/layout_internal.h"

namespace cake::checks::layout {

namespace {

using K = ir::BufferRef::Kind;

std::string_view locName(K k) {
  switch (k) {
    case K::View: return "shared memory";
    case K::Tmem: return "tensor memory";
    case K::Regs: return "registers";
    case K::Param: return "global memory";
    case K::Scalar: return "a scalar";
    case K::None: return "nothing";
  }
  return "?";
}

bool isFp8(ir::DType d) { return d == ir::DType::E4M3 || d == ir::DType::E5M2; }

// Smallest K step of the target's MMA instructions for the input type.
int64_t kStep(ir::DType d) {
  switch (d) {
    case ir::DType::BF16:
    case ir::DType::F16: return 16;
    case ir::DType::F32: return 8;  // tf32
    default: return 32;             // fp8, int8
  }
}

// Empty when the combination is fine, else why not.
std::string dtypeProblem(ir::Target t, ir::DType a, ir::DType b, ir::DType acc) {
  using D = ir::DType;
  auto n = [](D d) { return std::string(ir::dtypeName(d)); };
  if (isFp8(a) && isFp8(b)) {
    if (t == ir::Target::SM80) return "fp8 tensor-core MMA is not available on sm_80 (it is on sm_90a and sm_100a)";
    if (acc == D::F32 || acc == D::F16) return {};
    return fmt::format("{} x {} accumulates into f16 or f32, not {}", n(a), n(b), n(acc));
  }
  if (a != b) return fmt::format("a is {} but b is {}: the inputs must have the same type", n(a), n(b));
  switch (a) {
    case D::BF16:
      if (acc == D::F32) return {};
      return fmt::format("bf16 inputs accumulate into f32, not {}", n(acc));
    case D::F16:
      if (acc == D::F32 || acc == D::F16) return {};
      return fmt::format("f16 inputs accumulate into f16 or f32, not {}", n(acc));
    case D::F32:
      if (acc == D::F32) return {};
      return fmt::format("f32 (tf32) inputs accumulate into f32, not {}", n(acc));
    case D::I8:
      if (acc == D::I32) return {};
      return fmt::format("int8 inputs accumulate into i32, not {}", n(acc));
    default:
      return fmt::format("no tensor-core MMA takes {} inputs", n(a));
  }
}

}  // namespace

void runMmaGates(Gates& g) {
  const ir::Schedule& s = g.s;
  ir::Target t = g.ti.target;
  std::set<std::pair<std::string, int>> reported;  // (rule, view/role) reported once

  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    if (op.kind != ir::OpKind::Mma) continue;
    const ir::SourceRange& at = op.range.valid() ? op.range : site.stmt->range;
    const ir::BufferRef& acc = op.dst;
    const ir::BufferRef& a = op.src;
    const ir::BufferRef& b = op.src2;
    const ir::BufferRef* refs[3] = {&acc, &a, &b};
    const char* roleName[3] = {"acc", "a", "b"};
    bool valid = true;
    for (auto* r : refs)
      if (r->kind == K::None || r->index < 0) valid = false;
    if (!valid) continue;

    // ---- operand locations (target)
    if (g.ti.known) {
      for (int i = 0; i < 3; ++i) {
        const ir::BufferRef& r = *refs[i];
        if (r.kind == K::Tmem && !g.ti.tmem) continue;  // target.feature at the lm.tmem
        bool ok = false;
        std::string_view want;
        switch (t) {
          case ir::Target::SM80:
            ok = i == 0 ? r.kind == K::Regs : (r.kind == K::View || r.kind == K::Regs);
            want = i == 0 ? "registers (mma.sync)" : "shared memory or registers (mma.sync via ldmatrix)";
            break;
          case ir::Target::SM90a:
            ok = i == 0 ? r.kind == K::Regs : i == 1 ? (r.kind == K::View || r.kind == K::Regs) : r.kind == K::View;
            want = i == 0 ? "registers (wgmma)" : i == 1 ? "registers or shared memory (wgmma)"
                                                          : "shared memory (a wgmma descriptor)";
            break;
          case ir::Target::SM100a:
            ok = i == 0 ? r.kind == K::Tmem : i == 1 ? (r.kind == K::View || r.kind == K::Tmem) : r.kind == K::View;
            want = i == 0 ? "tensor memory (tcgen05.mma)" : i == 1 ? "shared memory or tensor memory (tcgen05.mma)"
                                                                   : "shared memory (a tcgen05 descriptor)";
            break;
          default: ok = true;
        }
        g.fact("mma.operand-location", ok);
        if (ok) continue;
        ir::Finding f = g.finding("mma.operand-location", at,
                                  fmt::format("operand {} '{}' is in {}; on {} it must be in {}", roleName[i],
                                              g.refName(r), locName(r.kind), ir::targetName(t), want));
        Gates::note(f, g.refDecl(r), fmt::format("'{}' declared here", g.refName(r)));
        f.subject["operand"] = roleName[i];
        f.subject["buffer"] = g.refName(r);
        g.emit(std::move(f));
      }
    }

    std::vector<ExprPtr> sacc = g.refShape(acc), sa = g.refShape(a), sb = g.refShape(b);
    bool shapes_ok = true;

    // ---- slices inside their buffers
    for (int i = 0; i < 3; ++i) {
      const ir::BufferRef& r = *refs[i];
      if (r.slices.empty()) continue;
      ir::BufferRef whole;
      whole.kind = r.kind;
      whole.index = r.index;
      std::vector<ExprPtr> full = g.refShape(whole);
      for (size_t d = 0; d < r.slices.size() && d < full.size(); ++d) {
        const ir::Slice& sl = r.slices[d];
        if (!sl.lo && !sl.hi) continue;
        ExprPtr lo = sl.lo ? sl.lo : lit(0), hi = sl.hi ? sl.hi : full[d];
        auto res = g.check("mma.shape-mismatch", land(land(ge(lo, lit(0)), le(lo, hi)), le(hi, full[d])),
                           site.premises);
        if (res.kind != encoder::BvVerdict::Fails) continue;
        shapes_ok = false;
        auto lov = g.valueAt(lo, &res), hiv = g.valueAt(hi, &res);
        std::string what = d == 0 ? "rows" : d == 1 ? "columns" : fmt::format("dimension {} elements", d);
        ir::Finding f = g.finding(
            "mma.shape-mismatch", at,
            fmt::format("operand {} takes {} [{}, {}) of '{}' (slice [{}:{}]), outside its {} {}{}", roleName[i], what,
                        lov ? std::to_string(*lov) : "?", hiv ? std::to_string(*hiv) : "?", g.refName(r), g.str(lo),
                        g.str(hi), g.show(full[d], &res), what, g.when(res)));
        Gates::note(f, g.refDecl(r), fmt::format("'{}' declared here", g.refName(r)));
        g.emit(std::move(f), &res);
      }
    }

    // ---- operand shapes agree
    if (sacc.size() != 2 || sa.size() != 2 || sb.size() != 2) {
      g.fact("mma.shape-mismatch", false);
      ir::Finding f = g.finding("mma.shape-mismatch", at,
                                fmt::format("MMA operands must be two-dimensional: acc '{}' has {}, a '{}' has {}, "
                                            "b '{}' has {} dimension(s)",
                                            g.refName(acc), sacc.size(), g.refName(a), sa.size(), g.refName(b),
                                            sb.size()));
      g.emit(std::move(f));
      continue;
    }
    struct Eq {
      ExprPtr x, y;
      const char* what;
      const ir::BufferRef *rx, *ry;
    };
    const Eq eqs[3] = {{sa[0], sacc[0], "M", &a, &acc}, {sb[0], sacc[1], "N", &b, &acc}, {sa[1], sb[1], "K", &a, &b}};
    const char* text[3] = {"a has {} rows (M) but acc '{}' has {}", "b has {} rows (N) but acc '{}' has {} columns",
                           "a has {} columns (K) but b '{}' has {}"};
    for (int i = 0; i < 3; ++i) {
      auto res = g.check("mma.shape-mismatch", eq(eqs[i].x, eqs[i].y), site.premises);
      if (res.kind != encoder::BvVerdict::Fails) continue;
      shapes_ok = false;
      ir::Finding f = g.finding("mma.shape-mismatch", at,
                                fmt::format(fmt::runtime(text[i]), g.show(eqs[i].x, &res), g.refName(*eqs[i].ry),
                                            g.show(eqs[i].y, &res)) +
                                    " (acc[M,N] += a[M,K] * b[N,K]^T)" + g.when(res));
      Gates::note(f, g.refDecl(*eqs[i].rx), fmt::format("'{}' declared here", g.refName(*eqs[i].rx)));
      Gates::note(f, g.refDecl(*eqs[i].ry), fmt::format("'{}' declared here", g.refName(*eqs[i].ry)));
      f.subject["dimension"] = eqs[i].what;
      g.emit(std::move(f), &res);
    }

    // ---- sub-tile alignment of sliced shared-memory operands
    for (int i = 1; i < 3; ++i) {
      const ir::BufferRef& r = *refs[i];
      if (r.kind != K::View || r.slices.empty()) continue;
      const ir::View& view = s.views[r.index];
      int eb = ir::dtypeBytes(view.dtype);
      ExprPtr outer = lit(0), inner = lit(0);
      for (size_t d = 0; d < r.slices.size() && d < view.shape.size(); ++d) {
        if (!r.slices[d].lo) continue;
        ExprPtr stride = product(std::vector<ExprPtr>(view.shape.begin() + d + 1, view.shape.end()));
        ExprPtr off = mul(mul(r.slices[d].lo, stride), lit(eb));
        if (d + 1 == view.shape.size()) inner = add(inner, off);
        else outer = add(outer, off);
      }
      int64_t atom = view.swizzle == ir::Swizzle::None ? 16 : 8 * ir::swizzleBytes(view.swizzle);
      auto res = g.check("layout.misaligned", land(eq(mod(outer, lit(atom)), lit(0)), eq(mod(inner, lit(16)), lit(0))),
                         site.premises);
      if (res.kind != encoder::BvVerdict::Fails) continue;
      ir::Finding f = g.finding("layout.misaligned", at,
                                fmt::format("the sub-tile of '{}' used as operand {} starts {} bytes into the slot, "
                                            "not a multiple of {}{}",
                                            view.name, roleName[i], g.show(add(outer, inner), &res),
                                            atom == 16 ? std::string("16")
                                                       : fmt::format("{} (the {} swizzle atom)", atom,
                                                                     ir::swizzleName(view.swizzle)),
                                            g.when(res)));
      Gates::note(f, view.range, fmt::format("view '{}' declared here", view.name));
      g.emit(std::move(f), &res);
    }

    if (!g.ti.known) continue;

    // ---- dtypes
    ir::DType da = g.refDtype(a), db = g.refDtype(b), dacc = g.refDtype(acc);
    std::string problem = dtypeProblem(t, da, db, dacc);
    g.fact("mma.dtype", problem.empty());
    if (!problem.empty()) {
      ir::Finding f = g.finding("mma.dtype", at, fmt::format("{} on {}", problem, ir::targetName(t)));
      Gates::note(f, g.refDecl(a), fmt::format("a '{}' is {}", g.refName(a), ir::dtypeName(da)));
      Gates::note(f, g.refDecl(b), fmt::format("b '{}' is {}", g.refName(b), ir::dtypeName(db)));
      Gates::note(f, g.refDecl(acc), fmt::format("acc '{}' is {}", g.refName(acc), ir::dtypeName(dacc)));
      g.emit(std::move(f));
    }

    // ---- an instruction shape that tiles (M, N, K)
    if (shapes_ok) {
      ExprPtr M = sacc[0], N = sacc[1], Kd = sa[1];
      int64_t ks = kStep(da);
      ExprPtr kOk = land(ge(Kd, lit(ks)), eq(mod(Kd, lit(ks)), lit(0)));
      ExprPtr goal;
      std::string rule_text;
      switch (t) {
        case ir::Target::SM80:
          goal = allOf({ge(M, lit(16)), eq(mod(M, lit(16)), lit(0)), ge(N, lit(8)), eq(mod(N, lit(8)), lit(0)), kOk});
          rule_text = fmt::format("mma.sync m16n8k{} needs M % 16 == 0, N % 8 == 0, K % {} == 0", ks, ks);
          break;
        case ir::Target::SM90a: {
          // wgmma m64nNk: 64-row blocks of M, N the instruction's n. Transposed
          // (docs/ir-extensions.md "Transposed wgmma"): acc^T = b . a^T, the
          // 64-row blocks along N and M the instruction's n, which needs a in
          // shared memory (it becomes the wgmma's B operand)
          ExprPtr plain = allOf({ge(M, lit(64)), eq(mod(M, lit(64)), lit(0)), ge(N, lit(8)), le(N, lit(256)),
                                 eq(mod(N, lit(8)), lit(0))});
          ExprPtr goalM = plain;
          if (a.kind == K::View)
            goalM = lor(plain, allOf({ge(N, lit(64)), eq(mod(N, lit(64)), lit(0)), ge(M, lit(8)), le(M, lit(256)),
                                      eq(mod(M, lit(8)), lit(0))}));
          goal = land(goalM, kOk);
          rule_text = fmt::format("wgmma m64nNk{} needs M % 64 == 0, N a multiple of 8 in 8..256{}, K % {} == 0", ks,
                                  a.kind == K::View ? " (or, transposed, N % 64 == 0 and M a multiple of 8 in 8..256)"
                                                    : " (a in registers: no transposed form, whose B is a)",
                                  ks);
          break;
        }
        case ir::Target::SM100a: {
          bool pair = s.cluster[0] * s.cluster[1] * s.cluster[2] >= 2;
          ExprPtr m64 = land(eq(M, lit(64)), land(eq(mod(N, lit(8)), lit(0)), land(ge(N, lit(8)), le(N, lit(256)))));
          ExprPtr nBig = land(eq(mod(N, lit(16)), lit(0)), land(ge(N, lit(16)), le(N, lit(256))));
          ExprPtr mBig = pair ? lor(eq(M, lit(128)), eq(M, lit(256))) : eq(M, lit(128));
          goal = land(lor(m64, land(mBig, nBig)), kOk);
          rule_text = fmt::format("tcgen05.mma needs M = 64 (N % 8 == 0) or M = 128{} (N % 16 == 0), N <= 256, "
                                  "K % {} == 0",
                                  pair ? "/256" : "", ks);
          break;
        }
        default: break;
      }
      if (goal) {
        auto res = g.check("mma.no-instruction", goal, site.premises);
        if (res.kind == encoder::BvVerdict::Fails) {
          ir::Finding f = g.finding("mma.no-instruction", at,
                                    fmt::format("no {} MMA instruction tiles M = {}, N = {}, K = {}: {}{}",
                                                ir::targetName(t), g.show(M, &res), g.show(N, &res),
                                                g.show(Kd, &res), rule_text, g.when(res)));
          Gates::note(f, g.refDecl(acc), fmt::format("acc '{}' declared here", g.refName(acc)));
          f.subject["instruction"] = t == ir::Target::SM80 ? "mma.sync" : t == ir::Target::SM90a ? "wgmma" : "tcgen05.mma";
          g.emit(std::move(f), &res);
        }
      }
    }

    // ---- descriptor swizzle of shared-memory operands
    for (int i = 1; i < 3; ++i) {
      const ir::BufferRef& r = *refs[i];
      if (r.kind != K::View) continue;
      const ir::View& view = s.views[r.index];
      if (view.shape.empty()) continue;
      ExprPtr row = mul(view.shape.back(), lit(ir::dtypeBytes(view.dtype)));
      ExprPtr goal;
      std::string want;
      if (t == ir::Target::SM80) {
        goal = eq(mod(row, lit(16)), lit(0));
        want = "a multiple of 16 bytes (ldmatrix reads 16-byte rows)";
      } else if (view.swizzle != ir::Swizzle::None) {
        int span = ir::swizzleBytes(view.swizzle);
        goal = eq(row, lit(span));
        want = fmt::format("exactly {} bytes (the descriptor's {} K-major atom is 8 rows of {} bytes)", span,
                           ir::swizzleName(view.swizzle), span);
      }
      if (!goal) continue;
      auto res = g.check("mma.swizzle", goal);
      if (res.kind != encoder::BvVerdict::Fails) continue;
      if (!reported.insert({"mma.swizzle", r.index}).second) continue;
      ir::Finding f = g.finding("mma.swizzle", view.range,
                                fmt::format("rows of view '{}' ({} swizzle) are {} bytes; as an MMA operand on {} "
                                            "they must be {}{}",
                                            view.name, ir::swizzleName(view.swizzle), g.show(row, &res),
                                            ir::targetName(t), want, g.when(res)));
      Gates::note(f, at, fmt::format("used as operand {} of this MMA", roleName[i]));
      f.subject["view"] = view.name;
      g.emit(std::move(f), &res);
    }

    // ---- wgmma is issued by one aligned warpgroup
    if (t == ir::Target::SM90a && site.role >= 0) {
      const ir::Role& role = s.roles[site.role];
      for (int inst = 0; inst < role.instanceCount(); ++inst) {
        std::vector<int> w = g.instanceWarps(site.role, inst);
        bool ok = w.size() == 4 && w[0] % 4 == 0 && w[1] == w[0] + 1 && w[2] == w[0] + 2 && w[3] == w[0] + 3;
        g.fact("mma.warpgroup", ok);
        if (ok) continue;
        if (!reported.insert({"mma.warpgroup", site.role}).second) break;
        std::vector<std::string> ws;
        for (int x : w) ws.push_back(std::to_string(x));
        ir::Finding f = g.finding(
            "mma.warpgroup", role.range,
            fmt::format("instance {} of role '{}' is warps [{}]; a wgmma must be issued by one warpgroup: 4 "
                        "consecutive warps starting at a multiple of 4{}",
                        inst, role.name, fmt::join(ws, ", "),
                        role.group == 0 && role.warps.size() > 4 ? " (use group=4 to make each warpgroup an instance)"
                                                                 : ""));
        Gates::note(f, at, "the wgmma issued by that instance");
        f.subject["role"] = role.name;
        f.subject["instance"] = inst;
        g.emit(std::move(f));
        break;
      }
    }
  }
}

}  // namespace cake::checks::layout
