// Tokens of the CAKE IR Python subset. Positions are 1-based line:column,
// columns counting bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ast.h"
#include "ir/source.h"

namespace cake::ir::lex {

enum class Tok { Name, Int, Float, Str, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;      // Name / Op: the spelling; Int/Float/Str: raw literal text
  std::string str;       // Str: decoded value
  int64_t ival = 0;      // Int
  bool overflow = false; // Int does not fit int64
  double fval = 0;       // Float
  int line = 0, col = 0, end_line = 0, end_col = 0;
};

// A syntax error found while tokenizing or parsing.
struct SyntaxError {
  std::string rule;      // syntax.error, syntax.unsupported, syntax.invalid-input, syntax.too-deep
  int line = 1, col = 1, end_line = 1, end_col = 2;
  std::string message;
};

struct LexResult {
  std::vector<Token> tokens;                 // ends with Tok::End
  std::vector<ast::Comment> comments;
  std::vector<int> blank_lines;
};

// Throws SyntaxError.
LexResult tokenize(const std::string& text);

}  // namespace cake::ir::lex
