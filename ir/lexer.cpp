#include "ir/lexer.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace cake::ir::lex {

namespace {

bool isIdentStart(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(unsigned char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Length of a valid (strict) UTF-8 sequence at s[i], 0 if invalid.
size_t utf8Len(const std::string& s, size_t i) {
  auto b = [&](size_t k) -> unsigned { return static_cast<unsigned char>(s[k]); };
  unsigned c = b(i);
  if (c < 0x80) return 1;
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < s.size() && b(k) >= lo && b(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (c == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (c == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

const char* const kOps[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "==", "!=", "<=", ">=", "<<", ">>",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "+", "-", "*", "/", "%", "@", "&", "|",
    "^", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
};

class Lexer {
 public:
  explicit Lexer(const std::string& text) : s_(text), n_(text.size()) {}

  LexResult run() {
    validate();
    if (n_ >= 3 && std::memcmp(s_.data(), "\xEF\xBB\xBF", 3) == 0) i_ = 3;  // BOM
    // Python's two measures of an indentation: tabs to the next multiple of 8, and tabs as
    // one column. A tab-indented file is valid Python 3 (IR.md: a .cake file is valid Python);
    // where the two measures order two lines differently the indentation depends on the tab
    // width, which Python rejects (TabError) and so do we.
    std::vector<int> indents{0}, altIndents{0};
    bool atLineStart = true;
    bool lineHasTokens = false;   // current logical line has tokens
    bool physHasTokens = false;   // current physical line has tokens
    while (true) {
      if (atLineStart && brackets_.empty()) {
        atLineStart = false;
        size_t j = i_;
        int width = 0, altWidth = 0;
        while (j < n_ && (s_[j] == ' ' || s_[j] == '\t' || s_[j] == '\f')) {
          width = s_[j] == '\f' ? 0 : s_[j] == '\t' ? (width / 8 + 1) * 8 : width + 1;
          altWidth = s_[j] == '\f' ? 0 : altWidth + 1;
          ++j;
        }
        if (j >= n_) { i_ = j; break; }
        if (s_[j] == '#') {
          i_ = j;
          comment(false);
          if (i_ < n_) newline();
          atLineStart = true;
          continue;
        }
        if (s_[j] == '\n' || s_[j] == '\r') {
          res_.blank_lines.push_back(line_);
          i_ = j;
          newline();
          atLineStart = true;
          continue;
        }
        if (width > indents.back()) {
          if (altWidth <= altIndents.back()) inconsistentTabs(line_);
          indents.push_back(width);
          altIndents.push_back(altWidth);
          push(Tok::Indent, "", line_, col(j), line_, col(j));
        } else {
          while (width < indents.back()) {
            indents.pop_back();
            altIndents.pop_back();
            push(Tok::Dedent, "", line_, col(j), line_, col(j));
          }
          if (width != indents.back())
            fail("syntax.error", line_, col(j), "unindent does not match any outer indentation level");
          if (altWidth != altIndents.back()) inconsistentTabs(line_);
        }
        i_ = j;
      }
      while (i_ < n_ && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\f')) ++i_;
      if (i_ >= n_) break;
      unsigned char c = s_[i_];
      if (c == '#') { comment(physHasTokens); continue; }
      if (c == '\n' || c == '\r') {
        newline();
        physHasTokens = false;
        if (brackets_.empty()) {
          if (lineHasTokens) push(Tok::Newline, "", line_ - 1, prevLineEndCol_, line_ - 1, prevLineEndCol_ + 1);
          lineHasTokens = false;
          atLineStart = true;
        }
        continue;
      }
      if (c == '\\') {
        size_t j = i_ + 1;
        if (j < n_ && (s_[j] == '\n' || s_[j] == '\r')) {
          i_ = j;
          newline();
          if (i_ >= n_) fail("syntax.error", line_, 1, "unexpected end of file after a line continuation");
          continue;
        }
        fail("syntax.error", line_, col(i_), "unexpected character after line continuation '\\'");
      }
      lineHasTokens = true;
      physHasTokens = true;
      if (isIdentStart(c)) { nameOrString(); continue; }
      if (isDigit(c) || (c == '.' && i_ + 1 < n_ && isDigit(s_[i_ + 1]))) { number(); continue; }
      if (c == '"' || c == '\'') { string(i_, false); continue; }
      if (op()) continue;
      if (c >= 0x80) {
        size_t len = utf8Len(s_, i_);
        fail("syntax.error", line_, col(i_),
             fmt::format("unexpected character '{}'; names are ASCII", s_.substr(i_, len ? len : 1)), len ? len : 1);
      }
      fail("syntax.error", line_, col(i_), fmt::format("unexpected character '{}'", static_cast<char>(c)));
    }
    if (!brackets_.empty()) {
      const Token& b = brackets_.back();
      fail("syntax.error", b.line, b.col, fmt::format("'{}' was never closed", b.text));
    }
    if (lineHasTokens) push(Tok::Newline, "", line_, col(i_), line_, col(i_) + 1);
    while (indents.size() > 1) {
      indents.pop_back();
      push(Tok::Dedent, "", line_, col(i_), line_, col(i_));
    }
    push(Tok::End, "", line_, col(i_), line_, col(i_));
    return std::move(res_);
  }

 private:
  [[noreturn]] void inconsistentTabs(int line) {
    fail("syntax.error", line, 1,
         "inconsistent use of tabs and spaces in indentation (its depth would depend on the tab width)");
  }

  [[noreturn]] void fail(const char* rule, int line, int c, std::string msg, size_t len = 1) {
    SyntaxError e;
    e.rule = rule;
    e.line = line;
    e.col = c;
    e.end_line = line;
    e.end_col = c + static_cast<int>(len);
    e.message = std::move(msg);
    throw e;
  }

  int col(size_t pos) const { return static_cast<int>(pos - lineStart_) + 1; }

  // Rejects NUL bytes, control characters and invalid UTF-8 up front.
  void validate() {
    int line = 1;
    size_t ls = 0;
    for (size_t i = 0; i < n_;) {
      unsigned char c = s_[i];
      int cl = static_cast<int>(i - ls) + 1;
      if (c == '\n') { ++line; ls = i + 1; ++i; continue; }
      if (c == '\r') {
        if (i + 1 < n_ && s_[i + 1] == '\n') { ++i; continue; }
        fail("syntax.invalid-input", line, cl, "carriage return without a line feed (binary input?)");
      }
      if (c == 0) fail("syntax.invalid-input", line, cl, "NUL byte in source (binary input?)");
      if ((c < 0x20 && c != '\t' && c != '\f') || c == 0x7f)
        fail("syntax.invalid-input", line, cl, fmt::format("control character 0x{:02x} in source (binary input?)", c));
      size_t len = utf8Len(s_, i);
      if (len == 0) fail("syntax.invalid-input", line, cl, fmt::format("invalid UTF-8 byte 0x{:02x}", c));
      i += len;
    }
  }

  void push(Tok k, std::string text, int l, int c, int el, int ec) {
    Token t;
    t.kind = k;
    t.text = std::move(text);
    t.line = l;
    t.col = c;
    t.end_line = el;
    t.end_col = ec;
    res_.tokens.push_back(std::move(t));
  }

  // Consumes one line break at i_ ("\n" or "\r\n").
  void newline() {
    prevLineEndCol_ = col(i_);
    if (s_[i_] == '\r') ++i_;
    if (i_ < n_ && s_[i_] == '\n') ++i_;
    ++line_;
    lineStart_ = i_;
  }

  void comment(bool trailing) {
    size_t j = i_;
    while (j < n_ && s_[j] != '\n' && s_[j] != '\r') ++j;
    size_t e = j;
    while (e > i_ && (s_[e - 1] == ' ' || s_[e - 1] == '\t' || s_[e - 1] == '\f')) --e;
    ast::Comment cm;
    cm.line = line_;
    cm.col = col(i_);
    cm.text = s_.substr(i_, e - i_);
    cm.trailing = trailing;
    res_.comments.push_back(std::move(cm));
    i_ = j;
  }

  void nameOrString() {
    size_t j = i_;
    while (j < n_ && isIdentChar(s_[j])) ++j;
    std::string w = s_.substr(i_, j - i_);
    if (j < n_ && (s_[j] == '"' || s_[j] == '\'') && w.size() <= 2) {
      std::string lw;
      for (char ch : w) lw += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
      if (lw == "r" || lw == "u" || lw == "f" || lw == "b" || lw == "rb" || lw == "br" || lw == "fr" ||
          lw == "rf") {
        if (lw.find('f') != std::string::npos)
          fail("syntax.unsupported", line_, col(i_), "f-strings are not part of CAKE IR", j - i_);
        if (lw.find('b') != std::string::npos)
          fail("syntax.unsupported", line_, col(i_), "bytes literals are not part of CAKE IR", j - i_);
        size_t start = i_;
        string(start, lw == "r", j);
        return;
      }
    }
    push(Tok::Name, w, line_, col(i_), line_, col(j));
    i_ = j;
  }

  void string(size_t start, bool raw, size_t quotePos = std::string::npos) {
    if (quotePos == std::string::npos) quotePos = start;
    int sl = line_, sc = col(start);
    char q = s_[quotePos];
    bool triple = quotePos + 2 < n_ && s_[quotePos + 1] == q && s_[quotePos + 2] == q;
    size_t j = quotePos + (triple ? 3 : 1);
    std::string val;
    while (true) {
      if (j >= n_) fail("syntax.error", sl, sc, "unterminated string literal");
      char c = s_[j];
      if (c == q) {
        if (!triple) { ++j; break; }
        if (j + 2 < n_ && s_[j + 1] == q && s_[j + 2] == q) { j += 3; break; }
        val += c;
        ++j;
        continue;
      }
      if (c == '\n' || c == '\r') {
        if (!triple) fail("syntax.error", sl, sc, "unterminated string literal");
        i_ = j;
        newline();
        j = i_;
        val += '\n';
        continue;
      }
      if (c == '\\') {
        if (j + 1 >= n_) fail("syntax.error", sl, sc, "unterminated string literal");
        char e = s_[j + 1];
        if (e == '\n' || e == '\r') {  // escaped line break: continues the literal
          if (raw) val += '\\';
          i_ = j + 1;
          newline();
          j = i_;
          if (raw) val += '\n';
          continue;
        }
        if (raw) {
          val += c;
          val += e;
          j += 2;
          continue;
        }
        j += 2;
        switch (e) {
          case 'n': val += '\n'; break;
          case 't': val += '\t'; break;
          case 'r': val += '\r'; break;
          case 'a': val += '\a'; break;
          case 'b': val += '\b'; break;
          case 'f': val += '\f'; break;
          case 'v': val += '\v'; break;
          case '\\': val += '\\'; break;
          case '\'': val += '\''; break;
          case '"': val += '"'; break;
          case 'x': case 'u': case 'U': {
            size_t want = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (size_t k = 0; k < want; ++k) {
              char h = j + k < n_ ? s_[j + k] : 0;
              int d = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
              if (d < 0) fail("syntax.error", line_, col(j - 2), fmt::format("truncated \\{} escape", e), 2);
              cp = cp * 16 + static_cast<uint32_t>(d);
            }
            j += want;
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
              fail("syntax.error", line_, col(j - want - 2), "invalid code point in escape", want + 2);
            appendUtf8(val, cp);
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              uint32_t cp = static_cast<uint32_t>(e - '0');
              for (int k = 0; k < 2 && j < n_ && s_[j] >= '0' && s_[j] <= '7'; ++k, ++j)
                cp = cp * 8 + static_cast<uint32_t>(s_[j] - '0');
              appendUtf8(val, cp);
            } else {
              val += '\\';
              val += e;  // unknown escape: kept as written (Python does the same)
            }
        }
        continue;
      }
      val += c;
      ++j;
    }
    Token t;
    t.kind = Tok::Str;
    t.text = s_.substr(start, j - start);
    t.str = std::move(val);
    t.line = sl;
    t.col = sc;
    t.end_line = line_;
    t.end_col = col(j);
    res_.tokens.push_back(std::move(t));
    i_ = j;
  }

  void number() {
    size_t st = i_;
    int sc = col(st);
    std::string digits;   // without underscores
    bool isFloat = false;
    int base = 10;
    size_t j = i_;
    auto readDigits = [&](auto ok) {
      bool any = false, lastUnderscore = false;
      while (j < n_ && (ok(s_[j]) || s_[j] == '_')) {
        if (s_[j] == '_') {
          if (!any || lastUnderscore) fail("syntax.error", line_, col(j), "invalid underscore in number");
          lastUnderscore = true;
        } else {
          digits += s_[j];
          any = true;
          lastUnderscore = false;
        }
        ++j;
      }
      if (lastUnderscore) fail("syntax.error", line_, col(j - 1), "invalid underscore in number");
      return any;
    };
    if (s_[j] == '0' && j + 1 < n_ && std::strchr("xXoObB", s_[j + 1]) && s_[j + 1] != 0) {
      char p = s_[j + 1];
      base = (p == 'x' || p == 'X') ? 16 : (p == 'o' || p == 'O') ? 8 : 2;
      j += 2;
      if (j < n_ && s_[j] == '_') ++j;
      bool any = readDigits([&](char ch) {
        if (base == 16) return isDigit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
        if (base == 8) return ch >= '0' && ch <= '7';
        return ch == '0' || ch == '1';
      });
      if (!any) fail("syntax.error", line_, sc, "invalid number literal", j - st);
    } else {
      readDigits([](char ch) { return isDigit(ch); });
      if (j < n_ && s_[j] == '.') {
        isFloat = true;
        digits += '.';
        ++j;
        if (j < n_ && isDigit(s_[j])) readDigits([](char ch) { return isDigit(ch); });
      }
      if (j < n_ && (s_[j] == 'e' || s_[j] == 'E')) {
        size_t k = j + 1;
        if (k < n_ && (s_[k] == '+' || s_[k] == '-')) ++k;
        if (k < n_ && isDigit(s_[k])) {
          isFloat = true;
          digits += 'e';
          if (s_[j + 1] == '-') digits += '-';
          j = k;
          readDigits([](char ch) { return isDigit(ch); });
        }
      }
      if (!isFloat && digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
        fail("syntax.error", line_, sc, "leading zeros in a decimal integer literal are not allowed", j - st);
    }
    if (j < n_ && (s_[j] == 'j' || s_[j] == 'J'))
      fail("syntax.unsupported", line_, sc, "complex literals are not part of CAKE IR", j + 1 - st);
    if (j < n_ && (isIdentChar(s_[j]) || (s_[j] == '.' && !isFloat && base == 10) || (s_[j] == '.' && isFloat)))
      fail("syntax.error", line_, sc, "invalid number literal", j + 1 - st);
    Token t;
    t.text = s_.substr(st, j - st);
    t.line = line_;
    t.col = sc;
    t.end_line = line_;
    t.end_col = col(j);
    if (isFloat) {
      t.kind = Tok::Float;
      t.fval = std::strtod(digits.c_str(), nullptr);
    } else {
      t.kind = Tok::Int;
      unsigned __int128 v = 0;
      for (char ch : digits) {
        int d = isDigit(ch) ? ch - '0' : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : ch - 'A' + 10;
        v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
        if (v > static_cast<unsigned __int128>(INT64_MAX)) { t.overflow = true; break; }
      }
      t.ival = t.overflow ? 0 : static_cast<int64_t>(v);
    }
    res_.tokens.push_back(std::move(t));
    i_ = j;
  }

  bool op() {
    for (const char* o : kOps) {
      // (the first character first: comparing each of the 47 in full was a
      // tenth of parsing a file; docs/ci.md, session 36)
      if (o[0] != s_[i_]) continue;
      size_t len = std::strlen(o);
      if (s_.compare(i_, len, o) != 0) continue;
      int c = col(i_);
      Token t;
      t.kind = Tok::Op;
      t.text = o;
      t.line = line_;
      t.col = c;
      t.end_line = line_;
      t.end_col = c + static_cast<int>(len);
      if (len == 1 && std::strchr("([{", o[0])) {
        brackets_.push_back(t);
      } else if (len == 1 && std::strchr(")]}", o[0])) {
        if (brackets_.empty()) fail("syntax.error", line_, c, fmt::format("unmatched '{}'", o));
        char open = brackets_.back().text[0];
        char want = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (o[0] != want)
          fail("syntax.error", line_, c,
               fmt::format("closing '{}' does not match '{}' at {}:{}", o, open, brackets_.back().line,
                           brackets_.back().col));
        brackets_.pop_back();
      }
      res_.tokens.push_back(std::move(t));
      i_ += len;
      return true;
    }
    return false;
  }

  const std::string& s_;
  size_t n_;
  size_t i_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  int prevLineEndCol_ = 1;
  std::vector<Token> brackets_;
  LexResult res_;
};

}  // namespace

LexResult tokenize(const std::string& text) { return Lexer(text).run(); }

}  // namespace cake::ir::lex
