// libFuzzer target for the front end: compileModule and formatSource must
// never crash, hang or throw on any input, and formatting must be
// idempotent and preserve the AST whenever the input parses.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ir/ast.h"
#include "ir/frontend.h"

using namespace cake::ir;

static SourceFilePtr makeFile(std::string text) {
  auto f = std::make_shared<SourceFile>();
  f->name = "fuzz.cake";
  f->text = std::move(text);
  return f;
}

static void die(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "%s\n--- first ---\n%s\n--- second ---\n%s\n", what, a.c_str(), b.c_str());
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  SourceFilePtr file = makeFile(text);

  for (Target t : {Target::Unspecified, Target::SM90a}) {
    DiagnosticSink sink;
    FrontendOptions opts;
    opts.target_override = t;
    auto m = compileModule(file, opts, sink);
    if (m.has_value() == sink.hasErrors()) die("compileModule: result and errors disagree", text, "");
    for (const Finding& f : sink.findings())
      if (!f.range.valid()) die("finding without a location", text, f.rule + ": " + f.message);
    if (t == Target::SM90a) break;
  }

  DiagnosticSink sink;
  auto once = formatSource(file, sink);
  if (!once) return 0;
  DiagnosticSink sink2;
  auto twice = formatSource(makeFile(*once), sink2);
  if (!twice) die("formatted text does not parse", text, *once);
  if (*once != *twice) die("formatting is not idempotent", *once, *twice);
  DiagnosticSink s3, s4;
  auto a = ast::parse(file, s3);
  auto b = ast::parse(makeFile(*once), s4);
  if (!a || !b || !ast::equal(*a, *b)) die("formatting changed the AST", text, *once);
  return 0;
}
