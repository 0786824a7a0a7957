// libFuzzer target for `cake lower`: every schedule the front end accepts
// is lowered for each target it may have; lowering must never crash, hang
// or throw, must say why when it fails (a lower.* error), and what it emits
// must be safe text: no trigraph in a comment, no backslash in a comment.
#include <sstream>
#include <string>

#include "fuzz/fuzz_util.h"
#include "lowering/lower.h"

using namespace cake;
using fuzz::die;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text;
  auto m = fuzz::compileInput(data, size, text);
  if (!m) return 0;
  for (const ir::Schedule& s : m->schedules) {
    for (ir::Target t : {ir::Target::SM80, ir::Target::SM90a, ir::Target::SM100a}) {
      if (s.target != ir::Target::Unspecified && s.target != t) continue;
      lowering::LowerOptions o;
      o.target = t;
      lowering::LowerResult r = lowering::lowerToCuda(s, o);
      bool errors = false;
      for (const ir::Finding& f : r.findings) errors = errors || f.severity == ir::Severity::Error;
      if (r.ok == errors) die("lowering: ok and errors disagree", text, std::string(ir::targetName(t)));
      if (!r.ok) continue;
      if (r.source.empty()) die("lowering: ok with no source", text, "");
      std::istringstream in(r.source);
      std::string line;
      while (std::getline(in, line)) {
        auto c = line.find("//");
        if (c == std::string::npos) continue;
        std::string comment = line.substr(c);
        if (comment.find("??") != std::string::npos || comment.find('\\') != std::string::npos)
          die("lowering: a comment with a trigraph or a backslash", text, line);
      }
    }
  }
  return 0;
}
