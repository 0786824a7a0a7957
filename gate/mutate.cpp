#include "gate/mutate.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>

#include "gate/corpus_gate.h"
#include "encoder/simulator.h"
#include "ir/ast.h"
#include "ir/frontend.h"
#include "ir/ops.h"

namespace cake::checks::mutate {

namespace fs = std::filesystem;
namespace ast = ir::ast;

// ============================================================= operators

namespace {

constexpr OperatorInfo kOperators[] = {
    {"drop-wait", "delete an lm.wait (a consumer no longer waits for the slot to fill / be released)"},
    {"drop-arrive", "delete an lm.arrive (a slot is never released)"},
    {"drop-expect-tx", "delete an lm.expect_tx"},
    {"drop-fence", "delete an lm.fence_proxy (generic writes read by the async proxy unfenced)"},
    {"drop-commit", "delete an mma_commit / cp_async_commit / tma_store_commit"},
    {"drop-async-wait", "delete an mma_wait / cp_async_wait / tma_store_wait"},
    {"drop-named-barrier", "delete an lm.sync / lm.bar_arrive on a named barrier"},
    {"wait-after-use", "move a wait (or sync, or *_wait) after the statement that follows it"},
    {"fence-after-use", "move an lm.fence_proxy after the async op that follows it"},
    {"release-early", "move a release (arrive, bar_arrive, mma_commit to a barrier) before the statement that precedes it"},
    {"commit-after-wait", "swap a *_commit with the *_wait that follows it"},
    {"commit-early", "move a *_commit before the statement that precedes it (the op it should close)"},
    {"fence-early", "move an lm.fence_proxy before the statement that precedes it (the write it should order)"},
    {"wait-early", "move a wait before the statement that precedes it (stricter: often benign)"},
    {"release-late", "move a release after the statement that follows it (later: often benign)"},
    {"wrong-barrier", "an op names another barrier of the schedule"},
    {"iter-plus-1", "iter=e -> iter=e + 1"},
    {"iter-minus-1", "iter=e -> iter=e - 1"},
    {"iter-plus-lap", "iter=e -> iter=e + S (one lap of the ring later: same slot, next phase)"},
    {"iter-minus-lap", "iter=e -> iter=e - S (one lap earlier: same slot, previous phase)"},
    {"stage-plus-1", "stage=e -> stage=(e + 1) % S (the neighbouring slot)"},
    {"stage-minus-1", "stage=e -> stage=(e + S - 1) % S (the other neighbouring slot)"},
    {"slot-plus-1", "view[e] -> view[e + 1] in an operand (reads the neighbouring slot)"},
    {"slot-minus-1", "view[e] -> view[e - 1] in an operand"},
    {"phase-plus-1", "phase=e -> phase=e + 1"},
    {"phase-minus-1", "phase=e -> phase=e - 1"},
    {"phase-const", "a wait's phase becomes the constant 0 (iter=e -> stage=e % S, phase=0)"},
    {"init-count-plus-1", "a barrier's init_count + 1"},
    {"init-count-minus-1", "a barrier's init_count - 1"},
    {"arrive-count-plus-1", "an arrive's count + 1"},
    {"expect-tx-plus-16", "expect_tx bytes + 16"},
    {"expect-tx-minus-16", "expect_tx bytes - 16"},
    {"pending-plus-1", "pending=n -> n + 1 on mma_wait / cp_async_wait / tma_store_wait"},
    {"pending-minus-1", "pending=n -> n - 1 on mma_wait / cp_async_wait / tma_store_wait"},
    {"fewer-stages", "a view's stages - 1 (its barriers keep their slots)"},
    {"fewer-stages-pipeline", "a pipeline's stages - 1 (its barriers lose a slot, the views keep theirs)"},
    {"trip-minus-1", "for v in lm.range(lo, hi) -> lm.range(lo, hi - 1)"},
    {"trip-plus-1", "for v in lm.range(lo, hi) -> lm.range(lo, hi + 1)"},
    {"trip-skip-first", "for v in lm.range(lo, hi) -> lm.range(lo + 1, hi)"},
    {"guard-plus-1", "if a <op> c -> if a <op> c + 1 (a guard off by one)"},
    {"guard-minus-1", "if a <op> c -> if a <op> c - 1"},
    {"alias-views", "a view's offset becomes another view's offset (same pool)"},
    {"misalign-swizzle", "a swizzled view's offset + 16"},
};

// ------------------------------------------------------------- the text

struct Edit {
  size_t begin = 0, end = 0;   // byte offsets in the original
  std::string text;
};

class Text {
 public:
  explicit Text(const std::string& t) : t_(t) {
    starts_.push_back(0);
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] == '\n') starts_.push_back(i + 1);
  }
  const std::string& str() const { return t_; }
  size_t offset(int line, int col) const {
    if (line < 1) return 0;
    if (static_cast<size_t>(line) > starts_.size()) return t_.size();
    return std::min(t_.size(), starts_[line - 1] + static_cast<size_t>(std::max(col, 1) - 1));
  }
  size_t begin(const ir::SourceRange& r) const { return offset(r.line, r.col); }
  size_t end(const ir::SourceRange& r) const { return offset(r.end_line, r.end_col); }
  std::string of(const ir::SourceRange& r) const { return t_.substr(begin(r), end(r) - begin(r)); }
  // [start of line a, start of line b+1)
  size_t lineBegin(int line) const { return offset(line, 1); }
  size_t lineEnd(int line) const {   // after the newline
    return static_cast<size_t>(line) < starts_.size() ? starts_[line] : t_.size();
  }
  std::string line(int line) const {
    std::string s = t_.substr(lineBegin(line), lineEnd(line) - lineBegin(line));
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  std::string indentOf(int line) const {
    std::string l = this->line(line);
    size_t n = 0;
    while (n < l.size() && (l[n] == ' ' || l[n] == '\t')) ++n;
    return l.substr(0, n);
  }

 private:
  std::string t_;
  std::vector<size_t> starts_;
};

std::string apply(const std::string& text, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out = text;
  for (const auto& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

std::string trimmed(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// ------------------------------------------------------- the syntax tree

struct CallInfo {
  std::string obj;      // "lm", a view name, a pool name
  std::string method;   // "wait", "tma_load", "view", ...
  const ast::Expr* call = nullptr;
};

std::optional<CallInfo> callOf(const ast::Expr* e) {
  if (!e || e->kind != ast::ExprKind::Call || e->args.empty()) return std::nullopt;
  const ast::Expr* fn = e->args[0].get();
  if (fn->kind != ast::ExprKind::Attribute || fn->args.empty() || fn->args[0]->kind != ast::ExprKind::Name)
    return std::nullopt;
  return CallInfo{fn->args[0]->text, fn->text, e};
}

const ast::Keyword* kwarg(const ast::Expr* call, std::string_view name) {
  for (const auto& k : call->kwargs)
    if (k.name == name) return &k;
  return nullptr;
}

// Positional argument i (after the callee).
const ast::Expr* posarg(const ast::Expr* call, size_t i) {
  return i + 1 < call->args.size() ? call->args[i + 1].get() : nullptr;
}

bool isIntLit(const ast::Expr* e, int64_t* v = nullptr) {
  if (!e) return false;
  if (e->kind == ast::ExprKind::Int && !e->overflow) {
    if (v) *v = e->ival;
    return true;
  }
  if (e->kind == ast::ExprKind::UnaryOp && e->text == "-" && e->args.size() == 1 &&
      e->args[0]->kind == ast::ExprKind::Int && !e->args[0]->overflow) {
    if (v) *v = -e->args[0]->ival;
    return true;
  }
  return false;
}

// The last line of a statement, compound ones included.
int endLine(const ast::Stmt& s) {
  int e = s.range.end_line;
  for (const auto& c : s.body) e = std::max(e, endLine(*c));
  for (const auto& b : s.branches) {
    e = std::max(e, b.header.end_line);
    for (const auto& c : b.body) e = std::max(e, endLine(*c));
  }
  return e;
}

// Where a statement sits.
struct Site {
  const ast::Stmt* stmt;
  const ast::Block* block;
  size_t index;
};

void collect(const ast::Block& b, std::vector<Site>& out) {
  for (size_t i = 0; i < b.size(); ++i) {
    out.push_back({b[i].get(), &b, i});
    collect(b[i]->body, out);
    for (const auto& br : b[i]->branches) collect(br.body, out);
  }
}

// The declarations of one schedule (a decorated def).
struct Decls {
  std::map<std::string, const ast::Expr*> views, barriers, pipelines, pools;
  std::vector<std::string> view_order, barrier_order;
};

Decls declarations(const ast::Stmt& def) {
  Decls d;
  for (const auto& s : def.body) {
    if (s->kind != ast::Stmt::Kind::Assign) continue;
    auto c = callOf(s->value.get());
    if (!c) continue;
    if (c->method == "view") d.views[s->target] = c->call, d.view_order.push_back(s->target);
    else if (c->obj == "lm" && c->method == "barrier") d.barriers[s->target] = c->call, d.barrier_order.push_back(s->target);
    else if (c->obj == "lm" && c->method == "pipeline") d.pipelines[s->target] = c->call;
    else if (c->obj == "lm" && c->method == "smem") d.pools[s->target] = c->call;
  }
  return d;
}

// ---------------------------------------------------------- the mutator

// The op an `lm.NAME(...)` statement calls (ir/ops.def), if it is one.
std::optional<ir::OpKind> builderOp(const CallInfo& c) {
  if (c.obj != "lm") return std::nullopt;
  return ir::findOp(c.method, ir::OpReceiver::Builder);
}

class Mutator {
 public:
  Mutator(const Original& o, const ast::Module& m) : o_(o), m_(m), text_(o.text) {}

  std::vector<Mutant> run() {
    for (const auto& s : m_.body)
      if (s->kind == ast::Stmt::Kind::Def) schedule(*s);
    return std::move(out_);
  }

 private:
  const Original& o_;
  const ast::Module& m_;
  Text text_;
  Decls d_;
  std::vector<Mutant> out_;

  std::string src(const ast::Expr* e) const { return text_.of(e->range); }

  static bool needsParens(const ast::Expr* e) {
    return e->kind == ast::ExprKind::Compare || e->kind == ast::ExprKind::BoolOp ||
           (e->kind == ast::ExprKind::UnaryOp && e->text == "not");
  }

  // e + delta, folded when e is a literal or `x +/- literal`.
  std::string plus(const ast::Expr* e, int64_t delta) const {
    int64_t v;
    if (isIntLit(e, &v)) return std::to_string(v + delta);
    if (e->kind == ast::ExprKind::BinOp && (e->text == "+" || e->text == "-") && !e->parenthesized &&
        isIntLit(e->args[1].get(), &v) && e->args[1]->kind == ast::ExprKind::Int) {
      int64_t c = (e->text == "+" ? v : -v) + delta;
      std::string lhs = src(e->args[0].get());
      if (c == 0) return lhs;
      return c > 0 ? fmt::format("{} + {}", lhs, c) : fmt::format("{} - {}", lhs, -c);
    }
    std::string s = needsParens(e) ? "(" + src(e) + ")" : src(e);
    return delta >= 0 ? fmt::format("{} + {}", s, delta) : fmt::format("{} - {}", s, -delta);
  }

  static std::string atom(const std::string& s, const ast::Expr* e) {
    bool simple = e->kind == ast::ExprKind::Name || e->kind == ast::ExprKind::Int || e->parenthesized ||
                  e->kind == ast::ExprKind::Call || e->kind == ast::ExprKind::Subscript ||
                  e->kind == ast::ExprKind::Attribute;
    return simple ? s : "(" + s + ")";
  }

  void emit(const std::string& op, int line, std::vector<Edit> edits, std::string change) {
    Mutant mu;
    mu.op = op;
    mu.original = o_.path;
    mu.line = line;
    mu.line_text = trimmed(text_.line(line));
    mu.change = std::move(change);
    mu.body = apply(o_.text, std::move(edits));
    mu.original_text = o_.text;
    if (mu.body == o_.text) return;
    int site = 0;
    for (const auto& x : out_)
      if (x.op == op && x.line == line) site = std::max(site, x.site + 1);
    mu.site = site;
    out_.push_back(std::move(mu));
  }

  void replaceExpr(const std::string& op, const ast::Expr* e, const std::string& with, const std::string& what) {
    emit(op, e->range.line, {{text_.begin(e->range), text_.end(e->range), with}},
         fmt::format("{}: `{}` -> `{}`", what, src(e), with));
  }

  // Adds `name=value` as the last argument of a call.
  Edit addKwarg(const ast::Expr* call, const std::string& name, const std::string& value) const {
    size_t close = text_.end(call->range) - 1;   // the ')'
    bool empty = call->args.size() <= 1 && call->kwargs.empty();
    return {close, close, fmt::format("{}{}={}", empty ? "" : ", ", name, value)};
  }

  // Deletes a statement (its whole lines); a block left empty gets `pass`.
  void deleteStmt(const std::string& op, const Site& s) {
    int a = s.stmt->range.line, b = endLine(*s.stmt);
    std::string repl;
    if (s.block->size() == 1) repl = text_.indentOf(a) + "pass\n";
    emit(op, a, {{text_.lineBegin(a), text_.lineEnd(b), repl}},
         fmt::format("deleted `{}`", trimmed(text_.line(a))));
  }

  // Swaps the statement at `s` with its next sibling (both whole lines).
  void swapWithNext(const std::string& op, const Site& s, int report_line) {
    const ast::Stmt& x = *s.stmt;
    const ast::Stmt& y = *(*s.block)[s.index + 1];
    // an assignment defines a name the other statement may use
    if (x.kind == ast::Stmt::Kind::Assign || y.kind == ast::Stmt::Kind::Assign) return;
    size_t xa = text_.lineBegin(x.range.line), xb = text_.lineEnd(endLine(x));
    size_t ya = text_.lineBegin(y.range.line), yb = text_.lineEnd(endLine(y));
    std::string xs = text_.str().substr(xa, xb - xa), gap = text_.str().substr(xb, ya - xb),
                ys = text_.str().substr(ya, yb - ya);
    if (!xs.empty() && xs.back() != '\n') xs += '\n';
    if (!ys.empty() && ys.back() != '\n') { ys += '\n'; if (xs.back() == '\n' && yb == text_.str().size()) xs.pop_back(); }
    emit(op, report_line, {{xa, yb, ys + gap + xs}},
         fmt::format("moved `{}` after `{}`", trimmed(text_.line(x.range.line)), trimmed(text_.line(y.range.line))));
  }

  // Slots of a barrier: its count= text, or its pipeline's stages= text.
  std::optional<std::string> barrierSlots(const std::string& name) const {
    auto it = d_.barriers.find(name);
    if (it == d_.barriers.end()) return std::nullopt;
    if (auto k = kwarg(it->second, "count")) return src(k->value.get());
    if (auto k = kwarg(it->second, "pipeline")) {
      auto p = d_.pipelines.find(src(k->value.get()));
      if (p != d_.pipelines.end())
        if (auto st = kwarg(p->second, "stages")) return src(st->value.get());
    }
    return std::nullopt;
  }
  std::optional<std::string> viewStages(const std::string& name) const {
    auto it = d_.views.find(name);
    if (it == d_.views.end()) return std::nullopt;
    if (auto k = kwarg(it->second, "stages")) return src(k->value.get());
    if (auto k = kwarg(it->second, "stage")) return src(k->value.get());
    return std::string("1");
  }
  // The slot count the op's stage=/iter= refers to.
  std::optional<std::string> slotsOf(const CallInfo& c) const {
    if (c.obj != "lm") return viewStages(c.obj);
    const ast::Expr* b = posarg(c.call, 0);
    if (auto k = kwarg(c.call, "barrier")) b = k->value.get();
    if (b && b->kind == ast::ExprKind::Name) return barrierSlots(b->text);
    return std::nullopt;
  }

  // The mutation operators an op gets follow from its line in ir/ops.def:
  // its kind, category and synchronization flags.
  void opStatement(const Site& s, const CallInfo& c) {
    using ir::OpFlag::Blocks, ir::OpFlag::Commits, ir::OpFlag::AwaitsGroup, ir::OpFlag::Releases;
    const std::optional<ir::OpKind> op = builderOp(c);
    const ir::OpInfo* info = op ? &ir::opInfo(*op) : nullptr;
    auto is = [&](ir::OpKind k) { return op == k; };
    auto has = [&](uint8_t flag) { return info && info->has(flag); };
    const int line = s.stmt->range.line;
    // deletions
    if (info) {
      if (is(ir::OpKind::Wait)) deleteStmt("drop-wait", s);
      else if (is(ir::OpKind::Arrive)) deleteStmt("drop-arrive", s);
      else if (is(ir::OpKind::ExpectTx)) deleteStmt("drop-expect-tx", s);
      else if (info->category == ir::OpCategory::Fence) deleteStmt("drop-fence", s);
      else if (has(Commits)) deleteStmt("drop-commit", s);
      else if (has(AwaitsGroup)) deleteStmt("drop-async-wait", s);
      else if (info->category == ir::OpCategory::NamedBarrier) deleteStmt("drop-named-barrier", s);
    }
    // moves
    const bool has_next = s.index + 1 < s.block->size();
    const bool fence = info && info->category == ir::OpCategory::Fence;
    if (has(Blocks) && has_next) swapWithNext("wait-after-use", s, line);
    if (fence && has_next) swapWithNext("fence-after-use", s, line);
    // mma_commit releases only through its optional barrier=
    const bool release = has(Releases) && (!has(Commits) || kwarg(c.call, "barrier"));
    const Site prev{s.index > 0 ? (*s.block)[s.index - 1].get() : nullptr, s.block, s.index > 0 ? s.index - 1 : 0};
    if (release && s.index > 0) swapWithNext("release-early", prev, line);
    if (release && has_next) swapWithNext("release-late", s, line);
    if (has(Blocks) && s.index > 0) swapWithNext("wait-early", prev, line);
    if (fence && s.index > 0) swapWithNext("fence-early", prev, line);
    if (has(Commits) && s.index > 0) swapWithNext("commit-early", prev, line);
    // another barrier
    if (d_.barrier_order.size() > 1) {
      const ast::Expr* b = nullptr;
      if (info && info->category == ir::OpCategory::Mbarrier) b = posarg(c.call, 0);
      if (auto k = kwarg(c.call, "barrier")) b = k->value.get();
      if (b && b->kind == ast::ExprKind::Name && d_.barriers.count(b->text)) {
        auto it = std::find(d_.barrier_order.begin(), d_.barrier_order.end(), b->text);
        size_t i = static_cast<size_t>(it - d_.barrier_order.begin());
        const std::string& other = d_.barrier_order[(i + 1) % d_.barrier_order.size()];
        replaceExpr("wrong-barrier", b, other, "barrier");
      }
    }
    if (has(Commits) && has_next) {
      auto n = callOf((*s.block)[s.index + 1]->value.get());
      if ((*s.block)[s.index + 1]->kind == ast::Stmt::Kind::Expr && n &&
          builderOp(*n) == ir::groupWaitOf(*op))
        swapWithNext("commit-after-wait", s, line);
    }
    // slot selection
    if (auto k = kwarg(c.call, "iter")) {
      const ast::Expr* e = k->value.get();
      replaceExpr("iter-plus-1", e, plus(e, 1), "iter");
      replaceExpr("iter-minus-1", e, plus(e, -1), "iter");
      auto slots = slotsOf(c);
      int64_t S;
      if (slots) {
        std::string lap = isIntLitText(*slots, &S) ? plus(e, S) : fmt::format("{} + {}", src(e), *slots);
        replaceExpr("iter-plus-lap", e, lap, "iter");
        std::string back = isIntLitText(*slots, &S) ? plus(e, -S) : fmt::format("{} - {}", src(e), *slots);
        replaceExpr("iter-minus-lap", e, back, "iter");
        if (is(ir::OpKind::Wait)) {
          std::string with = fmt::format("stage={} % {}, phase=0", atom(src(e), e), *slots);
          emit("phase-const", line, {{text_.begin(k->name_range), text_.end(e->range), with}},
               fmt::format("`iter={}` -> `{}`", src(e), with));
        }
      }
    }
    if (auto k = kwarg(c.call, "stage")) {
      const ast::Expr* e = k->value.get();
      if (auto slots = slotsOf(c); slots && *slots != "1") {
        replaceExpr("stage-plus-1", e, fmt::format("({}) % {}", plus(e, 1), *slots), "stage");
        int64_t S;
        std::string minus = isIntLitText(*slots, &S) ? plus(e, S - 1) : fmt::format("{} + {} - 1", src(e), *slots);
        replaceExpr("stage-minus-1", e, fmt::format("({}) % {}", minus, *slots), "stage");
      }
      if (is(ir::OpKind::Wait)) {
        if (auto p = kwarg(c.call, "phase")) {
          const ast::Expr* pe = p->value.get();
          replaceExpr("phase-plus-1", pe, plus(pe, 1), "phase");
          replaceExpr("phase-minus-1", pe, plus(pe, -1), "phase");
          int64_t v;
          if (!(isIntLit(pe, &v) && v == 0)) replaceExpr("phase-const", pe, "0", "phase");
        } else {
          emit("phase-const", line, {addKwarg(c.call, "phase", "0")}, "added `phase=0` (was derived)");
        }
      }
    }
    // counts
    if (is(ir::OpKind::Arrive)) {
      if (auto k = kwarg(c.call, "count")) replaceExpr("arrive-count-plus-1", k->value.get(), plus(k->value.get(), 1), "count");
      else emit("arrive-count-plus-1", line, {addKwarg(c.call, "count", "2")}, "added `count=2`");
    }
    if (is(ir::OpKind::ExpectTx)) {
      const ast::Expr* b = kwarg(c.call, "bytes") ? kwarg(c.call, "bytes")->value.get()
                                                  : posarg(c.call, static_cast<size_t>(info->positionOf("bytes")));
      if (b) {
        replaceExpr("expect-tx-plus-16", b, plus(b, 16), "bytes");
        replaceExpr("expect-tx-minus-16", b, plus(b, -16), "bytes");
      }
    }
    if (has(AwaitsGroup)) {
      if (auto k = kwarg(c.call, "pending")) {
        const ast::Expr* e = k->value.get();
        int64_t v = 1;
        replaceExpr("pending-plus-1", e, plus(e, 1), "pending");
        if (!isIntLit(e, &v) || v >= 1) replaceExpr("pending-minus-1", e, plus(e, -1), "pending");
      } else {
        emit("pending-plus-1", line, {addKwarg(c.call, "pending", "1")}, "added `pending=1`");
      }
    }
    // operands that name a view slot: view[e] -> view[e + 1]
    operandSlots(c.call, line);
  }

  static bool isIntLitText(const std::string& s, int64_t* v) {
    if (s.empty()) return false;
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (size_t j = i; j < s.size(); ++j)
      if (s[j] < '0' || s[j] > '9') return false;
    *v = std::stoll(s);
    return true;
  }

  void operandSlots(const ast::Expr* e, int line) {
    if (!e) return;
    if (e->kind == ast::ExprKind::Subscript && e->args.size() == 2 && e->args[0]->kind == ast::ExprKind::Name &&
        d_.views.count(e->args[0]->text) && e->args[1]->kind != ast::ExprKind::Tuple &&
        e->args[1]->kind != ast::ExprKind::Slice) {
      const ast::Expr* idx = e->args[1].get();
      if (viewStages(e->args[0]->text).value_or("1") != "1") {
        replaceExpr("slot-plus-1", idx, plus(idx, 1), e->args[0]->text + " slot");
        replaceExpr("slot-minus-1", idx, plus(idx, -1), e->args[0]->text + " slot");
      }
      return;
    }
    for (const auto& a : e->args) operandSlots(a.get(), line);
    for (const auto& k : e->kwargs) operandSlots(k.value.get(), line);
  }

  void declaration(const ast::Stmt& s, const CallInfo& c) {
    const int line = s.range.line;
    if (c.obj == "lm" && c.method == "barrier") {
      if (auto k = kwarg(c.call, "init_count")) {
        const ast::Expr* e = k->value.get();
        replaceExpr("init-count-plus-1", e, plus(e, 1), "init_count");
        int64_t v = 2;
        if (!isIntLit(e, &v) || v > 1) replaceExpr("init-count-minus-1", e, plus(e, -1), "init_count");
      } else {
        emit("init-count-plus-1", line, {addKwarg(c.call, "init_count", "2")}, "added `init_count=2`");
      }
    }
    if (c.obj == "lm" && c.method == "pipeline") {
      if (auto k = kwarg(c.call, "stages")) {
        int64_t v;
        if (isIntLit(k->value.get(), &v) && v > 1)
          replaceExpr("fewer-stages-pipeline", k->value.get(), std::to_string(v - 1), "stages");
      }
    }
    if (c.method == "view") {
      const ast::Keyword* st = kwarg(c.call, "stages");
      if (!st) st = kwarg(c.call, "stage");
      int64_t v;
      if (st && isIntLit(st->value.get(), &v) && v > 1)
        replaceExpr("fewer-stages", st->value.get(), std::to_string(v - 1), "stages");
      const ast::Keyword* off = kwarg(c.call, "offset");
      const ast::Keyword* sw = kwarg(c.call, "swizzle");
      if (off && sw && sw->value->kind == ast::ExprKind::Str)
        replaceExpr("misalign-swizzle", off->value.get(), plus(off->value.get(), 16), "offset");
      // (not a union member, `union=` or named by one: moving it off the
      // other member's bytes is a front-end error, not a mutant)
      if (off && !unionMember(s.target)) {
        const std::string me = s.target;
        for (const auto& other : d_.view_order) {
          if (other == me) continue;
          const ast::Expr* oc = d_.views.at(other);
          const ast::Keyword* ooff = kwarg(oc, "offset");
          if (!ooff || src(ooff->value.get()) == src(off->value.get())) continue;
          if (src(oc->args[0]->args[0].get()) != src(c.call->args[0]->args[0].get())) continue;   // same pool
          replaceExpr("alias-views", off->value.get(), src(ooff->value.get()),
                      fmt::format("offset of {} (aliases {})", me, other));
        }
      }
    }
  }

  // Whether the view `name` is declared with `union=` or named by another
  // view's `union=` (docs/ir-extensions.md "Union members").
  bool unionMember(const std::string& name) const {
    if (auto it = d_.views.find(name); it != d_.views.end() && kwarg(it->second, "union")) return true;
    return std::any_of(d_.views.begin(), d_.views.end(), [&](const auto& v) {
      const ast::Keyword* u = kwarg(v.second, "union");
      return u && src(u->value.get()) == name;
    });
  }

  void control(const ast::Stmt& s) {
    if (s.kind == ast::Stmt::Kind::For) {
      auto c = callOf(s.value.get());
      if (c && c->obj == "lm" && c->method == "range") {
        const ast::Expr* lo = posarg(c->call, 0);
        const ast::Expr* hi = posarg(c->call, 1);
        if (hi) {
          replaceExpr("trip-minus-1", hi, plus(hi, -1), "loop bound");
          replaceExpr("trip-plus-1", hi, plus(hi, 1), "loop bound");
          replaceExpr("trip-skip-first", lo, plus(lo, 1), "loop start");
        }
      }
    }
    if (s.kind == ast::Stmt::Kind::If) {
      for (const auto& br : s.branches) {
        const ast::Expr* cond = br.cond.get();
        if (!cond || cond->kind != ast::ExprKind::Compare || cond->args.size() != 2) continue;
        const ast::Expr* rhs = cond->args[1].get();
        replaceExpr("guard-plus-1", rhs, plus(rhs, 1), "guard");
        replaceExpr("guard-minus-1", rhs, plus(rhs, -1), "guard");
      }
    }
  }

  void schedule(const ast::Stmt& def) {
    d_ = declarations(def);
    std::vector<Site> sites;
    collect(def.body, sites);
    for (const auto& s : sites) {
      const ast::Stmt& st = *s.stmt;
      if (st.kind == ast::Stmt::Kind::Expr) {
        if (auto c = callOf(st.value.get())) opStatement(s, *c);
      } else if (st.kind == ast::Stmt::Kind::Assign) {
        if (auto c = callOf(st.value.get())) declaration(st, *c);
      } else {
        control(st);
      }
    }
  }
};

// Removes the original's expectations: `# expect...` comment lines, and
// trailing `# expect-error:` comments.
std::string stripExpectations(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    std::string t = trimmed(line);
    if (t.rfind("#", 0) == 0) {
      std::string body = trimmed(t.substr(1));
      if (body.rfind("expect:", 0) == 0 || body.rfind("expect-any:", 0) == 0 || body.rfind("expect-error:", 0) == 0) {
        // keep the line (line numbers stay those of the original)
        out += line.substr(0, line.find('#')) + "# (the original's expectation: see the label above)\n";
        continue;
      }
    }
    size_t p = line.find("# expect-error:");
    if (p == std::string::npos) p = line.find("#expect-error:");
    if (p != std::string::npos) {
      line = line.substr(0, p);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
    }
    out += line;
    out += '\n';
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

// splitmix64: a portable, seeded sequence (std::shuffle's results differ
// between standard libraries).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

}  // namespace

std::span<const OperatorInfo> operators() { return kOperators; }

std::string Mutant::relativePath() const {
  std::string p = fs::path(original).lexically_normal().generic_string();
  if (p.rfind("corpus/", 0) == 0) p = p.substr(7);
  while (p.rfind("../", 0) == 0) p = p.substr(3);
  if (p.size() > 5 && p.substr(p.size() - 5) == ".cake") p = p.substr(0, p.size() - 5);
  return fmt::format("{}/{}-L{}{}.cake", p, op, line, site ? fmt::format("-{}", site) : "");
}

bool isEligible(const Original& o) {
  auto e = gate::parseExpectations(o.text);
  return e.pass && e.problems.empty() && !gate::parseMutantHeader(o.text);
}

std::vector<Mutant> enumerate(const Original& o, std::string* error) {
  auto file = ir::makeSourceFile(o.path, o.text);
  ir::DiagnosticSink sink;
  auto mod = ast::parse(file, sink);
  if (!mod) {
    if (error) *error = sink.findings().empty() ? "does not parse" : ir::renderText(sink.findings().front());
    return {};
  }
  Mutator mu(o, *mod);
  auto out = mu.run();
  const std::string stripped = stripExpectations(o.text);
  std::vector<Mutant> kept;
  for (auto& m : out) {
    m.body = stripExpectations(m.body);
    if (m.body != stripped) kept.push_back(std::move(m));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Mutant& a, const Mutant& b) {
    return std::tie(a.line, a.op, a.site) < std::tie(b.line, b.op, b.site);
  });
  return kept;
}

std::vector<Mutant> generate(const std::vector<Original>& originals, int n, uint64_t seed) {
  std::map<std::string, std::vector<Mutant>> by_op;
  std::set<std::string> bodies;
  for (const auto& o : originals) {
    if (!isEligible(o)) continue;
    for (auto& m : enumerate(o)) {
      if (!bodies.insert(m.body).second) continue;
      by_op[m.op].push_back(std::move(m));
    }
  }
  std::vector<Mutant> picked;
  if (n <= 0) {
    for (auto& [op, v] : by_op)
      for (auto& m : v) picked.push_back(std::move(m));
  } else {
    Rng rng{seed};
    for (auto& [op, v] : by_op)
      for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
    std::map<std::string, size_t> pos;
    bool more = true;
    while (more && static_cast<int>(picked.size()) < n) {
      more = false;
      for (auto& [op, v] : by_op) {
        size_t& p = pos[op];
        if (p >= v.size()) continue;
        more = true;
        picked.push_back(std::move(v[p++]));
        if (static_cast<int>(picked.size()) >= n) break;
      }
    }
  }
  std::sort(picked.begin(), picked.end(),
            [](const Mutant& a, const Mutant& b) { return a.relativePath() < b.relativePath(); });
  return picked;
}

// ================================================================= labels

std::string Label::text() const {
  switch (kind) {
    case Kind::Bad:
      return fmt::format("bad ({}) by the {}, {}{}", fmt::join(rules, ", "), method, bounds,
                         detail.empty() ? "" : "; first violation: " + detail);
    case Kind::Benign:
      return fmt::format("benign: no violation under exhaustive exploration with {} ({})", bounds, method);
    case Kind::Undetermined:
      return fmt::format("undetermined ({}): {}", method, detail);
  }
  return "";
}

std::string renderMutant(const Mutant& m, const Label* label) {
  std::string h;
  h += fmt::format("# mutant: {}\n", m.op);
  h += fmt::format("# original: {}\n", m.original);
  h += fmt::format("# line: {}: {}\n", m.line, m.line_text);
  h += fmt::format("# change: {}\n", m.change);
  if (label) {
    h += fmt::format("# label: {}\n", label->text());
    if (label->kind == Label::Kind::Benign) h += "# expect: pass\n";
    else if (label->kind == Label::Kind::Bad) h += fmt::format("# expect-any: {}\n", fmt::join(label->rules, " "));
  }
  return h + m.body;
}

// ------------------------------------------------------ the oracle: bounds

namespace {

// Loop trip counts and `if` outcomes that do not depend on a loop variable:
// what a parameter value changes about a schedule.
void boundExprs(const ir::Block& b, std::vector<std::pair<const ir::Stmt*, bool>>& out) {
  for (const auto& st : b) {
    if (st.kind == ir::Stmt::Kind::For) out.push_back({&st, true});
    if (st.kind == ir::Stmt::Kind::If) out.push_back({&st, false});
    boundExprs(st.body, out);
    boundExprs(st.orelse, out);
  }
}

struct Bounds {
  std::vector<encoder::Binding> bindings;
  std::string text;   // "K in {1, 64, 192}; M = 1; block_idx 0 of grid_dim 1"
};

int ringDepth(const ir::Schedule& s) {
  int d = 1;
  for (const auto& v : s.views) d = std::max(d, v.stages);
  for (const auto& p : s.pipelines) d = std::max(d, p.stages);
  for (const auto& b : s.barriers) d = std::max(d, b.count);
  return d;
}

// Scalar parameter values for the exploration. For each LM.i32 parameter
// (the others at their smallest allowed value) the candidate values are
// grouped by what they change -- the trip count of every loop and the outcome
// of every `if` whose bounds do not depend on a loop variable -- and one value
// per group is kept, preferring largest trip counts of 1, S+1, 2, 2S+1, S, 0,
// S-1, 2S (S: the deepest ring of the schedule). The bindings are every
// combination of those values that satisfies the lm.assume facts and keeps
// every trip count <= 2S+1, at most max_bindings of them (lists shortened
// from their least preferred end).
Bounds chooseBounds(const ir::Schedule& s, const LabelOptions& opts) {
  std::vector<int> scalars;
  for (int i = 0; i < static_cast<int>(s.params.size()); ++i)
    if (s.params[i].type == ir::ParamType::I32) scalars.push_back(i);
  std::vector<std::pair<const ir::Stmt*, bool>> exprs;
  for (const auto& body : s.bodies) boundExprs(body.body, exprs);
  const int64_t S = ringDepth(s);
  const std::vector<int64_t> preference = {1, S + 1, 2, 2 * S + 1, S, 0, S - 1, 2 * S};
  const int64_t cap = 2 * S + 1;

  std::vector<int64_t> candidates;
  for (int64_t v = 0; v <= 16; ++v) candidates.push_back(v);
  for (int64_t v = 32; v <= 8192; v += 16) candidates.push_back(v);

  auto env = [&](const std::map<int, int64_t>& params) {
    ir::EvalEnv e;
    e.params = params;
    e.instance = 0;
    for (int d = 0; d < 3; ++d) e.block_idx[d] = 0, e.grid_dim[d] = 1;
    return e;
  };
  auto allowed = [&](const std::map<int, int64_t>& params) {
    auto e = env(params);
    for (const auto& a : s.assumes) {
      auto v = ir::evaluate(*a.cond, e);
      if (v && *v == 0) return false;
    }
    return true;
  };
  // trip counts and conditions; nullopt if a trip count exceeds the cap
  auto signature = [&](const std::map<int, int64_t>& params) -> std::optional<std::vector<int64_t>> {
    auto e = env(params);
    std::vector<int64_t> sig;
    for (const auto& [st, is_for] : exprs) {
      if (is_for) {
        auto lo = ir::evaluate(*st->lo, e), hi = ir::evaluate(*st->hi, e);
        auto step = st->step ? ir::evaluate(*st->step, e) : std::optional<int64_t>(1);
        if (!lo || !hi || !step || *step == 0) continue;
        int64_t n = *step > 0 ? (*hi > *lo ? (*hi - *lo + *step - 1) / *step : 0)
                              : (*lo > *hi ? (*lo - *hi - *step - 1) / -*step : 0);
        if (n > cap) return std::nullopt;
        sig.push_back(n);
      } else if (auto c = ir::evaluate(*st->cond, e)) {
        sig.push_back(*c != 0);
      }
    }
    return sig;
  };

  // base: the smallest allowed value of each parameter (others at 1)
  std::map<int, int64_t> base;
  for (int p : scalars) base[p] = 1;
  for (int p : scalars) {
    for (int64_t v : candidates) {
      auto t = base;
      t[p] = v;
      if (allowed(t) && signature(t)) {
        base[p] = v;
        break;
      }
    }
  }
  // per parameter: values by preference
  std::map<int, std::vector<int64_t>> values;
  for (int p : scalars) {
    std::map<std::vector<int64_t>, int64_t> first;   // signature -> smallest value
    for (int64_t v : candidates) {
      auto t = base;
      t[p] = v;
      if (!allowed(t)) continue;
      auto sig = signature(t);
      if (sig && !first.count(*sig)) first[*sig] = v;
    }
    std::vector<std::tuple<int64_t, int64_t>> ranked;   // (rank, value)
    for (const auto& [sig, v] : first) {
      int64_t mx = sig.empty() ? 0 : *std::max_element(sig.begin(), sig.end());
      auto it = std::find(preference.begin(), preference.end(), mx);
      ranked.push_back({it != preference.end() ? it - preference.begin() : 100 + mx, v});
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<int64_t> vs;
    for (const auto& [rank, v] : ranked)
      if (static_cast<int>(vs.size()) < opts.max_values_per_param && std::find(vs.begin(), vs.end(), v) == vs.end())
        vs.push_back(v);
    if (vs.empty()) vs.push_back(base[p]);
    values[p] = vs;
  }
  auto product = [&] {
    std::vector<std::map<int, int64_t>> acc{{}};
    for (const auto& [p, vs] : values) {
      std::vector<std::map<int, int64_t>> next;
      for (const auto& partial : acc)
        for (int64_t v : vs) {
          auto t = partial;
          t[p] = v;
          next.push_back(t);
        }
      acc = std::move(next);
    }
    std::vector<std::map<int, int64_t>> kept;
    for (auto& t : acc)
      if (allowed(t) && signature(t)) kept.push_back(std::move(t));
    return kept;
  };
  auto combos = product();
  while (static_cast<int>(combos.size()) > opts.max_bindings) {
    auto longest = std::max_element(values.begin(), values.end(),
                                    [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    if (longest->second.size() <= 1) break;
    longest->second.pop_back();
    combos = product();
  }
  if (combos.empty()) combos.push_back(base);

  Bounds b;
  for (const auto& t : combos) {
    encoder::Binding bd;
    bd.params = t;
    b.bindings.push_back(bd);
  }
  std::vector<std::string> parts;
  for (auto [p, vs] : values) {
    std::sort(vs.begin(), vs.end());
    parts.push_back(vs.size() == 1 ? fmt::format("{} = {}", s.params[p].name, vs[0])
                                   : fmt::format("{} in {{{}}}", s.params[p].name, fmt::join(vs, ", ")));
  }
  b.text = parts.empty() ? "no scalar parameters" : fmt::format("{}", fmt::join(parts, ", "));
  if (values.size() > 1)
    b.text += fmt::format(" ({} combinations with every trip count <= {})", combos.size(), cap);
  b.text += "; block_idx 0 of grid_dim 1";
  return b;
}

// ------------------------------------------------ the oracle: layout facts

// Layout facts computed directly from the declarations (not by the gates):
// every view inside its pool, its start on 16 bytes, and every slot aligned
// to what the ops that touch the view need (docs/rules/layout.misaligned.md):
// its swizzle atom; 128 bytes for a TMA copy; 16 for an MMA operand, a copy
// into a register fragment an MMA reads (ldmatrix) and cp.async; twice a 2-
// or 4-byte element for a register copy into it more than one column wide
// (paired stores); else its element.
std::set<std::string> layoutViolations(const ir::Schedule& s, const encoder::Binding& b, std::string* first) {
  std::set<std::string> out;
  ir::EvalEnv e;
  e.params = b.params;
  e.instance = 0;
  for (int d = 0; d < 3; ++d) e.block_idx[d] = b.block_idx[d], e.grid_dim[d] = b.grid_dim[d];
  std::map<int, int64_t> need;  // view -> the alignment its uses need
  std::set<int> mma_regs;        // register fragments an MMA reads
  auto isView = [](const ir::BufferRef& r) { return r.kind == ir::BufferRef::Kind::View; };
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      if (st.op.kind == ir::OpKind::Mma)
        for (const ir::BufferRef* r : {&st.op.src, &st.op.src2})
          if (r->kind == ir::BufferRef::Kind::Regs) mma_regs.insert(r->index);
    });
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      const ir::Op& op = st.op;
      auto at_least = [&](const ir::BufferRef& r, int64_t a) {
        if (isView(r)) need[r.index] = std::max(need[r.index], a);
      };
      for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
        if (isView(*r)) at_least(*r, ir::dtypeBytes(s.views[r->index].dtype));
      if (op.kind == ir::OpKind::TmaLoad) at_least(op.dst, 128);
      if (op.kind == ir::OpKind::TmaStore) at_least(op.src, 128);
      if (op.kind == ir::OpKind::Mma) at_least(op.src, 16), at_least(op.src2, 16);
      if (op.kind == ir::OpKind::CpAsync) at_least(op.dst, 16);
      if (op.kind == ir::OpKind::Copy && op.dst.kind == ir::BufferRef::Kind::Regs && mma_regs.count(op.dst.index))
        at_least(op.src, 16);
      if (op.kind == ir::OpKind::Copy && isView(op.dst) && op.src.kind == ir::BufferRef::Kind::Regs) {
        const int64_t eb = ir::dtypeBytes(s.views[op.dst.index].dtype);
        // one column wide: the last extent, sliced or the view's, a constant
        const ir::View& v = s.views[op.dst.index];
        std::optional<int64_t> w = v.shape.empty() ? std::optional<int64_t>(1) : ir::constValue(v.shape.back());
        if (op.dst.slices.size() >= v.shape.size() && !v.shape.empty()) {
          const ir::Slice& sl = op.dst.slices[v.shape.size() - 1];
          auto lo = sl.lo ? ir::constValue(sl.lo) : std::optional<int64_t>(0);
          auto hi = sl.hi ? ir::constValue(sl.hi) : w;
          w = lo && hi ? std::optional<int64_t>(*hi - *lo) : std::nullopt;
        }
        if ((eb == 2 || eb == 4) && (!w || *w != 1)) at_least(op.dst, 2 * eb);
      }
    });
  auto note = [&](const std::string& rule, const std::string& what) {
    if (out.insert(rule).second && first && first->empty()) *first = what;
  };
  for (int i = 0; i < static_cast<int>(s.views.size()); ++i) {
    const ir::View& v = s.views[i];
    auto off = ir::evaluate(*v.offset, e);
    auto pool = ir::evaluate(*s.pools[v.pool].bytes, e);
    int64_t elems = 1;
    bool ok = off && pool;
    for (const auto& d : v.shape) {
      auto x = ir::evaluate(*d, e);
      if (!x) ok = false;
      else elems *= *x;
    }
    if (!ok) continue;
    const int64_t slot = elems * ir::dtypeBytes(v.dtype);
    if (*off < 0 || *off + v.stages * slot > *pool)
      note("layout.view-outside-pool", fmt::format("{} spans [{}, {}) of a {}-byte pool", v.name, *off,
                                                   *off + v.stages * slot, *pool));
    const int64_t align = std::max<int64_t>({need.count(i) ? need[i] : 1, ir::swizzleBytes(v.swizzle) * 8, 1});
    for (int k = 0; k < v.stages; ++k)
      if (const int64_t want = k == 0 ? std::max<int64_t>(align, 16) : align; (*off + k * slot) % want != 0) {
        note("layout.misaligned", fmt::format("{}[{}] starts at byte {}, not a multiple of {}", v.name, k,
                                              *off + k * slot, want));
        break;
      }
  }
  return out;
}

// Barrier directions, computed directly from IR.md's contract: a role that
// arrives on a barrier (arrive, expect_tx, a TMA load or an MMA commit that
// completes on it) must be one of its producers, a role that waits one of
// its consumers.
std::set<std::string> directionViolations(const ir::Schedule& s, std::string* first) {
  std::set<std::string> out;
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      const ir::Op& op = st.op;
      if (op.barrier < 0 || op.barrier >= static_cast<int>(s.barriers.size())) return;
      const ir::Barrier& b = s.barriers[op.barrier];
      const bool arrives = ir::opInfo(op.kind).has(ir::OpFlag::Arrives);
      const auto& side = arrives ? b.prod : b.cons;
      if (!arrives && op.kind != ir::OpKind::Wait) return;
      if (std::find(side.begin(), side.end(), body.role) != side.end()) return;
      if (out.insert("struct.wrong-direction").second && first && first->empty())
        *first = fmt::format("role {} {} barrier {} (line {}) but is not one of its {}", s.roles[body.role].name,
                             arrives ? "arrives on" : "waits on", b.name, st.range.line,
                             arrives ? "producers" : "consumers");
    });
  return out;
}

std::string describe(const encoder::System& sys, const encoder::Violation& v) {
  std::string where;
  if (v.primary.proc >= 0 && v.primary.proc < static_cast<int>(sys.procs.size()) && v.primary.pc >= 0 &&
      v.primary.pc < static_cast<int>(sys.procs[v.primary.proc].program.size()))
    where = fmt::format(" at `{}` (line {})",
                        encoder::opText(*sys.schedule, *sys.procs[v.primary.proc].program[v.primary.pc].stmt),
                        sys.procs[v.primary.proc].program[v.primary.pc].stmt->range.line);
  return fmt::format("{}: {}{}", v.rule, v.message, where);
}

}  // namespace

