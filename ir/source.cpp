#include "ir/source.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace cake::ir {

std::string_view SourceFile::lineText(int line) const {
  if (line < 1) return {};
  std::string_view t = text;
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = t.find('\n', pos);
    if (nl == std::string_view::npos) return {};
    pos = nl + 1;
  }
  size_t end = t.find('\n', pos);
  std::string_view out = t.substr(pos, end == std::string_view::npos ? t.size() - pos : end - pos);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

std::string SourceRange::str() const {
  std::string name = file ? file->name : std::string("<unknown>");
  if (!valid()) return name;
  return fmt::format("{}:{}:{}", name, line, col);
}

SourceFilePtr readSourceFile(const std::string& path, std::string& error) {
  // A directory opens as a stream that reads nothing: without this it was
  // "an empty file" (no @cake.schedule function, or nothing to format).
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = fmt::format("'{}' is a directory, not a file", path);
    return nullptr;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("cannot open '{}'", path);
    return nullptr;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    error = fmt::format("cannot read '{}'", path);
    return nullptr;
  }
  return makeSourceFile(path, ss.str());
}

SourceFilePtr makeSourceFile(std::string name, std::string text) {
  auto f = std::make_shared<SourceFile>();
  f->name = std::move(name);
  f->text = std::move(text);
  return f;
}

}  // namespace cake::ir
