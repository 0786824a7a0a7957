#include "encoder/bv_prover.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <atomic>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <z3++.h>

#include "encoder/bv_linear.h"
#include "encoder/defined_premise.h"
#include "encoder/holds_cache.h"
#include "encoder/integer_solver.h"
#include "encoder/z3_solver.h"

namespace cake::encoder {

std::string_view bvVerdictName(BvVerdict v) {
  switch (v) {
    case BvVerdict::Holds: return "holds";
    case BvVerdict::Fails: return "fails";
    case BvVerdict::Unknown: return "unknown";
    case BvVerdict::Error: return "error";
  }
  return "error";
}

// ------------------------------------------------------------------ model

bool BvModel::empty() const {
  if (!params.empty() || !loop_vars.empty() || instance) return false;
  for (int d = 0; d < 3; ++d)
    if (block_idx[d] || grid_dim[d]) return false;
  return true;
}

ir::EvalEnv BvModel::env(const ir::Schedule& s, int64_t fill) const {
  ir::EvalEnv e;
  for (size_t i = 0; i < s.params.size(); ++i) e.params[static_cast<int>(i)] = fill;
  for (size_t i = 0; i < s.loop_vars.size(); ++i) e.loop_vars[static_cast<int>(i)] = fill;
  for (auto& [k, v] : params) e.params[k] = v;
  for (auto& [k, v] : loop_vars) e.loop_vars[k] = v;
  e.instance = instance ? *instance : fill;
  for (int d = 0; d < 3; ++d) {
    e.grid_dim[d] = grid_dim[d] ? *grid_dim[d] : std::max<int64_t>(fill, 1);
    e.block_idx[d] = block_idx[d] ? *block_idx[d] : 0;
  }
  return e;
}

static std::string symbolName(const ir::Schedule& s, char kind, int index) {
  switch (kind) {
    case 'p':
      if (index >= 0 && index < static_cast<int>(s.params.size())) return s.params[index].name;
      return "param#" + std::to_string(index);
    case 'v':
      if (index >= 0 && index < static_cast<int>(s.loop_vars.size())) return s.loop_vars[index].name;
      return "loop#" + std::to_string(index);
    case 'i': return "lm.instance()";
    case 'b': return "lm.block_idx(" + std::to_string(index) + ")";
    case 'g': return "lm.grid_dim(" + std::to_string(index) + ")";
  }
  return "?";
}

// Sets the value of the free symbol (kind, index) (freeSymbol's key).
static void putSymbol(BvModel& m, char kind, int index, int64_t v) {
  switch (kind) {
    case 'p': m.params[index] = v; break;
    case 'v': m.loop_vars[index] = v; break;
    case 'i': m.instance = v; break;
    case 'b': m.block_idx[index] = v; break;
    case 'g': m.grid_dim[index] = v; break;
  }
}

std::string BvModel::toString(const ir::Schedule& s) const {
  std::ostringstream os;
  bool first = true;
  auto put = [&](const std::string& name, int64_t v) {
    os << (first ? "" : ", ") << name << " = " << v;
    first = false;
  };
  for (auto& [k, v] : params) put(symbolName(s, 'p', k), v);
  for (auto& [k, v] : loop_vars) put(symbolName(s, 'v', k), v);
  if (instance) put(symbolName(s, 'i', 0), *instance);
  for (int d = 0; d < 3; ++d)
    if (grid_dim[d]) put(symbolName(s, 'g', d), *grid_dim[d]);
  for (int d = 0; d < 3; ++d)
    if (block_idx[d]) put(symbolName(s, 'b', d), *block_idx[d]);
  return os.str();
}

nlohmann::json BvModel::toJson(const ir::Schedule& s) const {
  nlohmann::json j = nlohmann::json::object();
  for (auto& [k, v] : params) j[symbolName(s, 'p', k)] = v;
  for (auto& [k, v] : loop_vars) j[symbolName(s, 'v', k)] = v;
  if (instance) j[symbolName(s, 'i', 0)] = *instance;
  for (int d = 0; d < 3; ++d) {
    if (grid_dim[d]) j[symbolName(s, 'g', d)] = *grid_dim[d];
    if (block_idx[d]) j[symbolName(s, 'b', d)] = *block_idx[d];
  }
  return j;
}

bool hasFreeSymbols(const ir::Expr& e) {
  using K = ir::ExprKind;
  return ir::exprUses(e, {K::Param, K::LoopVar, K::BlockIdx, K::GridDim, K::Instance});
}

std::optional<std::pair<char, int>> freeSymbol(const ir::Expr& e) {
  switch (e.kind) {
    case ir::ExprKind::Param: return std::make_pair('p', e.index);
    case ir::ExprKind::LoopVar: return std::make_pair('v', e.index);
    case ir::ExprKind::Instance: return std::make_pair('i', 0);
    case ir::ExprKind::BlockIdx:
    case ir::ExprKind::GridDim:
      if (e.index < 0 || e.index > 2) return std::nullopt;
      return std::make_pair(e.kind == ir::ExprKind::BlockIdx ? 'b' : 'g', e.index);
    default: return std::nullopt;
  }
}

namespace {

// The kinds of free symbols of e ('p' parameter, 'v' loop variable, 'b'
// block index, 'g' grid size, 'i' instance), as the translation names them.
void symbolKinds(const ir::Expr& e, std::set<char>& out) {
  switch (e.kind) {
    case ir::ExprKind::Param: out.insert('p'); break;
    case ir::ExprKind::LoopVar: out.insert('v'); break;
    case ir::ExprKind::BlockIdx: out.insert('b'); break;
    case ir::ExprKind::GridDim: out.insert('g'); break;
    case ir::ExprKind::Instance: out.insert('i'); break;
    default: break;
  }
  for (const auto& a : e.args)
    if (a) symbolKinds(*a, out);
}

}  // namespace

// A query whose cone of influence (the goal and every fact that shares a
// symbol with it or has none) mentions no symbol but lm.instance() -- a
// warpgroup's slice of an accumulator, `64 * lm.instance() ...` -- is
// decided by evaluating it at every value of the instance's domain
// [0, 1024), as constant folding decides a goal without symbols: the same
// formula, 1,024 evaluations instead of bit-blasting 64-bit products (40-120
// ms a query). Where the evaluation is undefined at some value (overflow,
// division by zero, a construct it does not take) the query goes to Z3.
// prove: Fails at the first value where every fact holds and the goal does
// not; witness (`want_true`): Fails at the first value where it holds.
std::optional<BvResult> decideOverInstances(const ir::Schedule& s, const ir::Expr& goal,
                                            const std::vector<ir::ExprPtr>& premises, bool want_true) {
  std::set<char> kinds;
  symbolKinds(goal, kinds);
  if (kinds != std::set<char>{'i'}) return std::nullopt;
  std::vector<const ir::Expr*> facts;
  auto consider = [&](const ir::ExprPtr& f) {
    if (!f) return true;
    std::set<char> k;
    symbolKinds(*f, k);
    if (k.empty() || k.count('i')) {
      if (k.size() > (k.count('i') ? 1u : 0u)) return false;  // instance and other symbols: Z3
      facts.push_back(f.get());
    }
    return true;
  };
  for (const ir::Assume& a : s.assumes)
    if (!consider(a.cond)) return std::nullopt;
  for (const ir::ExprPtr& p : premises)
    if (!consider(p)) return std::nullopt;
  std::optional<int64_t> hit;
  for (int64_t v = 0; v < 1024 && !hit; ++v) {
    ir::EvalEnv env;
    env.instance = v;
    bool holds = true;
    for (const ir::Expr* f : facts) {
      std::optional<int64_t> x = ir::evaluate(*f, env);
      if (!x) return std::nullopt;
      holds = holds && *x != 0;
    }
    if (!holds) continue;
    std::optional<int64_t> g = ir::evaluate(goal, env);
    if (!g) return std::nullopt;
    if ((*g != 0) == want_true) hit = v;
  }
  BvResult r;
  r.kind = hit ? BvVerdict::Fails : BvVerdict::Holds;
  if (hit) r.model.instance = r.goal_model.instance = *hit;
  return r;
}

// ----------------------------------------------------------- translation

namespace {

constexpr unsigned kBits = 64;

// Thrown for constructs an encoding (bit-vector or integer) does not
// cover; the query answers Unknown with the message.
struct Unsupported {
  std::string what;
};

// The verdict of a query's answer (z3w::check): unsat Holds, sat Fails (the
// model is the caller's to read), Z3's unknown Unknown -- never a pass --
// and an error Error, both with Z3's reason in `detail`.
BvVerdict verdictOf(z3w::Answer a) {
  switch (a) {
    case z3w::Answer::Correct: return BvVerdict::Holds;
    case z3w::Answer::Incorrect: return BvVerdict::Fails;
    case z3w::Answer::FailedToProve: return BvVerdict::Unknown;
    case z3w::Answer::Error: break;
  }
  return BvVerdict::Error;
}
BvResult resultOf(const z3w::QueryResult& q) {
  BvResult r;
  r.kind = verdictOf(q.answer);
  r.detail = q.reason;
  r.seconds = q.seconds;
  return r;
}

// Runs a query's translation and solving: a construct the encoding does not
// take makes it Unknown ("unsupported: ..."), a Z3 exception outside the
// solver's check an Error ("z3: ..."), in `kind` and `detail`.
template <class Body>
void guardQuery(BvVerdict& kind, std::string& detail, Body&& body) {
  try {
    body();
  } catch (const Unsupported& u) {
    kind = BvVerdict::Unknown;
    detail = "unsupported: " + u.what;
  } catch (const z3::exception& ex) {
    kind = BvVerdict::Error;
    detail = std::string("z3: ") + ex.msg();
  }
}

// Queries that hold, remembered for the whole process (every schedule,
// every thread): the same question asked again (a layout gate's facts on
// each parameter value, a mutant's gates, which are its original's) is
// answered without the solver. Only Holds is kept: unsat is a fact about
// the formula, which the key determines (what solve() translates: the
// goal, the premises, the schedule's lm.assume facts and its parameters'
// types, and the switches that choose the facts), whatever the limits,
// the context or the load; a model (Fails) would depend on the context's
// history, and Unknown on the limits. A hit adds the work the query
// counted when it ran (threadQueryWork), so every budget that charges
// queries charges the same (docs/benchmarks.md "Session 38 (helper
// perf38)").
std::atomic<bool> g_holds_cache{false};

class HoldsCache {
 public:
  static HoldsCache& get() {
    static HoldsCache* c = new HoldsCache();  // (never destroyed: threads may ask at exit)
    return *c;
  }
  std::optional<z3w::QueryWork> find(const std::string& key) {
    if (!g_holds_cache.load(std::memory_order_relaxed)) return std::nullopt;
    std::lock_guard<std::mutex> lock(m_);
    auto it = held_.find(key);
    if (it == held_.end()) return std::nullopt;
    return it->second;
  }
  void add(std::string key, const z3w::QueryWork& w) {
    if (!g_holds_cache.load(std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(m_);
    if (bytes_ + key.size() > kMaxBytes) return;  // (full: later queries run as before)
    bytes_ += key.size() + 64;
    held_.emplace(std::move(key), w);
  }

  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    held_.clear();
    bytes_ = 0;
  }

 private:
  static constexpr size_t kMaxBytes = size_t{64} << 20;
  std::mutex m_;
  std::unordered_map<std::string, z3w::QueryWork> held_;
  size_t bytes_ = 0;
};

// Answers that depend on the context's history, kept for the process: a
// failing query's model (and an optimum) is what Z3 finds in a context that
// answered a given sequence of queries before it, so it is kept under that
// sequence and the query. A context's history is a node of a trie of query
// keys (node 0: a fresh context; each edge a query's key, its child the
// history after it), numbered as first seen. The same question asked in the
// same history (a mutant's layout gates are its original's, asked in the
// same order) gets the answer Z3 gave, model included, without the solver:
// Z3 is deterministic given the calls made on a context, which the keys
// determine (HoldsCache: what the query translates; perf38's replay showed
// every later model equal). Only complete answers are kept (Holds and Fails,
// never Unknown or Error: a timeout leaves a context whose history is no
// longer known, and its prover stops using the record), and one answers a
// query only where its resource units fit that query's resource limit (the
// run would have ended the same way). A hit adds the work the query counted,
// as HoldsCache's (docs/benchmarks.md "Session 39 (perf39)").
class HistoryAnswers {
 public:
  struct Answer {
    BvResult result;
    int64_t best = 0;        // optimize(): the first objective's optimum
    z3w::QueryWork work;     // the queries and resource units it counted
    uint64_t units = 0;      // Z3's own resource units (unweighted)
  };
  static constexpr int64_t kUntracked = -1;