Label labelMutant(const Mutant& m, const LabelOptions& opts) {
  Label label;
  label.method = "explicit-state simulator (encoder/simulator.h)";
  auto file = ir::makeSourceFile(m.relativePath(), m.body);
  ir::DiagnosticSink sink;
  ir::FrontendOptions fe;
  if (auto t = gate::parseTargetAnnotation(m.body))
    if (auto tt = ir::parseTarget(*t)) fe.target_override = *tt;
  auto mod = ir::compileModule(file, fe, sink);
  if (!mod || sink.hasErrors()) {
    label.detail = "the mutant does not pass the front end";
    for (const auto& f : sink.findings())
      if (f.severity == ir::Severity::Error) {
        label.detail += ": " + f.rule + " " + f.message;
        break;
      }
    return label;
  }
  // The original, for layout facts that were already there.
  std::optional<ir::Module> orig;
  {
    ir::DiagnosticSink osink;
    orig = ir::compileModule(ir::makeSourceFile(m.original, m.original_text), fe, osink);
  }
  auto originalSchedule = [&](const std::string& name) -> const ir::Schedule* {
    if (!orig) return nullptr;
    for (const auto& s : orig->schedules)
      if (s.name == name) return &s;
    return nullptr;
  };
  std::vector<std::string> rules;   // in the order found
  auto addRule = [&](const std::string& r) {
    if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
  };
  std::vector<std::string> bounds_texts;
  uint64_t states = 0;
  std::string undetermined;
  std::string first;
  bool direct_used = false;
  for (const auto& s : mod->schedules) {
    const ir::Target target = s.target != ir::Target::Unspecified ? s.target : fe.target_override;
    {
      std::string dfirst;
      auto dv = directionViolations(s, &dfirst);
      if (const ir::Schedule* os = originalSchedule(s.name))
        for (const auto& r : directionViolations(*os, nullptr)) dv.erase(r);
      for (const auto& r : dv) {
        addRule(r);
        if (first.empty()) first = dfirst;
      }
      if (!dv.empty()) direct_used = true;
    }
    Bounds bounds = chooseBounds(s, opts);
    bounds_texts.push_back(mod->schedules.size() > 1 ? s.name + ": " + bounds.text : bounds.text);
    for (const auto& b : bounds.bindings) {
      // layout facts: only those the mutation introduced (compare with the
      // unmutated declarations: the same schedule of the original file)
      std::string lfirst;
      auto lv = layoutViolations(s, b, &lfirst);
      if (const ir::Schedule* os = originalSchedule(s.name); os && !lv.empty()) {
        for (const auto& r : layoutViolations(*os, b, nullptr)) lv.erase(r);
        if (lv.empty()) lfirst.clear();
      }
      if (!lv.empty()) {
        for (const auto& r : lv) addRule(r), direct_used = true;
        if (first.empty()) first = lfirst + " (" + encoder::bindingToString(s, b) + ")";
      }
      std::string err;
      auto sys = encoder::buildSystem(s, b, target, &err);
      if (!sys) {
        if (err.find("out of range") != std::string::npos) {
          addRule("struct.slot-out-of-range");
          if (first.empty()) first = err + " (" + encoder::bindingToString(s, b) + ")";
        } else if (undetermined.empty()) {
          undetermined = fmt::format("cannot build the system for {}: {}", encoder::bindingToString(s, b), err);
        }
        continue;
      }
      encoder::ExploreOptions eo;
      eo.max_states = static_cast<uint64_t>(opts.max_states);
      eo.timeout_ms = opts.timeout_ms;
      auto r = encoder::explore(*sys, eo);
      states += r.states;
      for (const auto& v : r.violations) {
        addRule(v.rule);
        if (first.empty()) first = describe(*sys, v) + " (" + encoder::bindingToString(s, b) + ")";
      }
      if (r.outcome == encoder::Outcome::Unknown && undetermined.empty())
        undetermined = fmt::format("exploration incomplete for {}: {}", encoder::bindingToString(s, b), r.detail);
    }
  }
  label.bounds = fmt::format("{}; {} states", fmt::join(bounds_texts, "; "), states);
  if (direct_used) label.method += " and a direct computation from the declarations";
  if (!rules.empty()) {
    label.kind = Label::Kind::Bad;
    label.rules = rules;
    label.detail = first;
  } else if (!undetermined.empty()) {
    label.kind = Label::Kind::Undetermined;
    label.detail = undetermined;
  } else {
    label.kind = Label::Kind::Benign;
  }
  return label;
}

