// Source files and locations. Every diagnostic points into a SourceFile
// through a SourceRange; the file keeps its text so the renderer can print
// the offending line with a caret.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cake::ir {

struct SourceFile {
  std::string name;  // as given on the command line
  std::string text;  // the bytes as read (not required to be UTF-8)

  // The text of 1-based line `line`, without its newline; empty if out of range.
  std::string_view lineText(int line) const;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

// A half-open range [begin, end) of 1-based line:column positions.
// Columns count bytes, starting at 1. line == 0 means "no location".
struct SourceRange {
  SourceFilePtr file;
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;

  bool valid() const { return line > 0; }
  // "file:line:col", or the file name alone when there is no line.
  std::string str() const;
};

// Reads a file; returns nullptr and fills `error` when it cannot be read.
SourceFilePtr readSourceFile(const std::string& path, std::string& error);
SourceFilePtr makeSourceFile(std::string name, std::string text);

}  // namespace cake::ir
