// cake-runner: run a kernel library or CUDA source in the harness under the
// watchdog and print the evidence record (one JSON line). A development tool
// for the runner; `cake run` is the user-facing entry point.
//
//   cake-runner (--so K.so | --cu K.cu [--target sm_90a]) --shape M=..,N=..,K=..
//               [--harness PATH] [--timeout S] [--runs N] [--no-baseline] [--seed S]
#include <cstdio>
#include <cstring>
#include <string>

#include "runner/runner.h"

using namespace cake;

int main(int argc, char** argv) {
  std::string so, cu, shape_text = "M=4096,N=4096,K=4096", target = "sm_90a";
  runner::Options opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--so") so = next();
    else if (a == "--cu") cu = next();
    else if (a == "--target") target = next();
    else if (a == "--shape") shape_text = next();
    else if (a == "--harness") opts.harness = next();
    else if (a == "--timeout") opts.run_timeout_s = atof(next().c_str());
    else if (a == "--runs") opts.runs = atoi(next().c_str());
    else if (a == "--no-baseline") opts.baseline = false;
    else if (a == "--no-time") opts.time = false;
    else if (a == "--seed") opts.seed = strtoull(next().c_str(), nullptr, 0);
    else if (a == "--work-dir") opts.work_dir = next();
    else {
      fprintf(stderr, "usage: cake-runner (--so K.so | --cu K.cu [--target T]) --shape M=..,N=..,K=.. "
                      "[--harness P] [--timeout S] [--runs N] [--no-baseline] [--no-time] [--seed S]\n");
      return 2;
    }
  }
  std::string err;
  auto shape = runner::parseShape(shape_text, &err);
  if (!shape) {
    fprintf(stderr, "cake-runner: %s\n", err.c_str());
    return 2;
  }
  runner::Result r;
  if (!so.empty()) {
    r = runner::runLibrary(so, *shape, opts);
  } else if (!cu.empty()) {
    ir::Target t = target == "sm_80" ? ir::Target::SM80
                   : target == "sm_100a" ? ir::Target::SM100a
                                         : ir::Target::SM90a;
    std::string base = cu.substr(0, cu.rfind('.'));
    r = runner::compile(cu, t, base + ".so", opts);
    if (r.compiled) r = runner::runLibrary(base + ".so", *shape, opts);
  } else {
    fprintf(stderr, "cake-runner: give --so or --cu\n");
    return 2;
  }
  printf("%s\n", runner::toJson(r).dump().c_str());
  return r.result == "ok" ? 0 : 1;
}