  static HistoryAnswers& get() {
    static HistoryAnswers* c = new HistoryAnswers();  // (never destroyed: threads may ask at exit)
    return *c;
  }
  // The history after `from` asks `key` (kUntracked where the record is
  // full), and the answer recorded there, if any.
  std::pair<int64_t, std::optional<Answer>> step(int64_t from, const std::string& key) {
    if (from == kUntracked || !g_holds_cache.load(std::memory_order_relaxed)) return {kUntracked, std::nullopt};
    std::lock_guard<std::mutex> lock(m_);
    auto it = edges_.find(edgeKey(from, key));
    if (it != edges_.end()) return {it->second.child, it->second.answer};
    if (bytes_ + key.size() > kMaxBytes) return {kUntracked, std::nullopt};
    bytes_ += key.size() + 128;
    const int64_t child = ++nodes_;
    edges_.emplace(edgeKey(from, key), Edge{child, std::nullopt});
    return {child, std::nullopt};
  }
  void add(int64_t from, const std::string& key, Answer a) {
    if (from == kUntracked) return;
    std::lock_guard<std::mutex> lock(m_);
    auto it = edges_.find(edgeKey(from, key));
    if (it != edges_.end() && !it->second.answer) it->second.answer = std::move(a);
  }
  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    edges_.clear();
    bytes_ = 0;
    nodes_ = 0;
  }

 private:
  struct Edge {
    int64_t child;
    std::optional<Answer> answer;
  };
  static std::string edgeKey(int64_t from, const std::string& key) {
    std::string k(reinterpret_cast<const char*>(&from), sizeof from);
    return k + key;
  }
  static constexpr size_t kMaxBytes = size_t{64} << 20;
  std::mutex m_;
  std::unordered_map<std::string, Edge> edges_;
  size_t bytes_ = 0;
  int64_t nodes_ = 0;
};

// The key's words: an expression written out whole (kind, value, index,
// its arguments), so two keys are equal only for the same formula.
void appendExpr(std::string& key, const ir::Expr& e) {
  auto word = [&](int64_t x) { key.append(reinterpret_cast<const char*>(&x), sizeof x); };
  word(static_cast<int64_t>(e.kind));
  word(e.value);
  word(e.index);
  word(static_cast<int64_t>(e.args.size()));
  for (const ir::ExprPtr& a : e.args) {
    if (a) appendExpr(key, *a);
    else word(-1);
  }
}

// What every query of a schedule translates besides its own expressions:
// the lm.assume facts and the parameters' types.
void appendScheduleContext(std::string& key, const ir::Schedule& s) {
  key.push_back('#');
  for (const ir::Assume& a : s.assumes) {
    if (a.cond) appendExpr(key, *a.cond);
    key.push_back(';');
  }
  key.push_back('$');
  for (const ir::Param& p : s.params) key.push_back(static_cast<char>(p.type));
}

struct Term {
  z3::expr v;    // 64-bit value
  z3::expr def;  // definedness: no overflow, no division by zero
};

}  // namespace

struct BvProver::Impl {
  const ir::Schedule& s;
  Limits limits;
  // The Z3 context, made on first use: a prover whose every query is
  // answered from the records (a mutant's layout gates) never makes one
  // (about 0.75 ms of CPU each).
  std::optional<z3::context> context;
  z3::context& ctx() {
    if (!context) context.emplace();
    return *context;
  }
  // Free symbols created so far: key (kind, index) -> term, plus domain facts.
  std::map<std::pair<char, int>, z3::expr> symbols;
  std::map<std::pair<char, int>, z3::expr> domains;
  int query_count = 0;
  bool linear_subsets = false;  // (BvProver::linearSubsets)