// ================================================================ command

std::optional<Mutant> parseMutantFile(const std::string& path, const std::string& text, std::string* error) {
  Mutant m;
  size_t at = 0;
  auto field = [&](std::string_view key, std::string& out) {
    std::string prefix = fmt::format("# {}: ", key);
    size_t end = text.find('\n', at);
    if (end == std::string::npos || text.compare(at, prefix.size(), prefix) != 0) return false;
    out = text.substr(at + prefix.size(), end - at - prefix.size());
    at = end + 1;
    return true;
  };
  std::string line, label;
  if (!field("mutant", m.op) || !field("original", m.original) || !field("line", line) || !field("change", m.change)) {
    if (error) *error = fmt::format("{}: not a mutant file (no `# mutant:`, `# original:`, `# line:`, `# change:` header)", path);
    return std::nullopt;
  }
  if (field("label", label)) {
    std::string expect;
    if (!field("expect", expect)) field("expect-any", expect);
  }
  size_t colon = line.find(": ");
  m.line = std::atoi(line.substr(0, colon).c_str());
  m.line_text = colon == std::string::npos ? "" : line.substr(colon + 2);
  m.body = text.substr(at);
  std::ifstream in(m.original, std::ios::binary);  // the original's layout facts (labelMutant)
  m.original_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return m;
}

