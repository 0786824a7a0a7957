// Recursive-descent parser for the CAKE IR subset of Python.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ir/ast.h"
#include "ir/lexer.h"

namespace cake::ir::ast {

namespace {

using lex::SyntaxError;
using lex::Tok;
using lex::Token;

const std::set<std::string>& pythonKeywords() {
  static const std::set<std::string> k = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
      "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
      "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  return k;
}

class Parser {
 public:
  Parser(const SourceFilePtr& file, std::vector<Token> toks) : file_(file), t_(std::move(toks)) {}

  Block parseModule() {
    Block body;
    while (!at(Tok::End)) {
      if (at(Tok::Newline)) { ++p_; continue; }
      if (at(Tok::Indent)) fail("syntax.error", cur(), "unexpected indent");
      if (at(Tok::Dedent)) { ++p_; continue; }
      body.push_back(statement());
    }
    return body;
  }

 private:
  // ------------------------------------------------------------ helpers
  const Token& cur() const { return t_[p_]; }
  const Token& peek(int k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool atOp(std::string_view op) const { return cur().kind == Tok::Op && cur().text == op; }
  bool atKw(std::string_view kw) const { return cur().kind == Tok::Name && cur().text == kw; }

  [[noreturn]] void fail(const char* rule, const Token& at, std::string msg) const {
    SyntaxError e;
    e.rule = rule;
    e.line = at.line;
    e.col = at.col;
    e.end_line = at.end_line;
    e.end_col = std::max(at.end_col, at.col + 1);
    if (at.kind == Tok::Newline || at.kind == Tok::End || at.kind == Tok::Indent || at.kind == Tok::Dedent) {
      e.end_line = e.line;
      e.end_col = e.col + 1;
    }
    e.message = std::move(msg);
    throw e;
  }
  [[noreturn]] void failAt(const char* rule, const SourceRange& r, std::string msg) const {
    SyntaxError e;
    e.rule = rule;
    e.line = r.line;
    e.col = r.col;
    e.end_line = r.end_line;
    e.end_col = r.end_col;
    e.message = std::move(msg);
    throw e;
  }

  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::Newline: return "end of line";
      case Tok::Indent: return "indent";
      case Tok::Dedent: return "dedent";
      case Tok::End: return "end of file";
      case Tok::Str: return "string literal";
      default: return fmt::format("'{}'", t.text.size() > 40 ? t.text.substr(0, 40) + "..." : t.text);
    }
  }

  [[noreturn]] void unexpected(std::string_view expected = {}) const {
    if (expected.empty()) fail("syntax.error", cur(), fmt::format("unexpected {}", describe(cur())));
    fail("syntax.error", cur(), fmt::format("expected {}, found {}", expected, describe(cur())));
  }

  const Token& expectOp(std::string_view op) {
    if (!atOp(op)) unexpected(fmt::format("'{}'", op));
    return t_[p_++];
  }

  SourceRange rangeOf(const Token& a, const Token& b) const {
    SourceRange r;
    r.file = file_;
    r.line = a.line;
    r.col = a.col;
    r.end_line = b.end_line;
    r.end_col = b.end_col;
    return r;
  }
  SourceRange rangeOf(const Token& a) const { return rangeOf(a, a); }
  const Token& last() const { return t_[p_ > 0 ? p_ - 1 : 0]; }

  static SourceRange join(const SourceRange& a, const SourceRange& b) {
    SourceRange r = a;
    r.end_line = b.end_line;
    r.end_col = b.end_col;
    return r;
  }

  ExprPtr mk(ExprKind k, SourceRange r, std::vector<ExprPtr> args = {}, int extra = 0) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->range = std::move(r);
    int d = 0;
    for (const ExprPtr& a : args)
      if (a) d = std::max(d, a->depth);
    e->depth = d + 1 + extra;
    e->args = std::move(args);
    if (e->depth > kMaxExprDepth)
      failAt("syntax.too-deep", e->range,
             fmt::format("expression nested more than {} levels deep", kMaxExprDepth));
    return e;
  }

  struct DepthGuard {
    Parser& p;
    int& d;
    DepthGuard(Parser& p_, int& d_, int limit, const char* what) : p(p_), d(d_) {
      if (++d > limit) {
        --d;
        p.fail("syntax.too-deep", p.cur(), fmt::format("{} nested more than {} levels deep", what, limit));
      }
    }
    ~DepthGuard() { --d; }
  };

