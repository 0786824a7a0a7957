// docs/z3.md "Session 52 (helper nested52)": the headed restart form.
#include "encoder/trip_restart_head.h"

#include <fmt/format.h>

#include "encoder/system.h"
#include "encoder/trip_restart_rotate.h"
#include "ir/ops.h"

namespace cake::encoder::trip {
namespace restart_head {

using ir::Stmt;

bool isSync(const Stmt& st) { return st.kind == Stmt::Kind::Op && st.op.kind == ir::OpKind::Sync; }

constexpr auto refuse = &refusedRestart<RestartReduction>;

// "" when `code` (P or Q of a role) may stand outside the cut: register and
// global-memory ops only, none on a tensor the model compares.
std::string outsideTheCut(const ir::Schedule& s, const ir::Block& code, const std::set<int>& compared,
                          const std::string& where) {
  if (auto r = registersAndGlobalOnly(s, code); !r.empty()) return fmt::format("{}: {}", where, r);
  for (int t : globalTensors(code))
    if (compared.count(t))
      return fmt::format("{} touches the global tensor {}, which the CTA reads and writes", where, s.params[t].name);
  return "";
}

}  // namespace restart_head

RestartReduction headedRestartForm(const ir::Schedule& s) {
  using namespace restart_head;
  const std::set<int> compared = readAndWrittenTensors(s);
  RestartReduction out;
  out.text = s;
  bool any_head = false;
  for (ir::RoleBody& body : out.text.bodies) {
    const std::string role = restartRoleName(s, body.role);
    if (body.body.empty() || body.body.front().kind != Stmt::Kind::For)
      return refuse(fmt::format("{} runs something before its tile loop, or has none", role));
    const ir::Block tail(body.body.begin() + 1, body.body.end());
    if (auto r = outsideTheCut(s, tail, compared, role + "'s code after the tile loop"); !r.empty()) return refuse(r);
    out.tail |= !tail.empty();
    Stmt loop = body.body.front();
    size_t cut = 0;
    while (cut < loop.body.size() && !isSync(loop.body[cut])) ++cut;
    if (cut == loop.body.size()) return refuse(fmt::format("{}'s tile has no lm.sync at its top level (no cut)", role));
    const ir::Block head(loop.body.begin(), loop.body.begin() + cut);
    if (auto r = outsideTheCut(s, head, compared, role + "'s tile before its first lm.sync"); !r.empty()) return refuse(r);
    any_head |= !head.empty();
    // S ; P ; B: the cut first, P after it (P's ops keep their order)
    ir::Block rotated{loop.body[cut]};
    rotated.insert(rotated.end(), head.begin(), head.end());
    rotated.insert(rotated.end(), loop.body.begin() + cut + 1, loop.body.end());
    loop.body = std::move(rotated);
    body.body = ir::Block{std::move(loop)};
  }
  if (!any_head && !out.tail) return refuse("no role runs code before its cut or after its tile loop");
  out.form = restartForm(out.text);
  if (!out.form.ok) return refuse("with the code before the cut after it: " + out.form.reason);
  out.ok = true;
  return out;
}

}  // namespace cake::encoder::trip