// `cake mutate --relabel FILE...`: the oracle again on existing mutants.
static int relabelFiles(const MutateOptions& opts) {
  std::vector<std::string> errors;
  auto cases = gate::discoverCases(opts.inputs, errors);
  for (const auto& e : errors) std::cerr << "cake mutate: " << e << "\n";
  if (!errors.empty()) return 2;
  std::vector<Mutant> mutants;
  std::vector<std::string> paths, texts;
  for (const auto& c : cases) {
    std::string err;
    auto m = parseMutantFile(c.path, c.text, &err);
    if (!m) {
      std::cerr << "cake mutate: " << err << "\n";
      return 2;
    }
    mutants.push_back(std::move(*m));
    paths.push_back(c.path);
    texts.push_back(c.text);
  }
  std::vector<Label> labels(mutants.size());
  gate::parallelFor(mutants.size(), opts.jobs, [&](size_t i) { labels[i] = labelMutant(mutants[i], LabelOptions{}); });
  int changed = 0;
  for (size_t i = 0; i < mutants.size(); ++i) {
    if (labels[i].kind == Label::Kind::Undetermined) {
      std::cerr << fmt::format("cake mutate: {}: undetermined ({}); left as it is\n", paths[i], labels[i].detail);
      continue;
    }
    std::string text = renderMutant(mutants[i], &labels[i]);
    // the label line carries state counts: rewrite only when the expectation changes
    auto expectation = [](const std::string& t) {
      auto e = gate::parseExpectations(t);
      return e.label();
    };
    if (expectation(text) == expectation(texts[i])) continue;
    std::ofstream out(paths[i], std::ios::binary | std::ios::trunc);
    if (!out) {
      std::cerr << fmt::format("cake mutate: cannot write {}\n", paths[i]);
      return 2;
    }
    out << text;
    ++changed;
    std::cout << fmt::format("{}: {} -> {}\n", paths[i], expectation(texts[i]), labels[i].text());
  }
  std::cerr << fmt::format("cake mutate: {} mutants relabelled, {} changed\n", mutants.size(), changed);
  return 0;
}

