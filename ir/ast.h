// The syntax tree of a `.cake` file: what the parser builds and the
// formatter prints. It is close to Python's own AST for the subset that
// CAKE IR accepts (see docs/ir-reference.md); names are not resolved here
// (that is the resolver's job, ir/resolver.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/source.h"

namespace cake::ir::ast {

// ------------------------------------------------------------ expressions

enum class ExprKind {
  Name,       // text = identifier
  Int,        // ival (overflow = literal does not fit int64; raw keeps the text)
  Float,      // fval
  Str,        // text = decoded value, raw = the literal as written
  True, False, None,
  Attribute,  // args[0].text
  Call,       // args[0] = callee, args[1..] = positional; kwargs
  Subscript,  // args[0] = value, args[1] = index (a Tuple for `a, b`)
  Slice,      // args = {lo, hi} (nullptr = open); only inside a subscript
  Tuple,      // args = elements
  List,       // args = elements
  BinOp,      // text = "+", "-", "*", "//", "%"; args = {lhs, rhs}
  UnaryOp,    // text = "-", "+", "not"; args = {operand}
  Compare,    // args = {a, b, c...}; ops = {"<", "<=", ...} (ops.size() == args.size()-1)
  BoolOp,     // text = "and" | "or"; args = operands (>= 2)
};

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

struct Keyword {
  std::string name;
  SourceRange name_range;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::Name;
  SourceRange range;
  std::string text;
  std::string raw;                 // Int/Float/Str: the literal as written
  int64_t ival = 0;
  bool overflow = false;           // Int literal beyond int64
  double fval = 0;
  std::vector<ExprPtr> args;
  std::vector<std::string> ops;    // Compare
  std::vector<Keyword> kwargs;     // Call
  bool parenthesized = false;      // written inside (...) (kept by the printer)
  int depth = 1;                   // tree depth (bounded by the parser)
};

// ------------------------------------------------------------- statements

struct Stmt;
using StmtPtr = std::shared_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct ImportName {
  std::string name;   // dotted
  std::string as;     // empty if none
};

struct Param {
  std::string name;
  SourceRange range;
  ExprPtr annotation;   // nullptr if none
};

struct Decorator {
  ExprPtr expr;
  SourceRange range;    // the line(s) of `@expr`
};

struct Branch {         // `if cond:` / `elif cond:` / `else:` (cond == nullptr)
  ExprPtr cond;
  Block body;
  SourceRange header;   // from the keyword to the ':'
};

struct Stmt {
  enum class Kind { Expr, Assign, With, For, If, Pass, Import, FromImport, Def };
  Kind kind = Kind::Expr;
  SourceRange range;        // the whole statement (header only for compound ones)
  ExprPtr value;            // Expr: the expression; Assign: rhs; With: the item; For: the iterable
  std::string target;       // Assign / For: the name; Def: function name; FromImport: module
  SourceRange target_range;
  std::vector<ImportName> names;   // Import / FromImport ("*" for a star import)
  std::vector<Decorator> decorators;
  std::vector<Param> params;
  Block body;               // With / For / Def
  std::vector<Branch> branches;    // If: if + elifs (+ else with cond == nullptr)
};

struct Comment {
  int line = 0;
  int col = 0;
  std::string text;          // including the leading '#', trailing spaces removed
  bool trailing = false;     // code precedes it on its line
};

struct Module {
  SourceFilePtr file;
  Block body;
  std::vector<Comment> comments;   // in source order
  std::vector<int> blank_lines;    // 1-based numbers of lines holding only whitespace
};

// Structural equality, ignoring locations, raw spellings and parentheses.
bool equal(const Expr* a, const Expr* b);
bool equal(const Stmt& a, const Stmt& b);
bool equal(const Block& a, const Block& b);
bool equal(const Module& a, const Module& b);   // statements only (not comments)

// Parse a file. Reports syntax.* findings to the sink; nullopt on error.
std::optional<Module> parse(const SourceFilePtr& file, DiagnosticSink& sink);

// Canonical text of a parsed module (comments kept).
std::string print(const Module& m);
// An expression as the formatter writes it.
std::string printExpr(const Expr& e);

// Nesting limits (statements and expressions).
inline constexpr int kMaxBlockDepth = 200;
inline constexpr int kMaxExprDepth = 200;

}  // namespace cake::ir::ast

namespace cake::ir {
// A front-end finding for one of the rules in frontendRules().
Finding frontendFinding(std::string_view rule, SourceRange range, std::string message);
}  // namespace cake::ir