  // setBudget(): all queries from `start` on share budget_ms (one
  // obligation); each gets at most what is left. 0: none.
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  unsigned budget_ms = 0;
  uint64_t optimizer_rlimit = 0;  // (BvProver::optimizerRlimit)

  // Per lm.assume fact: may it be undefined (facts())?
  std::vector<bool> weak_assumes;

  Impl(const ir::Schedule& sched, Limits l) : s(sched), limits(l) {
    for (const ir::Assume& a : s.assumes) weak_assumes.push_back(a.cond && !definedByWidth(s, *a.cond));
  }

  // Which facts of a query (the assumptions, then `premises`) read
  // "undefined or true" (facts()).
  std::vector<bool> weakFacts(const std::vector<ir::ExprPtr>& premises) const {
    std::vector<bool> out = weak_assumes;
    for (const ir::ExprPtr& p : premises) out.push_back(p && !definedByWidth(s, *p));
    return out;
  }

  // This query's limits, or nullopt when the budget is used up.
  std::optional<Limits> queryLimits() const {
    if (budget_ms == 0) return limits;
    const double used = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (used >= budget_ms) return std::nullopt;
    Limits l = limits;
    const unsigned left = std::max(1u, static_cast<unsigned>(budget_ms - used));
    l.timeout_ms = l.timeout_ms == 0 ? left : std::min(l.timeout_ms, left);
    return l;
  }
  std::string usedUp() const { return fmt::format("timeout (the budget of {} ms is used up)", budget_ms); }

  z3::expr num(int64_t v) { return ctx().bv_val(static_cast<int64_t>(v), kBits); }
  z3::expr tru() { return ctx().bool_val(true); }

  z3::expr symbol(char kind, int index, std::set<std::pair<char, int>>* used) {
    auto key = std::make_pair(kind, index);
    if (used) used->insert(key);
    if (kind == 'b') symbol('g', index, used);  // block_idx's domain mentions grid_dim
    auto it = symbols.find(key);
    if (it != symbols.end()) return it->second;
    std::string name = std::string(1, kind) + std::to_string(index);
    z3::expr x = ctx().bv_const(name.c_str(), kBits);
    const int64_t i32min = INT32_MIN, i32max = INT32_MAX;
    std::vector<z3::expr> dom;
    switch (kind) {
      case 'p':
        if (index < 0 || index >= static_cast<int>(s.params.size()))
          throw Unsupported{"parameter index " + std::to_string(index) + " out of range"};
        if (s.params[index].type != ir::ParamType::I32)
          throw Unsupported{"parameter '" + s.params[index].name + "' (" +
                            std::string(ir::paramTypeName(s.params[index].type)) +
                            ") in an integer expression"};
        dom.push_back(z3::sge(x, num(i32min)) && z3::sle(x, num(i32max)));
        break;
      case 'v':  // (its loop's bounds, where the width argument bounds them)
        if (const std::optional<WidthRange> r = loopVarRange(s, index))
          dom.push_back(z3::sge(x, num(r->lo)) && z3::sle(x, num(r->hi)));
        break;
      case 'i':
        dom.push_back(z3::sge(x, num(0)) && z3::slt(x, num(1024)));
        break;
      case 'g':
        dom.push_back(z3::sge(x, num(1)) && z3::sle(x, num(i32max)));
        break;
      case 'b': {
        z3::expr g = symbols.at({'g', index});
        dom.push_back(z3::sge(x, num(0)) && z3::slt(x, g));
        break;
      }
    }
    symbols.emplace(key, x);
    domains.emplace(key, dom.empty() ? ctx().bool_val(true) : dom.front());
    return x;
  }

  static z3::expr truth(const z3::expr& v) { return v != v.ctx().bv_val(0, kBits); }
  z3::expr fromBool(const z3::expr& b) { return z3::ite(b, num(1), num(0)); }

  // Side conditions of the current query: the defining axioms of the
  // quotient/remainder variables introduced for // and %.
  std::vector<z3::expr> axioms;
  std::map<std::pair<unsigned, unsigned>, std::tuple<z3::expr, z3::expr, size_t>> divs;  // (a, b) -> q, r, axiom
  std::set<size_t>* touched = nullptr;  // axioms the expression being translated relies on
  int fresh = 0;

  void resetQuery() {
    axioms.clear();
    divs.clear();
  }

  // Python floor division: (q, r) with a == q*b + r, r of b's sign and
  // |r| < |b|. A positive constant power-of-two divisor is a shift and a
  // mask (exact in two's complement). Any other divisor gets fresh q, r and
  // those axioms, which bit-blast to a multiplier instead of a divider
  // circuit (much easier for the SAT solver); the product is taken in 66
  // bits, where the true q*b always fits, and must not wrap there. The axioms are guarded by definedness, so
  // an undefined division constrains nothing.
  std::pair<z3::expr, z3::expr> floorDivMod(const z3::expr& a, const z3::expr& b, const z3::expr& defined) {
    if (b.is_numeral()) {
      uint64_t u = 0;
      if (b.is_numeral_u64(u) && u > 0 && u < (uint64_t(1) << 62) && (u & (u - 1)) == 0) {
        unsigned k = 0;
        while ((uint64_t(1) << k) != u) ++k;
        if (k == 0) return {a, num(0)};
        z3::expr q = z3::ashr(a, ctx().bv_val(k, kBits));
        z3::expr r = a & ctx().bv_val(u - 1, kBits);
        return {q, r};
      }
    }
    auto key = std::make_pair(a.id(), b.id());
    if (auto it = divs.find(key); it != divs.end()) {
      if (touched) touched->insert(std::get<2>(it->second));
      return {std::get<0>(it->second), std::get<1>(it->second)};
    }
    std::string n = std::to_string(fresh++);
    z3::expr q = ctx().bv_const(("q!" + n).c_str(), kBits);
    z3::expr r = ctx().bv_const(("r!" + n).c_str(), kBits);
    auto wide = [](const z3::expr& x) { return z3::sext(x, 2); };
    z3::expr zero = num(0);
    z3::expr qb = wide(q) * wide(b);
    z3::expr eqn = z3::bvmul_no_overflow(wide(q), wide(b), true) && z3::bvmul_no_underflow(wide(q), wide(b)) &&
                   wide(a) == qb + wide(r);
    z3::expr sign = z3::ite(z3::sgt(b, zero), z3::sge(r, zero) && z3::slt(r, b), z3::sle(r, zero) && z3::sgt(r, b));
    axioms.push_back(z3::implies(defined, eqn && sign));
    divs.emplace(key, std::make_tuple(q, r, axioms.size() - 1));
    if (touched) touched->insert(axioms.size() - 1);
    return {q, r};
  }