int runMutateCommand(const MutateOptions& opts) {
  if (opts.relabel) return relabelFiles(opts);
  if (opts.list_operators) {
    for (const auto& op : kOperators) std::cout << fmt::format("{:<22} {}\n", op.id, op.summary);
    return 0;
  }
  std::vector<std::string> errors;
  auto cases = gate::discoverCases(opts.inputs, errors);
  for (const auto& e : errors) std::cerr << "cake mutate: " << e << "\n";
  if (!errors.empty()) return 2;
  std::vector<Original> originals;
  for (const auto& c : cases) {
    Original o{c.path, c.text};
    if (!isEligible(o)) {
      if (opts.inputs.size() == 1 && cases.size() == 1)
        std::cerr << fmt::format("cake mutate: {}: not a known-good schedule (`# expect: pass`)\n", c.path);
      continue;
    }
    std::string err;
    if (enumerate(o, &err).empty() && !err.empty()) std::cerr << "cake mutate: " << err << "\n";
    originals.push_back(std::move(o));
  }
  if (opts.inputs.empty()) {
    std::cerr << "cake mutate: no input files\n";
    return 2;
  }
  if (originals.empty()) {
    // An empty directory, or only cases that are not known-good: nothing
    // to mutate is a usage error, not a run that made 0 mutants.
    std::cerr << fmt::format("cake mutate: no known-good schedule (`# expect: pass`) in the inputs ({} .cake file{} "
                             "found): nothing to mutate\n", cases.size(), cases.size() == 1 ? "" : "s");
    return 2;
  }
  auto mutants = generate(originals, opts.n, opts.seed);
  std::vector<Label> labels(mutants.size());
  for (auto& l : labels) l.method = "not labelled";
  if (opts.label) {
    std::mutex mu;
    size_t done = 0;
    const bool tty = isatty(STDERR_FILENO) == 1;
    gate::parallelFor(mutants.size(), opts.jobs, [&](size_t i) {
      labels[i] = labelMutant(mutants[i], LabelOptions{});
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      if (tty) std::cerr << fmt::format("\r\033[K[{}/{}] {}", done, mutants.size(), mutants[i].relativePath()) << std::flush;
    });
    if (tty) std::cerr << "\r\033[K" << std::flush;
  }
  int written = 0, bad = 0, benign = 0, undetermined = 0;
  std::map<std::string, std::array<int, 3>> per_op;
  for (size_t i = 0; i < mutants.size(); ++i) {
    const Mutant& m = mutants[i];
    const Label& label = labels[i];
    auto& po = per_op[m.op];
    switch (label.kind) {
      case Label::Kind::Bad: ++bad, ++po[0]; break;
      case Label::Kind::Benign: ++benign, ++po[1]; break;
      case Label::Kind::Undetermined: ++undetermined, ++po[2]; break;
    }
    const bool keep = label.kind != Label::Kind::Undetermined || opts.keep_undetermined || !opts.label;
    if (!opts.out_dir) {
      std::cout << fmt::format("{}: {}\n", m.relativePath(), opts.label ? label.text() : m.change);
      continue;
    }
    if (!keep) continue;
    fs::path p = fs::path(*opts.out_dir) / m.relativePath();
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    if (!out) {
      std::cerr << fmt::format("cake mutate: cannot write {}\n", p.string());
      return 2;
    }
    out << renderMutant(m, opts.label ? &label : nullptr);
    ++written;
  }
  std::cerr << fmt::format("cake mutate: {} mutants from {} originals: {} bad, {} benign, {} undetermined", mutants.size(),
                           originals.size(), bad, benign, undetermined);
  if (opts.out_dir) std::cerr << fmt::format("; {} written under {}", written, *opts.out_dir);
  std::cerr << "\n";
  for (const auto& [op, c] : per_op)
    std::cerr << fmt::format("  {:<22} {:4} bad {:4} benign {:4} undetermined\n", op, c[0], c[1], c[2]);
  return 0;
}

}  // namespace cake::checks::mutate