  // --------------------------------------------------------- statements
  void unsupportedStmt(const std::string& kw) const {
    static const std::map<std::string, std::string> why = {
        {"while", "'while' loops are not part of CAKE IR; use 'for v in lm.range(lo, hi)'"},
        {"class", "classes are not part of CAKE IR"},
        {"try", "exceptions are not part of CAKE IR"},
        {"raise", "exceptions are not part of CAKE IR"},
        {"return", "'return' is not part of CAKE IR; a schedule runs to its end"},
        {"lambda", "'lambda' is not part of CAKE IR"},
        {"del", "'del' is not part of CAKE IR"},
        {"global", "'global' is not part of CAKE IR"},
        {"nonlocal", "'nonlocal' is not part of CAKE IR"},
        {"assert", "'assert' is not part of CAKE IR; use lm.assume(cond) for facts about parameters"},
        {"break", "'break' is not part of CAKE IR; control flow is uniform"},
        {"continue", "'continue' is not part of CAKE IR; control flow is uniform"},
        {"yield", "generators are not part of CAKE IR"},
        {"async", "'async' is not part of CAKE IR"},
        {"await", "'await' is not part of CAKE IR"},
    };
    auto it = why.find(kw);
    fail("syntax.unsupported", cur(),
         it != why.end() ? it->second : fmt::format("'{}' is not part of CAKE IR", kw));
  }

  StmtPtr statement() {
    if (at(Tok::Name)) {
      const std::string& w = cur().text;
      if (w == "if") return ifStmt();
      if (w == "for") return forStmt();
      if (w == "with") return withStmt();
      if (w == "def") return defStmt({});
      if (w == "else" || w == "elif") fail("syntax.error", cur(), fmt::format("'{}' without a matching 'if'", w));
      if (w == "while" || w == "class" || w == "try" || w == "async" || w == "except" || w == "finally") {
        if (w == "except" || w == "finally") unsupportedStmt("try");
        unsupportedStmt(w);
      }
    }
    if (atOp("@")) {
      std::vector<Decorator> decos;
      while (atOp("@")) {
        const Token& a = cur();
        ++p_;
        Decorator d;
        d.expr = expr();
        d.range = rangeOf(a, last());
        if (!at(Tok::Newline)) unexpected("end of line after the decorator");
        ++p_;
        decos.push_back(std::move(d));
      }
      if (!atKw("def")) {
        if (atKw("class")) unsupportedStmt("class");
        unexpected("'def' after the decorator");
      }
      return defStmt(std::move(decos));
    }
    StmtPtr s = simpleStmt();
    endOfLine();
    return s;
  }

  void endOfLine() {
    if (atOp(";")) fail("syntax.unsupported", cur(), "several statements on one line (';') are not part of CAKE IR");
    if (!at(Tok::Newline)) unexpected("end of line");
    ++p_;
  }

  StmtPtr simpleStmt() {
    auto s = std::make_shared<Stmt>();
    const Token& first = cur();
    if (at(Tok::Name)) {
      const std::string& w = cur().text;
      if (w == "pass") {
        ++p_;
        s->kind = Stmt::Kind::Pass;
        s->range = rangeOf(first);
        return s;
      }
      if (w == "import") return importStmt();
      if (w == "from") return fromStmt();
      static const std::set<std::string> unsup = {"return", "raise", "del", "global", "nonlocal", "assert",
                                                  "break", "continue", "yield", "await", "lambda"};
      if (unsup.count(w)) unsupportedStmt(w);
      if (w == "def" || w == "if" || w == "for" || w == "with" || w == "while" || w == "class")
        fail("syntax.error", cur(), fmt::format("'{}' cannot follow ':' on the same line", w));
    }
    ExprPtr e = exprList();
    if (atOp("=")) {
      if (e->kind != ExprKind::Name)
        failAt("syntax.unsupported", e->range,
               e->kind == ExprKind::Tuple ? "tuple assignment is not part of CAKE IR; assign one name per line"
                                          : "only a plain name can be assigned in CAKE IR");
      ++p_;
      if (at(Tok::Newline)) unexpected("an expression");
      ExprPtr rhs = exprList();
      if (atOp("=")) fail("syntax.unsupported", cur(), "chained assignment is not part of CAKE IR");
      s->kind = Stmt::Kind::Assign;
      s->target = e->text;
      s->target_range = e->range;
      s->value = rhs;
      s->range = rangeOf(first, last());
      return s;
    }
    if (cur().kind == Tok::Op && cur().text.size() >= 2 && cur().text.back() == '=' && cur().text != "==" &&
        cur().text != "!=" && cur().text != "<=" && cur().text != ">=")
      fail("syntax.unsupported", cur(),
           fmt::format("augmented assignment '{}' is not part of CAKE IR; integer names are constants", cur().text));
    if (atOp(":")) fail("syntax.unsupported", cur(), "annotated assignment is not part of CAKE IR");
    s->kind = Stmt::Kind::Expr;
    s->value = e;
    s->range = rangeOf(first, last());
    return s;
  }

