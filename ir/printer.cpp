// The canonical formatter (`cake fmt`): 4-space indentation, one statement
// per line, normalized spacing, comments kept on their statements.
#include <algorithm>

#include <fmt/format.h>

#include "ir/ast.h"
#include "ir/frontend.h"

namespace cake::ir::ast {

namespace {

int precedence(const Expr& e) {
  switch (e.kind) {
    case ExprKind::BoolOp: return e.text == "or" ? 1 : 2;
    case ExprKind::UnaryOp: return e.text == "not" ? 3 : 7;
    case ExprKind::Compare: return 4;
    case ExprKind::BinOp: return (e.text == "+" || e.text == "-") ? 5 : 6;
    default: return 8;
  }
}

void printInto(std::string& out, const Expr& e, int minPrec, bool inSubscript = false);

void printList(std::string& out, const std::vector<ExprPtr>& xs, size_t from = 0) {
  for (size_t i = from; i < xs.size(); ++i) {
    if (i > from) out += ", ";
    printInto(out, *xs[i], 0);
  }
}

void printInto(std::string& out, const Expr& e, int minPrec, bool inSubscript) {
  if (e.kind == ExprKind::Tuple) {
    if (inSubscript && !e.args.empty()) {
      printList(out, e.args);
      if (e.args.size() == 1) out += ",";
      return;
    }
    out += "(";
    printList(out, e.args);
    if (e.args.size() == 1) out += ",";
    out += ")";
    return;
  }
  int prec = precedence(e);
  bool paren = e.parenthesized || prec < minPrec;
  if (paren) out += "(";
  switch (e.kind) {
    case ExprKind::Name: out += e.text; break;
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Str: out += e.raw; break;
    case ExprKind::True: out += "True"; break;
    case ExprKind::False: out += "False"; break;
    case ExprKind::None: out += "None"; break;
    case ExprKind::Attribute:
      // `1 .x` must not print as `1.x` (a float literal followed by a name)
      if ((e.args[0]->kind == ExprKind::Int || e.args[0]->kind == ExprKind::Float) && !e.args[0]->parenthesized) {
        out += "(";
        printInto(out, *e.args[0], 0);
        out += ")";
      } else {
        printInto(out, *e.args[0], 8);
      }
      out += ".";
      out += e.text;
      break;
    case ExprKind::Call:
      printInto(out, *e.args[0], 8);
      out += "(";
      printList(out, e.args, 1);
      for (size_t i = 0; i < e.kwargs.size(); ++i) {
        if (i > 0 || e.args.size() > 1) out += ", ";
        out += e.kwargs[i].name;
        out += "=";
        printInto(out, *e.kwargs[i].value, 0);
      }
      out += ")";
      break;
    case ExprKind::Subscript:
      printInto(out, *e.args[0], 8);
      out += "[";
      printInto(out, *e.args[1], 0, true);
      out += "]";
      break;
    case ExprKind::Slice:
      if (e.args[0]) printInto(out, *e.args[0], 0);
      out += ":";
      if (e.args[1]) printInto(out, *e.args[1], 0);
      break;
    case ExprKind::List:
      out += "[";
      printList(out, e.args);
      out += "]";
      break;
    case ExprKind::BinOp:
      printInto(out, *e.args[0], prec);
      out += " " + e.text + " ";
      printInto(out, *e.args[1], prec + 1);
      break;
    case ExprKind::UnaryOp:
      out += e.text;
      if (e.text == "not") out += " ";
      printInto(out, *e.args[0], prec);
      break;
    case ExprKind::Compare:
      printInto(out, *e.args[0], 5);
      for (size_t i = 0; i < e.ops.size(); ++i) {
        out += " " + e.ops[i] + " ";
        printInto(out, *e.args[i + 1], 5);
      }
      break;
    case ExprKind::BoolOp:
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += " " + e.text + " ";
        printInto(out, *e.args[i], prec + 1);
      }
      break;
    case ExprKind::Tuple: break;
  }
  if (paren) out += ")";
}

class Printer {
 public:
  explicit Printer(const Module& m) : m_(m) {
    blank_ = m.blank_lines;
    std::sort(blank_.begin(), blank_.end());
  }

  std::string run() {
    block(m_.body, 0, true);
    // comments after the last statement
    while (next_ < m_.comments.size()) {
      const Comment& c = m_.comments[next_++];
      blankBefore(c.line, true);
      out_ += c.text + "\n";
      any_ = true;
    }
    return out_;
  }

 private:
  bool isBlank(int line) const { return std::binary_search(blank_.begin(), blank_.end(), line); }

  // Keeps blank lines above an item: up to 2 at top level, 1 inside a block.
  void blankBefore(int line, bool top) {
    if (!any_ || firstInBlock_) return;
    int n = 0;
    for (int l = line - 1; l >= 1 && isBlank(l) && n < 2; --l) ++n;
    n = std::min(n, top ? 2 : 1);
    for (int i = 0; i < n; ++i) out_ += "\n";
  }