  Term tr(const ir::Expr& e, std::set<std::pair<char, int>>* used) {
    using K = ir::ExprKind;
    switch (e.kind) {
      case K::Const: return {num(e.value), tru()};
      case K::Param: return {symbol('p', e.index, used), tru()};
      case K::LoopVar: return {symbol('v', e.index, used), tru()};
      case K::Instance: return {symbol('i', 0, used), tru()};
      case K::BlockIdx:
        if (e.index < 0 || e.index > 2) throw Unsupported{"lm.block_idx dimension out of range"};
        return {symbol('b', e.index, used), tru()};
      case K::GridDim:
        if (e.index < 0 || e.index > 2) throw Unsupported{"lm.grid_dim dimension out of range"};
        return {symbol('g', e.index, used), tru()};
      default: break;
    }
    auto arg = [&](size_t i) -> Term {
      if (i >= e.args.size() || !e.args[i]) throw Unsupported{"malformed expression"};
      return tr(*e.args[i], used);
    };
    if (e.kind == K::Neg || e.kind == K::Not) {
      if (e.args.size() != 1) throw Unsupported{"malformed expression"};
      Term a = arg(0);
      if (e.kind == K::Neg) return {-a.v, a.def && z3::bvneg_no_overflow(a.v)};
      return {fromBool(!truth(a.v)), a.def};
    }
    if (e.args.size() != 2) throw Unsupported{"malformed expression"};
    Term a = arg(0), b = arg(1);
    switch (e.kind) {
      case K::Add:
        return {a.v + b.v, a.def && b.def && z3::bvadd_no_overflow(a.v, b.v, true) &&
                               z3::bvadd_no_underflow(a.v, b.v)};
      case K::Sub:
        return {a.v - b.v, a.def && b.def && z3::bvsub_no_overflow(a.v, b.v) &&
                               z3::bvsub_no_underflow(a.v, b.v, true)};
      case K::Mul:
        return {a.v * b.v, a.def && b.def && z3::bvmul_no_overflow(a.v, b.v, true) &&
                               z3::bvmul_no_underflow(a.v, b.v)};
      case K::FloorDiv: {
        z3::expr def = a.def && b.def && truth(b.v) && z3::bvsdiv_no_overflow(a.v, b.v);
        return {floorDivMod(a.v, b.v, def).first, def};
      }
      case K::Mod: {
        // Python: MIN % -1 == 0 is defined; the axioms still hold there (q = 2^63 fits 66 bits
        // but not 64), so guard them like //, and define the result directly.
        z3::expr def = a.def && b.def && truth(b.v);
        z3::expr div_def = def && z3::bvsdiv_no_overflow(a.v, b.v);
        z3::expr r = floorDivMod(a.v, b.v, div_def).second;
        return {z3::ite(div_def, r, num(0)), def};
      }
      case K::CDiv: {
        // -((-a) // b)
        z3::expr na = -a.v;
        z3::expr def = a.def && b.def && z3::bvneg_no_overflow(a.v) && truth(b.v) && z3::bvsdiv_no_overflow(na, b.v);
        z3::expr q = floorDivMod(na, b.v, def).first;
        return {-q, def && z3::bvneg_no_overflow(q)};
      }
      case K::Min: return {z3::ite(z3::sle(a.v, b.v), a.v, b.v), a.def && b.def};
      case K::Max: return {z3::ite(z3::sge(a.v, b.v), a.v, b.v), a.def && b.def};
      case K::Lt: return {fromBool(z3::slt(a.v, b.v)), a.def && b.def};
      case K::Le: return {fromBool(z3::sle(a.v, b.v)), a.def && b.def};
      case K::Gt: return {fromBool(z3::sgt(a.v, b.v)), a.def && b.def};
      case K::Ge: return {fromBool(z3::sge(a.v, b.v)), a.def && b.def};
      case K::Eq: return {fromBool(a.v == b.v), a.def && b.def};
      case K::Ne: return {fromBool(a.v != b.v), a.def && b.def};
      // Short-circuit: `n > 0 and k % n == 0` is defined when n == 0.
      case K::And: return {fromBool(truth(a.v) && truth(b.v)), a.def && (!truth(a.v) || b.def)};
      case K::Or: return {fromBool(truth(a.v) || truth(b.v)), a.def && (truth(a.v) || b.def)};
      default: break;
    }
    throw Unsupported{"unsupported expression kind"};
  }

  // One conjunct of a query with the symbols and axioms it relies on.
  struct Part {
    z3::expr e;
    std::set<std::pair<char, int>> syms;
    std::set<size_t> axs;
    std::optional<z3::expr> weak_def;  // a fact read "undefined or true": its definedness
    const ir::Expr* source = nullptr;  // (the fact, for messages)
    bool assumed = false;              // an lm.assume fact
  };

  // A fact: defined and true; with `weak`, undefined or true.
  Part part(const ir::Expr& x, bool weak = false) {
    Part p{ctx().bool_val(true), {}, {}};
    touched = &p.axs;
    Term t = tr(x, &p.syms);
    touched = nullptr;
    p.e = weak ? !t.def || truth(t.v) : t.def && truth(t.v);
    if (weak) p.weak_def = t.def;
    p.source = &x;
    return p;
  }

  // Facts every query may start from: the schedule's assumptions and the
  // extra premises. A fact that may be undefined (64-bit overflow, a zero
  // divisor: the width argument of encoder/defined_premise.h does not show
  // it defined) reads "undefined or true" (sound52): Python's integers
  // evaluate it where 64 bits do not, maybe to true, so it narrows only
  // where it is defined. Where it is defined everywhere the other facts
  // allow, that is the same set of values as "defined and true". `strong`
  // reads every fact defined and true: a search for values the schedule
  // must allow (smallestWitness).
  std::vector<Part> facts(const std::vector<ir::ExprPtr>& premises, bool strong = false) {
    std::vector<Part> out;
    const std::vector<bool> weak = weakFacts(premises);
    for (size_t i = 0; i < s.assumes.size(); ++i)
      if (s.assumes[i].cond) {
        out.push_back(part(*s.assumes[i].cond, weak[i] && !strong));
        out.back().assumed = true;
      }
    for (size_t i = 0; i < premises.size(); ++i)
      if (premises[i]) out.push_back(part(*premises[i], weak[s.assumes.size() + i] && !strong));
    return out;
  }

  // The solver's answer within what is left of the budget (Unknown once
  // it is used up).
  BvResult checkWithinBudget(z3::solver& sol) {
    std::optional<Limits> lim = queryLimits();
    if (!lim) {
      BvResult r;
      r.kind = BvVerdict::Unknown;
      r.detail = usedUp();
      return r;
    }
    return resultOf(z3w::check(sol, *lim));
  }

  // A model that makes a fact read "undefined or true" undefined is no
  // value the schedule is known to allow: the query is asked again with
  // those facts defined. Its model then stands; unsat leaves the query
  // Unknown (only such values were found). The query's result in `r`.
  void requireWeakFactsDefined(BvResult& r, z3::solver& sol, const std::vector<const Part*>& in) {
    const Part* hit = nullptr;
    {
      z3::model m = sol.get_model();
      for (const Part* p : in)
        if (p->weak_def && m.eval(*p->weak_def, true).is_false()) hit = p;
    }
    if (!hit) return;
    for (const Part* p : in)
      if (p->weak_def) sol.add(*p->weak_def);
    r = checkWithinBudget(sol);
    if (r.kind == BvVerdict::Holds) {
      r.kind = BvVerdict::Unknown;
      const std::string what = ir::exprToString(*hit->source, s);
      r.detail = fmt::format("found only where {} overflows 64 bits or divides by zero (it may hold there, and "
                             "narrows nothing)",
                             hit->assumed ? "lm.assume(" + what + ")" : "the condition `" + what + "`");
    }
  }

  // Cone of influence (lia::cone): the facts that share symbols with the
  // goal, transitively; leaving the others out keeps the query small (a
  // loop bound with a symbolic division, for instance).
  static std::vector<const Part*> cone(const Part& goal, const std::vector<Part>& fs,
                                       std::set<std::pair<char, int>>& syms) {
    std::vector<const Part*> out;
    for (size_t i : lia::cone(goal.syms, fs, syms)) out.push_back(&fs[i]);
    return out;
  }

  // A query's formula into `sink` (a solver or an optimizer): the domains of
  // its symbols, the facts `in` (the goal's cone) and the division axioms
  // they and the goal rely on.
  template <class Sink>
  void addQuery(Sink& sink, const Part& goal, const std::set<std::pair<char, int>>& syms,
                const std::vector<const Part*>& in) {
    std::set<size_t> axs = goal.axs;
    for (const Part* p : in) axs.insert(p->axs.begin(), p->axs.end());
    for (const auto& k : syms) {
      sink.add(domains.at(k));
      if (k.first == 'b') sink.add(domains.at({'g', k.second}));
    }
    for (const Part* p : in) sink.add(p->e);
    for (size_t i : axs) sink.add(axioms[i]);
  }