  std::string dottedName() {
    if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("a module name");
    std::string n = t_[p_++].text;
    while (atOp(".")) {
      ++p_;
      if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("a name");
      n += "." + t_[p_++].text;
    }
    return n;
  }

  std::string asName() {
    if (!atKw("as")) return {};
    ++p_;
    if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("a name after 'as'");
    return t_[p_++].text;
  }

  StmtPtr importStmt() {
    auto s = std::make_shared<Stmt>();
    const Token& first = cur();
    ++p_;
    s->kind = Stmt::Kind::Import;
    do {
      ImportName n;
      n.name = dottedName();
      n.as = asName();
      s->names.push_back(std::move(n));
    } while (atOp(",") && (++p_, true));
    s->range = rangeOf(first, last());
    return s;
  }

  StmtPtr fromStmt() {
    auto s = std::make_shared<Stmt>();
    const Token& first = cur();
    ++p_;
    s->kind = Stmt::Kind::FromImport;
    if (atOp(".") || atOp("...")) fail("syntax.unsupported", cur(), "relative imports are not part of CAKE IR");
    s->target = dottedName();
    if (!atKw("import")) unexpected("'import'");
    ++p_;
    if (atOp("*")) {
      ++p_;
      s->names.push_back({"*", ""});
    } else {
      bool paren = atOp("(");
      if (paren) ++p_;
      do {
        if (paren && atOp(")")) break;
        ImportName n;
        if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("a name");
        n.name = t_[p_++].text;
        n.as = asName();
        s->names.push_back(std::move(n));
      } while (atOp(",") && (++p_, true));
      if (paren) expectOp(")");
    }
    s->range = rangeOf(first, last());
    return s;
  }

  // ':' then either NEWLINE INDENT stmts DEDENT or one simple statement.
  Block suite(const Token& head) {
    if (blockDepth_ + 1 > kMaxBlockDepth)
      fail("syntax.too-deep", head, fmt::format("blocks nested more than {} levels deep", kMaxBlockDepth));
    expectOp(":");
    DepthGuard g(*this, blockDepth_, kMaxBlockDepth, "blocks");
    Block b;
    if (!at(Tok::Newline)) {
      b.push_back(simpleStmt());
      endOfLine();
      return b;
    }
    ++p_;
    if (!at(Tok::Indent)) unexpected("an indented block");
    ++p_;
    while (!at(Tok::Dedent) && !at(Tok::End)) {
      if (at(Tok::Newline)) { ++p_; continue; }
      if (at(Tok::Indent)) fail("syntax.error", cur(), "unexpected indent");
      b.push_back(statement());
    }
    if (at(Tok::Dedent)) ++p_;
    return b;
  }

  StmtPtr ifStmt() {
    auto s = std::make_shared<Stmt>();
    s->kind = Stmt::Kind::If;
    const Token& first = cur();
    int extraDepth = 0;
    while (true) {
      Branch br;
      const Token& kw = cur();
      ++p_;
      br.cond = expr();
      br.header = rangeOf(kw, cur());
      if (s->branches.empty()) s->range = br.header;
      br.body = suite(kw);
      s->branches.push_back(std::move(br));
      if (atKw("elif")) {
        // an elif is a nested if: it counts against the block-depth limit
        if (blockDepth_ + (++extraDepth) > kMaxBlockDepth)
          fail("syntax.too-deep", cur(), fmt::format("blocks nested more than {} levels deep", kMaxBlockDepth));
        continue;
      }
      break;
    }
    if (atKw("else")) {
      Branch br;
      const Token& kw = cur();
      ++p_;
      br.header = rangeOf(kw, cur());
      br.body = suite(kw);
      s->branches.push_back(std::move(br));
    }
    (void)first;
    return s;
  }