  // Own-line comments that come before `line`.
  void commentsBefore(int line, int indent, bool top) {
    while (next_ < m_.comments.size() && m_.comments[next_].line < line) {
      const Comment& c = m_.comments[next_++];
      blankBefore(c.line, top);
      out_ += std::string(indent, ' ') + c.text + "\n";
      any_ = true;
      firstInBlock_ = false;
    }
  }

  // Writes one line for source lines [l1, l2], with the comments on them.
  void line(const std::string& text, int l1, int l2, int indent, bool top) {
    commentsBefore(l1, indent, top);
    blankBefore(l1, top);
    out_ += std::string(indent, ' ') + text;
    std::string trailing;
    while (next_ < m_.comments.size() && m_.comments[next_].line <= l2) {
      if (!trailing.empty()) trailing += "  ";
      trailing += m_.comments[next_++].text;
    }
    if (!trailing.empty()) out_ += "  " + trailing;
    out_ += "\n";
    any_ = true;
    firstInBlock_ = false;
  }

  void block(const Block& b, int indent, bool top) {
    firstInBlock_ = !top;
    for (const StmtPtr& s : b) stmt(*s, indent, top);
  }

  static std::string names(const std::vector<ImportName>& ns) {
    std::string o;
    for (size_t i = 0; i < ns.size(); ++i) {
      if (i) o += ", ";
      o += ns[i].name;
      if (!ns[i].as.empty()) o += " as " + ns[i].as;
    }
    return o;
  }

  void stmt(const Stmt& s, int indent, bool top) {
    const int l1 = s.range.line, l2 = s.range.end_line;
    switch (s.kind) {
      case Stmt::Kind::Expr: line(printExpr(*s.value), l1, l2, indent, top); break;
      case Stmt::Kind::Assign: line(s.target + " = " + printExpr(*s.value), l1, l2, indent, top); break;
      case Stmt::Kind::Pass: line("pass", l1, l2, indent, top); break;
      case Stmt::Kind::Import: line("import " + names(s.names), l1, l2, indent, top); break;
      case Stmt::Kind::FromImport:
        line("from " + s.target + " import " + names(s.names), l1, l2, indent, top);
        break;
      case Stmt::Kind::With:
        line("with " + printExpr(*s.value) + ":", l1, l2, indent, top);
        block(s.body, indent + 4, false);
        break;
      case Stmt::Kind::For:
        line("for " + s.target + " in " + printExpr(*s.value) + ":", l1, l2, indent, top);
        block(s.body, indent + 4, false);
        break;
      case Stmt::Kind::If:
        for (size_t i = 0; i < s.branches.size(); ++i) {
          const Branch& br = s.branches[i];
          std::string head = !br.cond ? "else:" : (i == 0 ? "if " : "elif ") + printExpr(*br.cond) + ":";
          line(head, br.header.line, br.header.end_line, indent, top);
          block(br.body, indent + 4, false);
        }
        break;
      case Stmt::Kind::Def: {
        for (const Decorator& d : s.decorators)
          line("@" + printExpr(*d.expr), d.range.line, d.range.end_line, indent, top);
        std::string h = "def " + s.target + "(";
        for (size_t i = 0; i < s.params.size(); ++i) {
          if (i) h += ", ";
          h += s.params[i].name;
          if (s.params[i].annotation) h += ": " + printExpr(*s.params[i].annotation);
        }
        h += "):";
        if (!s.decorators.empty()) firstInBlock_ = true;  // no blank line between decorator and def
        line(h, l1, l2, indent, top);
        block(s.body, indent + 4, false);
        break;
      }
    }
  }

  const Module& m_;
  std::vector<int> blank_;
  std::string out_;
  size_t next_ = 0;
  bool any_ = false;
  bool firstInBlock_ = false;
};

}  // namespace

std::string printExpr(const Expr& e) {
  std::string out;
  printInto(out, e, 0);
  return out;
}

std::string print(const Module& m) { return Printer(m).run(); }

}  // namespace cake::ir::ast

namespace cake::ir {

std::optional<std::string> formatSource(const SourceFilePtr& file, DiagnosticSink& sink) {
  try {
    std::optional<ast::Module> m = ast::parse(file, sink);
    if (!m) return std::nullopt;
    return ast::print(*m);
  } catch (const std::exception& e) {
    SourceRange r;
    r.file = file;
    r.line = r.col = r.end_line = 1;
    r.end_col = 2;
    sink.add(frontendFinding("syntax.invalid-input", r, std::string("internal error while formatting: ") + e.what()));
    return std::nullopt;
  }
}

}  // namespace cake::ir