  BvModel readModel(const z3::model& m, const std::set<std::pair<char, int>>& used) {
    BvModel out;
    for (const auto& key : used) {
      auto it = symbols.find(key);
      if (it == symbols.end()) continue;
      z3::expr val = m.eval(it->second, true);
      uint64_t u = 0;
      if (!val.is_numeral_u64(u)) continue;
      putSymbol(out, key.first, key.second, static_cast<int64_t>(u));
    }
    return out;
  }

  // Core query: is `bad` (built from the goal's Part) satisfiable together
  // with the facts in its cone? unsat -> Holds, sat -> Fails + model.
  BvResult solve(const ir::Expr& goal, lia::Bad kind, const std::function<z3::expr(const Term&)>& build_bad,
                 const std::vector<ir::ExprPtr>& premises, bool probe_undefined, bool all_facts = false) {
    BvResult r;
    ++query_count;
    const std::string key = g_holds_cache.load(std::memory_order_relaxed) ? holdsKey(goal, kind, premises, all_facts) : "";
    const int64_t at = history;
    std::optional<HistoryAnswers::Answer> recorded;
    std::tie(history, recorded) = HistoryAnswers::get().step(at, key);
    auto skip = [&](BvVerdict expected, const z3w::QueryWork& w) {
      z3w::addThreadQueryWork(w);
      auto g = std::make_shared<ir::Expr>(goal);
      skipped.push_back({[this, g, kind, build_bad, premises, probe_undefined, all_facts, subsets = linear_subsets] {
                           BvResult got;
                           linear_subsets = subsets;
                           solveUncached(got, *g, kind, build_bad, premises, probe_undefined, all_facts);
                           return got.kind;
                         },
                         expected, w});
    };
    if (std::optional<z3w::QueryWork> w = HoldsCache::get().find(key)) {
      skip(BvVerdict::Holds, *w);
      r.kind = BvVerdict::Holds;
      return r;
    }
    if (recorded && fits(*recorded, true)) {
      skip(recorded->result.kind, recorded->work);
      return recorded->result;
    }
    const z3w::QueryWork w0 = z3w::threadQueryWork();
    solveUncached(r, goal, kind, build_bad, premises, probe_undefined, all_facts);
    const z3w::QueryWork w1 = z3w::threadQueryWork();
    const z3w::QueryWork w{w1.queries - w0.queries, w1.rlimit - w0.rlimit};
    if (r.kind == BvVerdict::Holds && !key.empty()) HoldsCache::get().add(key, w);
    record(at, key, r, 0, w, true);
    return r;
  }

  // The context's history (HistoryAnswers): its node, or kUntracked once a
  // query ended without an answer (a timeout, an unsupported construct) or
  // ran outside the record (allowedValues).
  int64_t history = 0;

  // The query `key` asked at history `at` answered `r` (after `w` of work):
  // kept where the history is still known and the answer complete; else
  // the history is no longer followed.
  void record(int64_t at, const std::string& key, const BvResult& r, int64_t best, const z3w::QueryWork& w,
              bool counted) {
    if (r.kind != BvVerdict::Holds && r.kind != BvVerdict::Fails) {
      history = HistoryAnswers::kUntracked;
      return;
    }
    if (history == HistoryAnswers::kUntracked) return;
    HistoryAnswers::get().add(at, key, {r, best, w, counted ? w.rlimit / rlimitWeight() : 0});
  }
  uint64_t rlimitWeight() const { return limits.rlimit > 0 ? std::max<uint64_t>(1, limits.rlimit_weight) : 1; }

  // May a recorded answer stand for this query? Only where the query would
  // run (the budget not used up) and its resource units fit this prover's
  // limit: a query that stayed below the limit runs as it did without one.
  // (An optimizer's units are not counted: with a limit it always runs.)
  bool fits(const HistoryAnswers::Answer& a, bool counted) const {
    if (!queryLimits()) return false;
    if (limits.rlimit == 0) return true;
    return counted && a.units < limits.rlimit / rlimitWeight();
  }

  // Queries answered from the holds cache or the history record and not
  // run here yet. Z3's models depend on the context's history (the terms
  // and ids the earlier queries made), so before this context runs another
  // query it runs these first, in order (replaySkipped): every query that
  // does run, runs in the context it would have had without the records,
  // and gives the same model. Their work is charged as they run, instead of
  // the record's. One that answers otherwise now (a timeout) leaves the
  // history unknown.
  struct Skipped {
    std::function<BvVerdict()> rerun;
    BvVerdict expected;
    z3w::QueryWork charged;
  };
  std::vector<Skipped> skipped;
  void replaySkipped() {
    std::vector<Skipped> todo;
    todo.swap(skipped);
    const bool subsets = linear_subsets;
    for (const Skipped& q : todo) {
      if (q.rerun() != q.expected) history = HistoryAnswers::kUntracked;
      z3w::takeThreadQueryWork(q.charged);
    }
    linear_subsets = subsets;
  }

  // The holds cache's key of a solve() query (HoldsCache).
  std::string holdsKey(const ir::Expr& goal, lia::Bad kind, const std::vector<ir::ExprPtr>& premises,
                       bool all_facts) const {
    std::string key;
    key.push_back(static_cast<char>(kind));
    key.push_back(all_facts ? 'A' : 'a');
    key.push_back(linear_subsets ? 'L' : 'l');
    appendExpr(key, goal);
    key.push_back('|');
    for (const ir::ExprPtr& p : premises) {
      if (p) appendExpr(key, *p);
      key.push_back(';');
    }
    appendContext(key);
    return key;
  }
  // What every query of this prover translates besides its own
  // expressions: the lm.assume facts and the parameters' types.
  void appendContext(std::string& key) const { appendScheduleContext(key, s); }
  // The history record's key of an optimize() query.
  std::string optimizeKey(const ir::Expr& cond, const std::vector<ir::ExprPtr>& objectives, bool maximize,
                          const std::vector<ir::ExprPtr>& premises, bool best) const {
    std::string key = maximize ? "O+" : "O-";
    key.push_back(best ? 'B' : 'b');
    appendExpr(key, cond);
    for (const std::vector<ir::ExprPtr>* list : {&objectives, &premises}) {
      key.push_back('|');
      for (const ir::ExprPtr& p : *list) {
        if (p) appendExpr(key, *p);
        key.push_back(';');
      }
    }
    appendContext(key);
    return key;
  }

  void solveUncached(BvResult& r, const ir::Expr& goal, lia::Bad kind,
                     const std::function<z3::expr(const Term&)>& build_bad, const std::vector<ir::ExprPtr>& premises,
                     bool probe_undefined, bool all_facts) {
    replaySkipped();
    // The linear pre-check (bv_linear.h): its unsat is this query's; a sat
    // answer too where no model is read (assumptionsConsistent), else the
    // bit-vector solver finds the model as before.
    if (std::optional<Limits> lim = queryLimits()) {
      const auto t0 = std::chrono::steady_clock::now();
      std::optional<bool> sat = lia::decideLinear(ctx(), s, goal, kind, premises, all_facts, *lim, linear_subsets,
                                                             weakFacts(premises));
      if (sat && (!*sat || kind == lia::Bad::Nothing)) {
        r.kind = *sat ? BvVerdict::Fails : BvVerdict::Holds;
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return;
      }
    }
    guardQuery(r.kind, r.detail, [&] {
      resetQuery();
      Part g{ctx().bool_val(true), {}, {}};
      touched = &g.axs;
      Term t = tr(goal, &g.syms);
      touched = nullptr;
      z3::expr bad = build_bad(t);
      std::vector<Part> fs = facts(premises);
      std::set<std::pair<char, int>> syms;
      std::vector<const Part*> in;
      if (all_facts) {
        syms = g.syms;
        for (const Part& p : fs) {
          in.push_back(&p);
          syms.insert(p.syms.begin(), p.syms.end());
        }
      } else {
        in = cone(g, fs, syms);
      }
      // The QF_BV tactic (simplify, solve-eqs, bit-blast, SAT) decides
      // these small formulas far faster than the general incremental core.
      z3::solver sol(ctx(), "QF_BV");
      addQuery(sol, g, syms, in);
      sol.add(bad);
      r = checkWithinBudget(sol);
      if (r.kind == BvVerdict::Fails && kind != lia::Bad::Nothing) requireWeakFactsDefined(r, sol, in);
      if (r.kind == BvVerdict::Fails) {
        z3::model m = sol.get_model();
        r.model = readModel(m, syms);
        r.goal_model = readModel(m, g.syms);
        if (probe_undefined) r.undefined = m.eval(t.def, true).is_false();
      }
    });
    touched = nullptr;
  }