  StmtPtr forStmt() {
    auto s = std::make_shared<Stmt>();
    s->kind = Stmt::Kind::For;
    const Token& first = cur();
    ++p_;
    if (!at(Tok::Name) || pythonKeywords().count(cur().text)) {
      if (atOp("(")) fail("syntax.unsupported", cur(), "tuple loop targets are not part of CAKE IR");
      unexpected("a loop variable name");
    }
    s->target = cur().text;
    s->target_range = rangeOf(cur());
    ++p_;
    if (atOp(",")) fail("syntax.unsupported", cur(), "tuple loop targets are not part of CAKE IR");
    if (!atKw("in")) unexpected("'in'");
    ++p_;
    s->value = exprList();
    s->range = rangeOf(first, cur());
    s->body = suite(first);
    if (atKw("else")) fail("syntax.unsupported", cur(), "'for ... else' is not part of CAKE IR");
    return s;
  }

  StmtPtr withStmt() {
    auto s = std::make_shared<Stmt>();
    s->kind = Stmt::Kind::With;
    const Token& first = cur();
    ++p_;
    s->value = expr();
    if (atKw("as")) fail("syntax.unsupported", cur(), "'with ... as' is not part of CAKE IR; write 'with ROLE:'");
    if (atOp(",")) fail("syntax.unsupported", cur(), "a 'with' names exactly one role");
    s->range = rangeOf(first, cur());
    s->body = suite(first);
    return s;
  }

  StmtPtr defStmt(std::vector<Decorator> decos) {
    auto s = std::make_shared<Stmt>();
    s->kind = Stmt::Kind::Def;
    s->decorators = std::move(decos);
    const Token& first = cur();
    ++p_;
    if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("a function name");
    s->target = cur().text;
    s->target_range = rangeOf(cur());
    ++p_;
    expectOp("(");
    while (!atOp(")")) {
      if (atOp("*") || atOp("**") || atOp("/"))
        fail("syntax.unsupported", cur(), "variadic, keyword-only and positional-only parameters are not part of CAKE IR");
      if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("a parameter name");
      Param prm;
      prm.name = cur().text;
      prm.range = rangeOf(cur());
      ++p_;
      if (atOp(":")) {
        ++p_;
        prm.annotation = expr();
      }
      if (atOp("=")) fail("syntax.unsupported", cur(), "default parameter values are not part of CAKE IR");
      s->params.push_back(std::move(prm));
      if (atOp(",")) { ++p_; continue; }
      if (!atOp(")")) unexpected("',' or ')'");
    }
    ++p_;
    if (atOp("->")) fail("syntax.unsupported", cur(), "return annotations are not part of CAKE IR");
    s->range = rangeOf(first, cur());
    s->body = suite(first);
    return s;
  }

  // -------------------------------------------------------- expressions

  // expr (',' expr)* [','] -> a Tuple when there is a comma
  ExprPtr exprList() {
    const Token& first = cur();
    ExprPtr e = expr();
    if (!atOp(",")) return e;
    std::vector<ExprPtr> elems{e};
    while (atOp(",")) {
      ++p_;
      if (!startsExpr()) break;
      elems.push_back(expr());
    }
    return mk(ExprKind::Tuple, rangeOf(first, last()), std::move(elems));
  }

  bool startsExpr() const {
    const Token& t = cur();
    if (t.kind == Tok::Name) {
      static const std::set<std::string> stop = {"and", "or", "in", "is", "if", "else", "elif", "for",
                                                 "as", "import", "from", "def", "with", "while", "pass"};
      return !stop.count(t.text);
    }
    if (t.kind == Tok::Int || t.kind == Tok::Float || t.kind == Tok::Str) return true;
    if (t.kind == Tok::Op) return t.text == "(" || t.text == "[" || t.text == "-" || t.text == "+" ||
                                  t.text == "{" || t.text == "~" || t.text == "*" || t.text == "...";
    return false;
  }

