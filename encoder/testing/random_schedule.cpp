#include "encoder/testing/random_schedule.h"

#include <set>

#include <fmt/format.h>

namespace cake::encoder {

using namespace ir;

namespace {

ExprPtr c(int64_t v) { return makeConst(v); }
ExprPtr loopVar(int i) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::LoopVar;
  e->index = i;
  return e;
}
ExprPtr param(int i) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Param;
  e->index = i;
  return e;
}
ExprPtr instance() {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Instance;
  return e;
}
ExprPtr add(ExprPtr a, int64_t b) {
  if (b == 0) return a;
  return b > 0 ? makeExpr(ExprKind::Add, {a, c(b)}) : makeExpr(ExprKind::Sub, {a, c(-b)});
}
ExprPtr mul(ExprPtr a, int64_t b) { return makeExpr(ExprKind::Mul, {a, c(b)}); }

BufferRef viewRef(int view, ExprPtr slot) {
  BufferRef r;
  r.kind = BufferRef::Kind::View;
  r.index = view;
  r.slot = std::move(slot);
  return r;
}
BufferRef regsRef(int regs) {
  BufferRef r;
  r.kind = BufferRef::Kind::Regs;
  r.index = regs;
  return r;
}
BufferRef tmemRef(int t) {
  BufferRef r;
  r.kind = BufferRef::Kind::Tmem;
  r.index = t;
  return r;
}
BufferRef paramRef(int p) {
  BufferRef r;
  r.kind = BufferRef::Kind::Param;
  r.index = p;
  return r;
}
SlotSel iterSel(ExprPtr e) {
  SlotSel s;
  s.mode = SlotSel::Mode::Iter;
  s.index = std::move(e);
  return s;
}
SlotSel stageSel(ExprPtr e) {
  SlotSel s;
  s.mode = SlotSel::Mode::Stage;
  s.index = std::move(e);
  return s;
}

Stmt opStmt(Op op) {
  Stmt s;
  s.kind = Stmt::Kind::Op;
  s.op = std::move(op);
  return s;
}
Op mkOp(OpKind k) { return Op{k, {}}; }

}  // namespace