  BvResult optimize(const ir::Expr& cond, const std::vector<ir::ExprPtr>& objectives, bool maximize,
                    const std::vector<ir::ExprPtr>& premises, int64_t* best);
  BvResult optimizeUncached(const ir::Expr& cond, const std::vector<ir::ExprPtr>& objectives, bool maximize,
                            const std::vector<ir::ExprPtr>& premises, int64_t* best);
  std::optional<BvResult> beforeSolver(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises, bool witness);
};

namespace {
void clearIntAnswers();  // (intWitness's record, below)
}  // namespace

void keepHoldingQueries(bool on) {
  g_holds_cache.store(on);
  if (on) return;
  HoldsCache::get().clear();
  HistoryAnswers::get().clear();
  clearIntAnswers();
}

BvProver::BvProver(const ir::Schedule& s, Limits limits) : impl_(std::make_unique<Impl>(s, limits)) {}
BvProver::~BvProver() = default;

int BvProver::queries() const { return impl_->query_count; }

void BvProver::linearSubsets(bool on) { impl_->linear_subsets = on; }

void BvProver::optimizerRlimit(uint64_t rlimit) { impl_->optimizer_rlimit = rlimit; }

void BvProver::setBudget(unsigned total_ms) {
  impl_->start = std::chrono::steady_clock::now();
  impl_->budget_ms = total_ms;
}

// prove and witness without the solver where they can: no expression; one
// that mentions no free symbol, decided by constant folding (a constant fact
// does not depend on the assumptions, so it is reported even when they are
// contradictory; witness: Fails where it holds); one decided over the
// instance's values (decideOverInstances, a query counted).
std::optional<BvResult> BvProver::Impl::beforeSolver(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises,
                                                     bool witness) {
  BvResult r;
  if (!e) {
    r.detail = witness ? "no condition" : "no goal";
    return r;
  }
  if (!hasFreeSymbols(*e)) {
    r.constant = true;
    const std::optional<int64_t> v = ir::evaluate(*e, ir::EvalEnv{});
    r.undefined = !v && !witness;
    r.kind = (v && *v != 0) != witness ? BvVerdict::Holds : BvVerdict::Fails;
    return r;
  }
  if (auto d = decideOverInstances(s, *e, premises, witness)) {
    ++query_count;
    return d;
  }
  return std::nullopt;
}

BvResult BvProver::prove(const ir::ExprPtr& goal, const std::vector<ir::ExprPtr>& premises) {
  if (auto r = impl_->beforeSolver(goal, premises, false)) return *r;
  return impl_->solve(
      *goal, lia::Bad::Violated, [](const Term& t) { return !(t.def && Impl::truth(t.v)); }, premises, true);
}

BvResult BvProver::witness(const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& premises) {
  if (auto r = impl_->beforeSolver(cond, premises, true)) return *r;
  return impl_->solve(
      *cond, lia::Bad::Holds, [](const Term& t) { return t.def && Impl::truth(t.v); }, premises, false);
}

// Shared by maximum() and smallestWitness(): `cond` (defined and true)
// with the facts of its cone and the objectives' cones, optimized by Z3's
// optimizer (objectives minimized or maximized in order, signed).
// (answered from the history record where it can: HistoryAnswers)
BvResult BvProver::Impl::optimize(const ir::Expr& cond, const std::vector<ir::ExprPtr>& objectives, bool maximize,
                                  const std::vector<ir::ExprPtr>& premises, int64_t* best) {
  ++query_count;
  const std::string key =
      g_holds_cache.load(std::memory_order_relaxed) ? optimizeKey(cond, objectives, maximize, premises, best) : "";
  const int64_t at = history;
  std::optional<HistoryAnswers::Answer> recorded;
  std::tie(history, recorded) = HistoryAnswers::get().step(at, key);
  if (recorded && fits(*recorded, false)) {
    auto c = std::make_shared<ir::Expr>(cond);
    skipped.push_back({[this, c, objectives, maximize, premises, with_best = best != nullptr] {
                         int64_t ignored = 0;
                         return optimizeUncached(*c, objectives, maximize, premises, with_best ? &ignored : nullptr)
                             .kind;
                       },
                       recorded->result.kind, {}});
    if (best && recorded->result.kind == BvVerdict::Fails) *best = recorded->best;
    return recorded->result;
  }
  int64_t found = 0;
  BvResult r = optimizeUncached(cond, objectives, maximize, premises, best ? &found : nullptr);
  if (best && r.kind == BvVerdict::Fails) *best = found;
  record(at, key, r, found, {}, false);
  return r;
}

BvResult BvProver::Impl::optimizeUncached(const ir::Expr& cond, const std::vector<ir::ExprPtr>& objectives,
                                          bool maximize, const std::vector<ir::ExprPtr>& premises, int64_t* best) {
  BvResult r;
  replaySkipped();
  auto t0 = std::chrono::steady_clock::now();
  guardQuery(r.kind, r.detail, [&] {
    resetQuery();
    Part g{ctx().bool_val(true), {}, {}};
    touched = &g.axs;
    Term c = tr(cond, &g.syms);
    std::vector<Term> obj;
    for (const ir::ExprPtr& o : objectives) obj.push_back(tr(*o, &g.syms));
    touched = nullptr;
    // A maximum reads a possibly undefined assumption "undefined or true"
    // (a bound over more values); a smallest witness is a binding to run,
    // which every assumption must allow: defined and true.
    auto fs = facts(premises, !maximize);
    std::set<std::pair<char, int>> syms;
    auto in = cone(g, fs, syms);
    std::optional<Limits> lim = queryLimits();
    if (!lim) {
      r.kind = BvVerdict::Unknown;
      r.detail = usedUp();
      return;
    }
    if (optimizer_rlimit > 0) lim->rlimit = lim->rlimit > 0 ? std::min(lim->rlimit, optimizer_rlimit) : optimizer_rlimit;
    z3::optimize opt(ctx());
    addQuery(opt, g, syms, in);
    opt.add(c.def && truth(c.v));
    const z3::expr sign = ctx().bv_val(static_cast<uint64_t>(1) << 63, kBits);
    for (const Term& o : obj) {
      opt.add(o.def);
      // Signed order as an unsigned one: flip the sign bit.
      if (maximize) opt.maximize(o.v ^ sign);
      else opt.minimize(o.v ^ sign);
    }
    // its resource limit (work) as z3w::check's queries, not charged (z3_solver.h)
    r = resultOf(z3w::check(opt, *lim));
    if (r.kind == BvVerdict::Fails) {
      z3::model m = opt.get_model();
      r.model = readModel(m, syms);
      r.goal_model = readModel(m, g.syms);
      uint64_t u = 0;
      if (best && !obj.empty() && m.eval(obj.front().v, true).is_numeral_u64(u)) *best = static_cast<int64_t>(u);
    }
  });
  touched = nullptr;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::optional<int64_t> BvProver::maximum(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises) {
  if (!e) return std::nullopt;
  if (!hasFreeSymbols(*e)) return ir::evaluate(*e, ir::EvalEnv{});
  int64_t best = 0;
  ir::ExprPtr one = ir::makeConst(1);
  BvResult r = impl_->optimize(*one, {e}, true, premises, &best);
  if (r.kind != BvVerdict::Fails) return std::nullopt;
  return best;
}

BvResult BvProver::smallestWitness(const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& objectives,
                                   const std::vector<ir::ExprPtr>& premises) {
  if (!cond) {
    BvResult r;
    r.detail = "no condition";
    return r;
  }
  return impl_->optimize(*cond, objectives, false, premises, nullptr);
}

BvProver::Values BvProver::allowedValues(int param, const std::vector<ir::ExprPtr>& premises, size_t cap,
                                         const std::function<void()>& tick) {
  Values out;
  Impl& im = *impl_;
  im.replaySkipped();
  im.history = HistoryAnswers::kUntracked;  // (not in the record: its later queries run)
  bool all = false;  // every allowed value found (the last query unsat)
  guardQuery(out.kind, out.detail, [&] {
    im.resetQuery();
    ir::Expr x;
    x.kind = ir::ExprKind::Param;
    x.index = param;
    Impl::Part g{im.ctx().bool_val(true), {}, {}};
    const z3::expr v = im.tr(x, &g.syms).v;
    std::vector<Impl::Part> fs = im.facts(premises);
    std::set<std::pair<char, int>> syms;
    std::vector<const Impl::Part*> in = Impl::cone(g, fs, syms);
    z3::solver sol(im.ctx(), "QF_BV");
    im.addQuery(sol, g, syms, in);
    for (;;) {
      if (tick) tick();
      ++im.query_count;
      std::optional<Limits> lim = im.queryLimits();
      if (!lim) {
        out.kind = BvVerdict::Unknown;
        out.detail = im.usedUp();
        return;
      }
      const BvResult q = resultOf(z3w::check(sol, *lim, {}, !out.values.empty()));
      if (q.kind == BvVerdict::Holds) break;  // no value left
      if (q.kind != BvVerdict::Fails) {
        out.kind = q.kind;
        out.detail = q.detail;
        return;
      }
      uint64_t u = 0;
      if (!sol.get_model().eval(v, true).is_numeral_u64(u)) {
        out.kind = BvVerdict::Error;
        out.detail = "no value in the model";
        return;
      }
      out.values.push_back(static_cast<int64_t>(u));
      if (out.values.size() > cap) {
        out.kind = BvVerdict::Fails;
        return;
      }
      sol.add(v != im.num(static_cast<int64_t>(u)));
    }
    all = true;
  });
  im.touched = nullptr;
  if (!all) return out;
  std::sort(out.values.begin(), out.values.end());
  out.kind = BvVerdict::Holds;
  return out;
}

BvVerdict BvProver::assumptionsConsistent() {
  if (impl_->s.assumes.empty()) return BvVerdict::Holds;
  ir::Expr one;
  one.kind = ir::ExprKind::Const;
  one.value = 1;
  BvResult r =
      impl_->solve(one, lia::Bad::Nothing, [&](const Term&) { return impl_->ctx().bool_val(true); }, {}, false, true);
  switch (r.kind) {
    case BvVerdict::Fails: return BvVerdict::Holds;   // a model exists
    case BvVerdict::Holds: return BvVerdict::Fails;   // no model: contradictory
    default: return r.kind;
  }
}

void appendExprKey(std::string& key, const ir::Expr& e) { appendExpr(key, e); }

// ----------------------------------------------------- unbounded integers

namespace {

// The integer encoding of intWitness (bv_prover.h): Python's integers
// exactly, each term with its definedness (no division by zero).
struct IntTerm {
  z3::expr v;    // the value
  z3::expr def;  // no division by zero on the way
};

class IntEncoding {
 public:
  explicit IntEncoding(const ir::Schedule& s) : s_(s) {}
  z3::context ctx;

  // A fact: defined and true.
  z3::expr fact(const ir::Expr& e) {
    IntTerm t = tr(e);
    return t.def && t.v != 0;
  }
  // A fact that may divide by zero: "undefined or true" (BvProver's
  // facts()); its definedness into `defs`.
  z3::expr weakFact(const ir::Expr& e, std::vector<z3::expr>& defs) {
    IntTerm t = tr(e);
    defs.push_back(t.def);
    return !t.def || t.v != 0;
  }
  // The domains of the symbols used so far.
  std::vector<z3::expr> domains() const { return domains_; }
  // The witness's values of the symbols used.
  BvModel model(const z3::model& m) {
    BvModel out;
    for (const auto& [key, x] : symbols_) {
      int64_t v = 0;
      if (m.eval(x, true).is_numeral_i64(v)) putSymbol(out, key.first, key.second, v);
    }
    return out;
  }

 private:
  const ir::Schedule& s_;
  std::map<std::pair<char, int>, z3::expr> symbols_;
  std::vector<z3::expr> domains_;

  z3::expr num(int64_t v) { return ctx.int_val(v); }

  z3::expr symbol(char kind, int index) {
    if (kind == 'b') symbol('g', index);  // the block index's domain reads the grid size
    auto key = std::make_pair(kind, index);
    if (auto it = symbols_.find(key); it != symbols_.end()) return it->second;
    z3::expr x = ctx.int_const((std::string(1, kind) + std::to_string(index)).c_str());
    const int64_t i32min = INT32_MIN, i32max = INT32_MAX;
    switch (kind) {
      case 'p':
        if (index < 0 || index >= static_cast<int>(s_.params.size()) || s_.params[index].type != ir::ParamType::I32)
          throw Unsupported{"a parameter that is not an LM.i32 in an integer expression"};
        domains_.push_back(x >= num(i32min) && x <= num(i32max));
        break;
      case 'v':
        if (const std::optional<WidthRange> r = loopVarRange(s_, index))
          domains_.push_back(x >= num(r->lo) && x <= num(r->hi));
        break;
      case 'i': domains_.push_back(x >= 0 && x < 1024); break;
      case 'g': domains_.push_back(x >= 1 && x <= num(i32max)); break;
      case 'b': domains_.push_back(x >= 0 && x < symbols_.at({'g', index})); break;
    }
    symbols_.emplace(key, x);
    return x;
  }

  // Python's floor division: Z3's div is Euclidean, which is the floor for
  // a positive divisor; for a negative one, a // b == (-a) // (-b).
  z3::expr floorDiv(const z3::expr& a, const z3::expr& b) { return z3::ite(b > 0, a / b, (-a) / (-b)); }
  z3::expr truthValue(const z3::expr& b) { return z3::ite(b, num(1), num(0)); }

  IntTerm tr(const ir::Expr& e) {
    using K = ir::ExprKind;
    const z3::expr yes = ctx.bool_val(true);
    if (e.kind == K::Const) return {num(e.value), yes};
    if (auto key = freeSymbol(e)) return {symbol(key->first, key->second), yes};
    if (e.kind == K::BlockIdx || e.kind == K::GridDim) throw Unsupported{"a grid dimension out of range"};
    for (const ir::ExprPtr& a : e.args)
      if (!a) throw Unsupported{"a malformed expression"};
    if (e.kind == K::Neg || e.kind == K::Not) {
      if (e.args.size() != 1) throw Unsupported{"a malformed expression"};
      IntTerm a = tr(*e.args[0]);
      return {e.kind == K::Neg ? -a.v : truthValue(a.v == 0), a.def};
    }
    if (e.args.size() != 2) throw Unsupported{"a malformed expression"};
    IntTerm a = tr(*e.args[0]), b = tr(*e.args[1]);
    const z3::expr both = a.def && b.def;
    switch (e.kind) {
      case K::Add: return {a.v + b.v, both};
      case K::Sub: return {a.v - b.v, both};
      case K::Mul: return {a.v * b.v, both};
      case K::FloorDiv: return {floorDiv(a.v, b.v), both && b.v != 0};
      case K::Mod: return {a.v - b.v * floorDiv(a.v, b.v), both && b.v != 0};
      case K::CDiv: return {-floorDiv(-a.v, b.v), both && b.v != 0};
      case K::Min: return {z3::ite(a.v <= b.v, a.v, b.v), both};
      case K::Max: return {z3::ite(a.v >= b.v, a.v, b.v), both};
      case K::Lt: return {truthValue(a.v < b.v), both};
      case K::Le: return {truthValue(a.v <= b.v), both};
      case K::Gt: return {truthValue(a.v > b.v), both};
      case K::Ge: return {truthValue(a.v >= b.v), both};
      case K::Eq: return {truthValue(a.v == b.v), both};
      case K::Ne: return {truthValue(a.v != b.v), both};
      // short-circuit, as Python's: `n > 0 and k % n == 0` is defined at n == 0
      case K::And: return {truthValue(a.v != 0 && b.v != 0), a.def && (a.v == 0 || b.def)};
      case K::Or: return {truthValue(a.v != 0 || b.v != 0), a.def && (a.v != 0 || b.def)};
      default: break;
    }
    throw Unsupported{"an unsupported expression kind"};
  }
};

}  // namespace

// (the conditions under which IntEncoding::tr throws Unsupported, above)
bool intEncodable(const ir::Schedule& s, const ir::Expr& e) {
  using K = ir::ExprKind;
  if (e.kind == K::Const) return true;
  if (e.kind == K::Param)
    return e.index >= 0 && e.index < static_cast<int>(s.params.size()) && s.params[e.index].type == ir::ParamType::I32;
  if (freeSymbol(e)) return true;
  if (e.kind == K::BlockIdx || e.kind == K::GridDim) return false;
  for (const ir::ExprPtr& a : e.args)
    if (!a || !intEncodable(s, *a)) return false;
  if (e.kind == K::Neg || e.kind == K::Not) return e.args.size() == 1;
  if (e.args.size() != 2) return false;
  switch (e.kind) {
    case K::Add: case K::Sub: case K::Mul: case K::FloorDiv: case K::Mod: case K::CDiv: case K::Min: case K::Max:
    case K::Lt: case K::Le: case K::Gt: case K::Ge: case K::Eq: case K::Ne: case K::And: case K::Or:
      return true;
    default: return false;
  }
}

namespace {

// intWitness's complete answers, kept for the process (every schedule,
// every thread; on where HoldsCache is). Each query makes a context of its
// own, so what it answers, a model included, and the resource units it
// spends are functions of what it translates (the key: the condition, the
// premises, the schedule's lm.assume facts and its parameters' types) and
// of its limits alone. A kept answer (Holds or Fails, never Unknown or
// Error) answers the same key where its units fit the asking query's
// resource limit (that run would end the same way), and adds the work the
// query counted, as HoldsCache's hits do. A bug's fixed twin and its
// respellings ask a case's flip goals again (flashinfer's merge-states
// files: the same 81 queries each).
class IntAnswers {
 public:
  struct Answer {
    BvResult result;
    z3w::QueryWork work;  // the queries and (weighted) resource units it counted
    uint64_t units = 0;   // Z3's own resource units
  };
  static IntAnswers& get() {
    static IntAnswers* c = new IntAnswers();  // (never destroyed: threads may ask at exit)
    return *c;
  }
  std::string key(const ir::Schedule& s, const ir::Expr& cond, const std::vector<ir::ExprPtr>& premises,
                  const Limits& limits) const {
    if (!g_holds_cache.load(std::memory_order_relaxed)) return "";
    std::string key = "I";
    const uint64_t weight = weightOf(limits);
    key.append(reinterpret_cast<const char*>(&weight), sizeof weight);
    appendExpr(key, cond);
    key.push_back('|');
    for (const ir::ExprPtr& p : premises) {
      if (p) appendExpr(key, *p);
      key.push_back(';');
    }
    appendScheduleContext(key, s);
    return key;
  }
  std::optional<Answer> find(const std::string& key, const Limits& limits) {
    if (key.empty()) return std::nullopt;
    std::lock_guard<std::mutex> lock(m_);
    auto it = kept_.find(key);
    if (it == kept_.end()) return std::nullopt;
    if (limits.rlimit > 0 && it->second.units >= limits.rlimit / weightOf(limits)) return std::nullopt;
    return it->second;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    kept_.clear();
    bytes_ = 0;
  }
  void add(std::string key, const BvResult& r, const z3w::QueryWork& w, const Limits& limits) {
    if (key.empty() || (r.kind != BvVerdict::Holds && r.kind != BvVerdict::Fails)) return;
    std::lock_guard<std::mutex> lock(m_);
    if (bytes_ + key.size() > kMaxBytes) return;  // (full: later queries run as before)
    bytes_ += key.size() + 256;
    kept_.emplace(std::move(key), Answer{r, w, w.rlimit / weightOf(limits)});
  }

 private:
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  // (z3w::check: each unit of a query with a resource limit counts this often)
  static uint64_t weightOf(const Limits& l) { return l.rlimit > 0 ? std::max<uint64_t>(1, l.rlimit_weight) : 1; }
  std::mutex m_;
  std::unordered_map<std::string, Answer> kept_;
  size_t bytes_ = 0;
};

void clearIntAnswers() { IntAnswers::get().clear(); }

}  // namespace

BvResult intWitness(const ir::Schedule& s, const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& premises,
                    Limits limits) {
  BvResult r;
  r.kind = BvVerdict::Unknown;
  if (!cond) {
    r.detail = "no condition";
    return r;
  }
  std::string key = IntAnswers::get().key(s, *cond, premises, limits);
  if (std::optional<IntAnswers::Answer> kept = IntAnswers::get().find(key, limits)) {
    z3w::addThreadQueryWork(kept->work);
    return kept->result;
  }
  const z3w::QueryWork w0 = z3w::threadQueryWork();
  guardQuery(r.kind, r.detail, [&] {
    IntEncoding enc(s);
    // (not Z3's default solver: its integer strategies switch engines after
    // fixed wall-clock times; this one after fixed resource units)
    z3w::IntegerSolver solver(enc.ctx);
    // Python's integers do not overflow, so only a zero divisor leaves a
    // fact undefined here; one the width argument does not clear reads
    // "undefined or true", and a witness must make every fact defined.
    std::vector<z3::expr> defs;
    auto add = [&](const ir::Expr& x) { solver.add(definedByWidth(s, x) ? enc.fact(x) : enc.weakFact(x, defs)); };
    for (const ir::Assume& a : s.assumes)
      if (a.cond) add(*a.cond);
    for (const ir::ExprPtr& x : premises)
      if (x) add(*x);
    solver.add(enc.fact(*cond));
    for (const z3::expr& d : enc.domains()) solver.add(d);
    r = resultOf(solver.check(limits));
    if (r.kind == BvVerdict::Fails && !defs.empty()) {
      bool undefined = false;
      {
        z3::model m = solver.model();
        for (const z3::expr& d : defs) undefined = undefined || m.eval(d, true).is_false();
      }
      if (undefined) {
        for (const z3::expr& d : defs) solver.add(d);
        r = resultOf(solver.check(limits));
        if (r.kind == BvVerdict::Holds) {
          r.kind = BvVerdict::Unknown;
          r.detail = "found only where a fact divides by zero (it may hold there, and narrows nothing)";
          return;
        }
      }
    }
    if (r.kind == BvVerdict::Fails) r.model = r.goal_model = enc.model(solver.model());
    if (r.kind == BvVerdict::Unknown) r.detail = "the integer solver gave up: " + r.detail;
  });
  const z3w::QueryWork w1 = z3w::threadQueryWork();
  IntAnswers::get().add(std::move(key), r, {w1.queries - w0.queries, w1.rlimit - w0.rlimit}, limits);
  return r;
}

}  // namespace cake::encoder