  ExprPtr expr() {
    DepthGuard g(*this, exprDepth_, kMaxExprDepth, "expression");
    if (atKw("lambda")) unsupportedStmt("lambda");
    if (atKw("yield")) unsupportedStmt("yield");
    if (atKw("await")) unsupportedStmt("await");
    ExprPtr e = orTest();
    if (atKw("if")) fail("syntax.unsupported", cur(), "conditional expressions ('x if c else y') are not part of CAKE IR");
    if (atOp(":=")) fail("syntax.unsupported", cur(), "assignment expressions (':=') are not part of CAKE IR");
    return e;
  }

  ExprPtr orTest() { return boolOp("or", [this] { return andTest(); }); }
  ExprPtr andTest() { return boolOp("and", [this] { return notTest(); }); }

  template <typename F>
  ExprPtr boolOp(const char* kw, F sub) {
    ExprPtr e = sub();
    if (!atKw(kw)) return e;
    std::vector<ExprPtr> ops{e};
    while (atKw(kw)) {
      ++p_;
      ops.push_back(sub());
    }
    SourceRange r = join(ops.front()->range, ops.back()->range);
    int extra = static_cast<int>(ops.size()) - 2;
    auto n = mk(ExprKind::BoolOp, r, std::move(ops), extra);
    n->text = kw;
    return n;
  }

  ExprPtr notTest() {
    if (atKw("not")) {
      DepthGuard g(*this, exprDepth_, kMaxExprDepth, "expression");
      const Token& a = cur();
      ++p_;
      ExprPtr x = notTest();
      auto n = mk(ExprKind::UnaryOp, join(rangeOf(a), x->range), {x});
      n->text = "not";
      return n;
    }
    return comparison();
  }

  ExprPtr comparison() {
    ExprPtr e = arith();
    std::vector<ExprPtr> args{e};
    std::vector<std::string> ops;
    while (true) {
      if (cur().kind == Tok::Op &&
          (cur().text == "<" || cur().text == ">" || cur().text == "==" || cur().text == "!=" ||
           cur().text == "<=" || cur().text == ">=")) {
        ops.push_back(cur().text);
        ++p_;
        args.push_back(arith());
        continue;
      }
      if (atKw("in") || atKw("is") || (atKw("not") && peek().kind == Tok::Name && peek().text == "in"))
        fail("syntax.unsupported", cur(), fmt::format("the '{}' operator is not part of CAKE IR", cur().text));
      break;
    }
    if (ops.empty()) return e;
    SourceRange r = join(args.front()->range, args.back()->range);
    int extra = static_cast<int>(ops.size()) - 1;
    auto n = mk(ExprKind::Compare, r, std::move(args), extra);
    n->ops = std::move(ops);
    return n;
  }

  void rejectBitwise() const {
    if (cur().kind != Tok::Op) return;
    const std::string& o = cur().text;
    if (o == "|" || o == "&" || o == "^" || o == "<<" || o == ">>")
      fail("syntax.unsupported", cur(), fmt::format("the '{}' operator is not part of CAKE IR", o));
  }

  ExprPtr arith() {
    ExprPtr e = term();
    while (atOp("+") || atOp("-")) {
      std::string op = cur().text;
      ++p_;
      ExprPtr r = term();
      auto n = mk(ExprKind::BinOp, join(e->range, r->range), {e, r});
      n->text = op;
      e = n;
    }
    rejectBitwise();
    return e;
  }

  ExprPtr term() {
    ExprPtr e = factor();
    while (true) {
      if (atOp("/"))
        fail("syntax.unsupported", cur(), "'/' is not part of CAKE IR; integer division is '//'");
      if (atOp("@")) fail("syntax.unsupported", cur(), "the '@' operator is not part of CAKE IR; use lm.mma");
      if (!(atOp("*") || atOp("//") || atOp("%"))) break;
      std::string op = cur().text;
      ++p_;
      ExprPtr r = factor();
      auto n = mk(ExprKind::BinOp, join(e->range, r->range), {e, r});
      n->text = op;
      e = n;
    }
    return e;
  }

  ExprPtr factor() {
    if (atOp("-") || atOp("+")) {
      DepthGuard g(*this, exprDepth_, kMaxExprDepth, "expression");
      const Token& a = cur();
      std::string op = a.text;
      ++p_;
      ExprPtr x = factor();
      auto n = mk(ExprKind::UnaryOp, join(rangeOf(a), x->range), {x});
      n->text = op;
      return n;
    }
    if (atOp("~")) fail("syntax.unsupported", cur(), "the '~' operator is not part of CAKE IR");
    ExprPtr e = primary();
    if (atOp("**")) fail("syntax.unsupported", cur(), "the '**' operator is not part of CAKE IR");
    return e;
  }