RandomSchedule randomSchedule(std::mt19937_64& rng, const RandomScheduleOptions& opts) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };

  RandomSchedule out;
  Schedule& s = out.schedule;
  const int S = pick(1, opts.max_stages);
  const int NC = pick(1, opts.max_consumers);
  const int K = pick(0, opts.max_trips);
  const bool sm100 = opts.allow_sm100 && chance(0.15);
  const bool tmaProducer = sm100 || chance(0.7);
  const int consumerKind = sm100 ? 2 : (chance(0.75) ? 0 : 1);  // 0 async mma, 1 generic copy, 2 tcgen05
  const bool twoLoads = tmaProducer && chance(0.3);
  const bool epilogue = opts.allow_epilogue && !sm100 && consumerKind == 0 && chance(0.3);
  // (drawn only when asked for: a seed's schedules stay what they were)
  const bool named = opts.named_rate > 0 && chance(opts.named_rate);
  const bool prodSyncsFull = named && chance(0.3);   // bar.sync instead of bar.arrive: also correct
  const bool consSyncsEmpty = named && chance(0.3);  // the same on the way back
  const bool namedBeforeWait = named && chance(0.5); // the consumer's hand-off before its ring wait
  s.name = "random";
  s.target = sm100 ? Target::SM100a : Target::SM90a;

  // bugs
  std::vector<std::string> menu = {"producer-wait-early", "producer-no-wait", "consumer-no-arrive",
                                   "consumer-arrive-next", "empty-init-count", "consumer-wait-next",
                                   "arrive-count-2"};
  if (!tmaProducer) menu.push_back("producer-no-fence");
  if (tmaProducer) menu.push_back("full-init-count-2");
  if (consumerKind == 0) { menu.push_back("mma-wait-pending-1"); menu.push_back("consumer-no-mma-wait"); }
  if (epilogue) { menu.push_back("no-store-wait"); menu.push_back("epilogue-no-fence"); }
  if (named)
    for (const char* b : {"named-no-sync-back", "named-arrive-not-sync", "named-roles-short", "named-no-sync-back",
                          "named-arrive-not-sync"})
      menu.push_back(b);
  std::set<std::string> bugs;
  if (chance(opts.bug_rate)) {
    int n = chance(0.2) ? 2 : 1;
    for (int i = 0; i < n; ++i) bugs.insert(menu[pick(0, static_cast<int>(menu.size()) - 1)]);
  }
  auto has = [&](const char* b) { return bugs.count(b) > 0; };
  out.bugs.assign(bugs.begin(), bugs.end());

  // params: A, B (tma2d), C (tma2d), K (i32)
  s.params = {{"A", ParamType::Tma2d, {}}, {"B", ParamType::Tma2d, {}}, {"C", ParamType::Tma2d, {}},
              {"K", ParamType::I32, {}}};
  const int pK = 3;
  out.binding.params[pK] = K;

  // storage: tiles of 8x8 bf16 = 128 bytes
  const int tile = 128;
  s.pools.push_back({"pool", c(tile * (2 * S + NC + 1)), {}});
  auto view = [&](std::string name, int offset, int stages) {
    View v;
    v.name = std::move(name);
    v.pool = 0;
    v.offset = c(offset);
    v.shape = {c(8), c(8)};
    v.dtype = DType::BF16;
    v.stages = stages;
    s.views.push_back(v);
    return static_cast<int>(s.views.size()) - 1;
  };
  int vA = view("smem_a", 0, S);
  int vB = view("smem_b", tile * S, S);
  int vC = view("smem_c", tile * 2 * S, NC);
  int vX = named ? view("smem_x", tile * (2 * S + NC), 1) : -1;
  auto regs = [&](std::string name) {
    Regs r;
    r.name = std::move(name);
    r.shape = {c(8), c(8)};
    r.dtype = DType::F32;
    s.regs.push_back(r);
    return static_cast<int>(s.regs.size()) - 1;
  };
  int rP = regs("frag_p"), rC = regs("frag_c"), rAcc = regs("acc");
  int tAcc = -1;
  if (sm100) {
    Tmem t;
    t.name = "tmem_acc";
    t.cols = c(0);
    t.width = c(8);
    t.shape = {c(8), c(8)};
    s.tmems.push_back(t);
    tAcc = 0;
  }

  Role prod;
  prod.name = "producer";
  prod.warps = {0};
  Role cons;
  cons.name = "consumers";
  for (int w = 0; w < 4 * NC; ++w) cons.warps.push_back(4 + w);
  cons.group = 4;
  s.roles = {prod, cons};

  Barrier full;
  full.name = "full";
  full.count = S;
  full.prod = {0};
  full.cons = {1};
  full.init_count = has("full-init-count-2") ? 2 : 1;
  Barrier empty;
  empty.name = "empty";
  empty.count = S;
  empty.prod = {1};
  empty.cons = {0};
  empty.init_count = NC;
  if (has("empty-init-count")) empty.init_count = NC == 1 ? 2 : (chance(0.5) ? NC - 1 : NC + 1);
  s.barriers = {full, empty};
  const int bFull = 0, bEmpty = 1;
  const int nFull = 0, nEmpty = 1;
  if (named) {
    ir::NamedBarrier xf, xe;
    xf.name = "x_full";
    xf.roles = has("named-roles-short") ? std::vector<int>{1} : std::vector<int>{0, 1};
    xe.name = "x_empty";
    xe.roles = {0, 1};
    s.named_barriers = {xf, xe};
  }
  auto namedOp = [&](OpKind k, int nb) {
    Op o = mkOp(k);
    o.named_barrier = nb;
    return opStmt(o);
  };
  s.loop_vars = {{"k", {}}, {"k", {}}};

  auto forK = [&](int lv, Block body) {
    Stmt st;
    st.kind = Stmt::Kind::For;
    st.loop_var = lv;
    st.lo = c(0);
    st.hi = param(pK);
    st.step = c(1);
    st.body = std::move(body);
    return st;
  };

  // ---- producer
  Block pb;
  {
    ExprPtr k = loopVar(0);
    if (!has("producer-no-wait")) {
      Op w = mkOp(OpKind::Wait);
      w.barrier = bEmpty;
      w.sel = iterSel(add(k, has("producer-wait-early") ? -(S - 1) : -S));
      pb.push_back(opStmt(w));
    }
    if (tmaProducer) {
      for (int v : twoLoads ? std::vector<int>{vA, vB} : std::vector<int>{vA}) {
        Op l = mkOp(OpKind::TmaLoad);
        l.dst = viewRef(v, k);
        l.src = paramRef(v == vA ? 0 : 1);
        l.coords = {c(0), mul(k, 8)};
        l.sel = iterSel(k);
        l.barrier = bFull;
        pb.push_back(opStmt(l));
      }
    } else {
      Op cp = mkOp(OpKind::Copy);
      cp.dst = viewRef(vA, k);
      cp.src = regsRef(rP);
      pb.push_back(opStmt(cp));
      if (!has("producer-no-fence")) pb.push_back(opStmt(mkOp(OpKind::FenceProxy)));
      Op a = mkOp(OpKind::Arrive);
      a.barrier = bFull;
      a.sel = iterSel(k);
      pb.push_back(opStmt(a));
    }
    if (named) {
      Op w = mkOp(OpKind::Copy);
      w.dst = viewRef(vX, c(0));
      w.src = regsRef(rP);
      pb.push_back(opStmt(w));
      pb.push_back(namedOp(prodSyncsFull ? OpKind::Sync : OpKind::BarArrive, nFull));
      if (!has("named-no-sync-back")) pb.push_back(namedOp(OpKind::Sync, nEmpty));
    }
  }
  s.bodies.push_back({0, {forK(0, pb)}, {}});

  // ---- consumers
  Block cb;
  auto consumerHandOff = [&]() {
    if (!named) return;
    cb.push_back(namedOp(has("named-arrive-not-sync") ? OpKind::BarArrive : OpKind::Sync, nFull));
    Op r = mkOp(OpKind::Copy);
    r.dst = regsRef(rC);
    r.src = viewRef(vX, c(0));
    cb.push_back(opStmt(r));
    cb.push_back(namedOp(consSyncsEmpty ? OpKind::Sync : OpKind::BarArrive, nEmpty));
  };
  {
    ExprPtr k = loopVar(1);
    if (namedBeforeWait) consumerHandOff();
    Op w = mkOp(OpKind::Wait);
    w.barrier = bFull;
    w.sel = iterSel(add(k, has("consumer-wait-next") ? 1 : 0));
    cb.push_back(opStmt(w));
    ExprPtr rel = add(k, has("consumer-arrive-next") ? 1 : 0);
    auto arriveEmpty = [&]() {
      if (has("consumer-no-arrive")) return;
      Op a = mkOp(OpKind::Arrive);
      a.barrier = bEmpty;
      a.sel = iterSel(rel);
      if (has("arrive-count-2")) a.count = c(2);
      cb.push_back(opStmt(a));
    };
    if (consumerKind == 0) {
      Op m = mkOp(OpKind::Mma);
      m.dst = regsRef(rAcc);
      m.src = viewRef(vA, k);
      m.src2 = viewRef(twoLoads ? vB : vA, k);
      m.init = makeExpr(ExprKind::Eq, {k, c(0)});
      cb.push_back(opStmt(m));
      cb.push_back(opStmt(mkOp(OpKind::MmaCommit)));
      if (!has("consumer-no-mma-wait")) {
        Op mw = mkOp(OpKind::MmaWait);
        mw.pending = c(has("mma-wait-pending-1") ? 1 : 0);
        cb.push_back(opStmt(mw));
      }
      arriveEmpty();
    } else if (consumerKind == 1) {
      Op cp = mkOp(OpKind::Copy);
      cp.dst = regsRef(rC);
      cp.src = viewRef(vA, k);
      cb.push_back(opStmt(cp));
      arriveEmpty();
    } else {
      Op m = mkOp(OpKind::Mma);
      m.dst = tmemRef(tAcc);
      m.src = viewRef(vA, k);
      m.src2 = viewRef(twoLoads ? vB : vA, k);
      cb.push_back(opStmt(m));
      Op cm = mkOp(OpKind::MmaCommit);
      if (!has("consumer-no-arrive")) {
        cm.barrier = bEmpty;
        cm.sel = iterSel(rel);
      }
      cb.push_back(opStmt(cm));
      if (has("arrive-count-2")) {
        Op a = mkOp(OpKind::Arrive);
        a.barrier = bEmpty;
        a.sel = iterSel(rel);
        cb.push_back(opStmt(a));
      }
    }
  }
  if (!namedBeforeWait) consumerHandOff();
  Block consumerBody = {forK(1, cb)};
  if (epilogue) {
    Op cp = mkOp(OpKind::Copy);
    cp.dst = viewRef(vC, instance());
    cp.src = regsRef(rAcc);
    consumerBody.push_back(opStmt(cp));
    if (!has("epilogue-no-fence")) consumerBody.push_back(opStmt(mkOp(OpKind::FenceProxy)));
    Op st = mkOp(OpKind::TmaStore);
    st.dst = paramRef(2);
    st.src = viewRef(vC, nullptr);
    st.coords = {mul(instance(), 8), c(0)};
    st.sel = stageSel(instance());
    consumerBody.push_back(opStmt(st));
    consumerBody.push_back(opStmt(mkOp(OpKind::TmaStoreCommit)));
    if (!has("no-store-wait")) {
      Op sw = mkOp(OpKind::TmaStoreWait);
      sw.pending = c(0);
      consumerBody.push_back(opStmt(sw));
    }
  }
  s.bodies.push_back({1, consumerBody, {}});

  std::string bl;
  for (const auto& b : out.bugs) bl += (bl.empty() ? "" : ",") + b;
  std::string handoff = !named ? ""
                        : fmt::format("+named({}/{}{})", prodSyncsFull ? "sync" : "arrive",
                                      consSyncsEmpty ? "sync" : "arrive", namedBeforeWait ? ",first" : "");
  out.description = fmt::format("S={} NC={} K={} {} {}/{}{}{} bugs=[{}]", S, NC, K, sm100 ? "sm_100a" : "sm_90a",
                                tmaProducer ? (twoLoads ? "tma2" : "tma") : "copy",
                                consumerKind == 0 ? "mma" : consumerKind == 1 ? "copy" : "tcgen05",
                                epilogue ? "+store" : "", handoff, bl);
  return out;
}

}  // namespace cake::encoder