  ExprPtr primary() {
    ExprPtr e = atom();
    while (true) {
      if (atOp(".")) {
        ++p_;
        if (!at(Tok::Name) || pythonKeywords().count(cur().text)) unexpected("an attribute name");
        auto n = mk(ExprKind::Attribute, join(e->range, rangeOf(cur())), {e});
        n->text = cur().text;
        ++p_;
        e = n;
      } else if (atOp("(")) {
        e = call(e);
      } else if (atOp("[")) {
        e = subscript(e);
      } else {
        break;
      }
    }
    return e;
  }

  ExprPtr call(ExprPtr fn) {
    ++p_;  // (
    std::vector<ExprPtr> args{fn};
    std::vector<Keyword> kws;
    std::set<std::string> seen;
    while (!atOp(")")) {
      if (atOp("*") || atOp("**"))
        fail("syntax.unsupported", cur(), "argument unpacking ('*', '**') is not part of CAKE IR");
      if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && !pythonKeywords().count(cur().text)) {
        Keyword k;
        k.name = cur().text;
        k.name_range = rangeOf(cur());
        if (!seen.insert(k.name).second)
          fail("syntax.error", cur(), fmt::format("keyword argument '{}' repeated", k.name));
        p_ += 2;
        k.value = expr();
        kws.push_back(std::move(k));
      } else {
        const Token& a = cur();
        ExprPtr v = expr();
        if (!kws.empty())
          failAt("syntax.error", v->range, "positional argument follows keyword argument");
        if (atKw("for")) fail("syntax.unsupported", cur(), "comprehensions are not part of CAKE IR");
        (void)a;
        args.push_back(v);
      }
      if (atOp(",")) { ++p_; continue; }
      if (!atOp(")")) unexpected("',' or ')'");
    }
    const Token& close = cur();
    ++p_;
    int extra = 0;
    for (const Keyword& k : kws) extra = std::max(extra, k.value->depth);
    auto n = mk(ExprKind::Call, join(fn->range, rangeOf(close)), std::move(args));
    n->depth = std::max(n->depth, extra + 1);
    if (n->depth > kMaxExprDepth)
      failAt("syntax.too-deep", n->range, fmt::format("expression nested more than {} levels deep", kMaxExprDepth));
    n->kwargs = std::move(kws);
    return n;
  }

  ExprPtr sliceItem() {
    const Token& first = cur();
    ExprPtr lo, hi;
    if (!atOp(":")) {
      lo = expr();
      if (!atOp(":")) return lo;
    }
    ++p_;  // :
    if (!atOp(",") && !atOp("]") && !atOp(":")) hi = expr();
    if (atOp(":")) fail("syntax.unsupported", cur(), "slice steps are not part of CAKE IR");
    return mk(ExprKind::Slice, rangeOf(first, last()), {lo, hi});
  }

  ExprPtr subscript(ExprPtr v) {
    const Token& open = cur();
    ++p_;  // [
    if (atOp("]")) unexpected("an index");
    std::vector<ExprPtr> items{sliceItem()};
    bool tuple = false;
    while (atOp(",")) {
      tuple = true;
      ++p_;
      if (atOp("]")) break;
      items.push_back(sliceItem());
    }
    if (!atOp("]")) unexpected("',' or ']'");
    const Token& close = cur();
    ++p_;
    ExprPtr idx = tuple ? mk(ExprKind::Tuple, rangeOf(open, close), std::move(items)) : items[0];
    return mk(ExprKind::Subscript, join(v->range, rangeOf(close)), {v, idx});
  }

  ExprPtr atom() {
    const Token& t = cur();
    switch (t.kind) {
      case Tok::Name: {
        if (t.text == "True" || t.text == "False" || t.text == "None") {
          ++p_;
          return mk(t.text == "True" ? ExprKind::True : t.text == "False" ? ExprKind::False : ExprKind::None,
                    rangeOf(t));
        }
        if (t.text == "lambda" || t.text == "yield" || t.text == "await") unsupportedStmt(t.text);
        if (pythonKeywords().count(t.text)) unexpected("an expression");
        ++p_;
        auto n = mk(ExprKind::Name, rangeOf(t));
        n->text = t.text;
        return n;
      }
      case Tok::Int: {
        ++p_;
        auto n = mk(ExprKind::Int, rangeOf(t));
        n->ival = t.ival;
        n->overflow = t.overflow;
        n->raw = t.text;
        return n;
      }
      case Tok::Float: {
        ++p_;
        auto n = mk(ExprKind::Float, rangeOf(t));
        n->fval = t.fval;
        n->raw = t.text;
        return n;
      }
      case Tok::Str: {
        ++p_;
        std::string val = t.str, raw = t.text;
        const Token* lastTok = &t;
        while (at(Tok::Str)) {  // implicit concatenation
          val += cur().str;
          raw += " " + cur().text;
          lastTok = &cur();
          ++p_;
        }
        auto n = mk(ExprKind::Str, rangeOf(t, *lastTok));
        n->text = std::move(val);
        n->raw = std::move(raw);
        return n;
      }
      case Tok::Op: {
        if (t.text == "(") {
          ++p_;
          if (atOp(")")) {
            const Token& close = cur();
            ++p_;
            auto n = mk(ExprKind::Tuple, rangeOf(t, close));
            n->parenthesized = true;
            return n;
          }
          if (atOp("*")) fail("syntax.unsupported", cur(), "starred expressions are not part of CAKE IR");
          ExprPtr e = expr();
          if (atKw("for")) fail("syntax.unsupported", cur(), "generator expressions are not part of CAKE IR");
          if (atOp(",")) {
            std::vector<ExprPtr> elems{e};
            while (atOp(",")) {
              ++p_;
              if (atOp(")")) break;
              elems.push_back(expr());
            }
            if (!atOp(")")) unexpected("',' or ')'");
            const Token& close = cur();
            ++p_;
            auto n = mk(ExprKind::Tuple, rangeOf(t, close), std::move(elems));
            n->parenthesized = true;
            return n;
          }
          if (!atOp(")")) unexpected("')'");
          const Token& close = cur();
          ++p_;
          // keep the node, widen its range to the parentheses
          auto copy = std::make_shared<Expr>(*e);
          copy->parenthesized = true;
          copy->range = rangeOf(t, close);
          return copy;
        }
        if (t.text == "[") {
          ++p_;
          std::vector<ExprPtr> elems;
          while (!atOp("]")) {
            if (atOp("*")) fail("syntax.unsupported", cur(), "starred expressions are not part of CAKE IR");
            elems.push_back(expr());
            if (atKw("for")) fail("syntax.unsupported", cur(), "list comprehensions are not part of CAKE IR");
            if (atOp(",")) { ++p_; continue; }
            if (!atOp("]")) unexpected("',' or ']'");
          }
          const Token& close = cur();
          ++p_;
          return mk(ExprKind::List, rangeOf(t, close), std::move(elems));
        }
        if (t.text == "{") fail("syntax.unsupported", t, "dicts and sets are not part of CAKE IR");
        if (t.text == "...") fail("syntax.unsupported", t, "'...' is not part of CAKE IR");
        if (t.text == "*") fail("syntax.unsupported", t, "starred expressions are not part of CAKE IR");
        unexpected("an expression");
      }
      default:
        unexpected("an expression");
    }
  }

  SourceFilePtr file_;
  std::vector<Token> t_;
  size_t p_ = 0;
  int blockDepth_ = 0;
  int exprDepth_ = 0;
};

}  // namespace

std::optional<Module> parse(const SourceFilePtr& file, DiagnosticSink& sink) {
  auto report = [&](const SyntaxError& e) {
    SourceRange r;
    r.file = file;
    r.line = e.line;
    r.col = e.col;
    r.end_line = e.end_line;
    r.end_col = e.end_col;
    sink.add(frontendFinding(e.rule, r, e.message));
  };
  if (!file) return std::nullopt;
  try {
    lex::LexResult lr = lex::tokenize(file->text);
    Module m;
    m.file = file;
    m.comments = std::move(lr.comments);
    m.blank_lines = std::move(lr.blank_lines);
    Parser p(file, std::move(lr.tokens));
    m.body = p.parseModule();
    return m;
  } catch (const SyntaxError& e) {
    report(e);
  } catch (const std::exception& e) {
    SyntaxError se;
    se.rule = "syntax.invalid-input";
    se.message = std::string("the input could not be parsed: ") + e.what();
    report(se);
  }
  return std::nullopt;
}

}  // namespace cake::ir::ast
