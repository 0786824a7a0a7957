// runner/: shapes, the watchdog, nvcc on lowered code, and (with a GPU)
// end-to-end runs. Tests that need nvcc or a GPU skip cleanly without them.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <string>

#include "ir/frontend.h"
#include "lowering/lower.h"
#include "runner/process.h"
#include "runner/runner.h"

using namespace cake;

namespace {

std::string sourceDir() {
  if (const char* e = getenv("CAKE_SOURCE_DIR")) return e;
  return CAKE_SOURCE_DIR;
}

bool haveNvcc() {
  const std::string nvcc = runner::nvccPath({});
  if (nvcc.find('/') != std::string::npos) return access(nvcc.c_str(), X_OK) == 0;
  return system("command -v nvcc >/dev/null 2>&1") == 0;
}

ir::Schedule loadSchedule(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile(sourceDir() + "/" + rel, err);
  EXPECT_TRUE(file) << err;
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(file, {}, sink);
  EXPECT_TRUE(m && !m->schedules.empty());
  return m && !m->schedules.empty() ? m->schedules[0] : ir::Schedule{};
}

std::filesystem::path tempDir(const std::string& tag) {
  auto d = std::filesystem::temp_directory_path() / ("cake-runner-test-" + tag + "-" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace

TEST(RunnerShape, Parses) {
  auto s = runner::parseShape("M=4096,N=2048,K=512");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->M, 4096);
  EXPECT_EQ(s->N, 2048);
  EXPECT_EQ(s->K, 512);
  s = runner::parseShape("K=64 M=128 N=256");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->M, 128);
  EXPECT_EQ(s->K, 64);
  s = runner::parseShape("128x256x64");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->N, 256);
}

TEST(RunnerShape, Rejects) {
  std::string err;
  EXPECT_FALSE(runner::parseShape("M=1,N=2", &err));
  EXPECT_FALSE(err.empty());
  EXPECT_FALSE(runner::parseShape("M=1,N=2,K=-3"));
  EXPECT_FALSE(runner::parseShape("M=1,N=2,Q=3"));
  EXPECT_FALSE(runner::parseShape("M=x,N=2,K=3"));
  EXPECT_FALSE(runner::parseShape(""));
}

TEST(RunnerProcess, CapturesOutputAndStatus) {
  auto r = runner::runProcess({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(RunnerProcess, MissingProgram) {
  auto r = runner::runProcess({"/nonexistent/cake-no-such-program"}, 10);
  EXPECT_FALSE(r.started);
  EXPECT_FALSE(r.error.empty());
}

TEST(RunnerProcess, EnvironmentIsPassed) {
  auto r = runner::runProcess({"sh", "-c", "echo $CAKE_TEST_VAR"}, 10, {{"CAKE_TEST_VAR", "cake42"}});
  EXPECT_EQ(r.out, "cake42\n");
}

// The caller's address-space cap (cake's --memory-limit) does not reach the
// programs it runs: under it the harness could not create a CUDA context.
TEST(RunnerProcess, ChildIsNotBoundByTheCallersMemoryCap) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "sanitizer builds reserve terabytes of address space: no cap";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "sanitizer builds reserve terabytes of address space: no cap";
#endif
#endif
  rlimit before;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &before), 0);
  rlimit capped = before;
  capped.rlim_cur = rlim_t{64} << 30;   // 64 GiB: room for this test process, far under "unlimited"
  if (before.rlim_max != RLIM_INFINITY && capped.rlim_cur >= before.rlim_max) GTEST_SKIP() << "hard limit too low";
  ASSERT_EQ(setrlimit(RLIMIT_AS, &capped), 0);
  auto r = runner::runProcess({"sh", "-c", "ulimit -v"}, 10);
  setrlimit(RLIMIT_AS, &before);
  ASSERT_TRUE(r.started) << r.error;
  const std::string want = before.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(before.rlim_max / 1024);
  EXPECT_EQ(r.out, want + "\n");
  EXPECT_NE(r.out, std::to_string(capped.rlim_cur / 1024) + "\n");
}

// A hang is killed at the deadline, with everything it started.
TEST(RunnerProcess, WatchdogKillsTheGroup) {
  const auto pidfile = tempDir("wd") / "grandchild.pid";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = runner::runProcess({"sh", "-c", "sleep 60 & echo $! > " + pidfile.string() + "; sleep 60"}, 1.0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_LT(s, 10.0);
  std::ifstream f(pidfile);
  pid_t grandchild = 0;
  f >> grandchild;
  ASSERT_GT(grandchild, 0);
  // The background sleep was in the same process group: it must be gone, or a zombie waiting for its new
  // parent to reap it. SIGKILL is delivered asynchronously, so give the kernel a moment to finish it off;
  // a survivor is still alive after 5 s.
  auto grandchildAlive = [grandchild] {
    if (kill(grandchild, 0) != 0) return false;
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string pid, comm, state;
    stat >> pid >> comm >> state;
    return !(state == "Z" || state == "X" || state.empty());
  };
  bool alive = grandchildAlive();
  for (int i = 0; alive && i < 500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    alive = grandchildAlive();
  }
  EXPECT_FALSE(alive);
  std::filesystem::remove_all(pidfile.parent_path());
}

TEST(RunnerJson, RecordFields) {
  runner::Result r;
  r.result = "hang";
  r.verified = true;
  r.compiled = true;
  r.shape = {128, 256, 64};
  auto j = runner::toJson(r);
  EXPECT_EQ(j["result"], "hang");
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["compiled"], true);
  EXPECT_EQ(j["correct"], false);
  EXPECT_TRUE(j["median_ms"].is_null());
  EXPECT_TRUE(j["ratio"].is_null());
  EXPECT_EQ(j["shape"]["N"], 256);
  r.verified.reset();
  EXPECT_TRUE(runner::toJson(r)["verified"].is_null());
}

TEST(RunnerArch, Flags) {
  EXPECT_EQ(runner::archFlags(ir::Target::SM90a), std::vector<std::string>{"-gencode=arch=compute_90a,code=sm_90a"});
  auto f80 = runner::archFlags(ir::Target::SM80);
  ASSERT_EQ(f80.size(), 2u);  // sm_80 machine code, and sm_90 code from compute_80 so it runs on Hopper
  EXPECT_EQ(f80[1], "-gencode=arch=compute_80,code=sm_90");
}

ir::Schedule compileSchedule(const std::string& text) {
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("inline.cake", text), {}, sink);
  EXPECT_TRUE(m && !m->schedules.empty());
  return m && !m->schedules.empty() ? m->schedules[0] : ir::Schedule{};
}

TEST(RunnerRun, LowerErrorIsAResult) {
  // a TMA copy on sm_80 has no lowering
  auto s = compileSchedule(R"(
@cake.schedule(target="sm_80")
def tma80(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    pool = lm.smem(16384)
    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    w = lm.role(warps=[0])
    b = lm.barrier(count=1, prod=[w], cons=[w], init_count=1)
    with w:
        v.tma_load(A, coords=(0, 0), stage=0, barrier=b)
        lm.wait(b, stage=0)
)");
  auto r = runner::run(s, {128, 128, 64}, {});
  EXPECT_EQ(r.result, "lower_error");
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.detail.find("lower.unsupported"), std::string::npos);
}

TEST(RunnerRun, NonGemmHasNoOracle) {
  // attention lowers (cake lower) but the harness only has a GEMM oracle
  auto s = loadSchedule("corpus/attention/sm90_fa3_fwd.cake");
  auto r = runner::run(s, {128, 128, 64}, {});
  EXPECT_EQ(r.result, "no_oracle") << r.detail;
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.detail.find("no oracle"), std::string::npos);
}

TEST(RunnerRun, ShapeTheScheduleDoesNotComputeIsUnsupported) {
  // K is fixed at 192 in this schedule: K = 256 is decided before any GPU
  // work (no nvcc, no device needed) and is not blamed on the kernel.
  runner::Options o;
  o.nvcc = "/nonexistent/nvcc";
  o.harness = "/nonexistent/harness";
  runner::Result r = runner::run(loadSchedule("corpus/gemm/sm90_small_k_resident.cake"), {4096, 4096, 256}, o);
  EXPECT_EQ(r.result, "unsupported_shape") << r.detail;
  EXPECT_NE(r.detail.find("only [0, 192) of dimension 1"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.compiled);
}

TEST(RunnerBind, PlainGmemTensorWithThreeCoordinatesFoldsItsBatch) {
  // FA2 on sm_80 addresses its LM.gmem tensors with (head, row, col) and
  // Vt transposed, (head, d, s): three coordinates of the attention
  // contract's four dimensions [B, H, S, D], so B and H fold into one
  // [B*H, ...] dimension (as a 3-D TMA tensor's do). Before, the two batch
  // dimensions were dropped and the coordinates read one dimension off:
  // "tensor 'Vt' (VT): the schedule reads only [0, 64) of dimension 1".
  auto s = loadSchedule("corpus/attention/sm80_flash_attn2_fwd.cake");
  auto shape = workload::parseShape(workload::Kind::AttentionFwd, "S=4096,D=64,B=2,H=16");
  ASSERT_TRUE(shape);
  workload::BindResult r = workload::bind(s, *shape);
  ASSERT_EQ(r.result, "ok") << r.detail;
  const workload::Binding& b = *r.binding;
  for (size_t p = 0; p < s.params.size(); ++p) {
    if (b.tensor_name[p].empty()) continue;
    const bool vt = b.tensor_name[p] == "VT";
    EXPECT_EQ(b.tensor_dims[p], (std::vector<int64_t>{32, vt ? 64 : 4096, vt ? 4096 : 64})) << s.params[p].name;
  }
  EXPECT_EQ(b.launches, 1);
  EXPECT_EQ(b.grid[0], 4096 / 128);
  EXPECT_EQ(b.grid[1], 32);
}

// The kernel `cake run` compiles in CliBadInput.RunWithoutAGpuSaysSo (that
// test's nvcc is /bin/true): sm_90a code only, half the nvcc CPU of an
// sm_80 kernel (compiled with an sm_90 image too), which RunnerNvcc compiles.
TEST(RunnerRun, NoGpuIsAResult) {
  if (runner::gpuAvailable()) GTEST_SKIP() << "a GPU is present";
  if (!haveNvcc()) GTEST_SKIP() << "no nvcc";
  auto s = loadSchedule("corpus/gemm/sm90_basic_one_consumer.cake");
  runner::Options o;
  o.work_dir = tempDir("nogpu").string();
  auto r = runner::run(s, {256, 256, 256}, o);
  EXPECT_EQ(r.result, "no_gpu");
  EXPECT_TRUE(r.compiled) << r.detail;
  std::filesystem::remove_all(o.work_dir);
}

// nvcc accepts what the lowering emits (no GPU needed).
TEST(RunnerNvcc, LoweredCodeCompiles) {
  if (!haveNvcc()) GTEST_SKIP() << "no nvcc";
  const auto dir = tempDir("nvcc");
  for (const char* f : {"corpus/gemm/sm90_ws_4stage.cake", "corpus/gemm/sm80_cp_async_multistage.cake",
                        "corpus/gemm/sm100_tcgen05_ws.cake", "corpus/attention/sm90_fa3_fwd.cake",
                        "corpus/attention/sm90_fa3_persistent.cake"}) {
    auto s = loadSchedule(f);
    auto lr = lowering::lowerToCuda(s);
    ASSERT_TRUE(lr.ok);
    const std::string base = (dir / std::filesystem::path(f).stem()).string();
    std::ofstream(base + ".cu") << lr.source;
    auto c = runner::compile(base + ".cu", lr.target, base + ".so", {});
    EXPECT_TRUE(c.compiled) << f << ": " << c.detail;
    // ptxas must not have dropped setmaxnreg (C7508) or serialized the wgmma pipeline
    EXPECT_EQ(c.detail.find("C7508"), std::string::npos) << c.detail;
    EXPECT_EQ(c.detail.find("serialized"), std::string::npos) << c.detail;
    // nor inserted its own warpgroup.arrive before a wgmma (C7519: registers the wgmmas read defined between them)
    EXPECT_EQ(c.detail.find("C7519"), std::string::npos) << c.detail;
  }
  std::filesystem::remove_all(dir);
}

// ---- with a GPU (skipped elsewhere; CI has none)

TEST(RunnerGpu, LoweredGemmIsCorrect) {
  if (!runner::gpuAvailable()) GTEST_SKIP() << "no GPU";
  if (!haveNvcc()) GTEST_SKIP() << "no nvcc";
  auto s = loadSchedule("corpus/gemm/sm90_ws_4stage.cake");
  runner::Options o;
  o.runs = 10;
  o.run_timeout_s = 120;
  auto r = runner::run(s, {1024, 1024, 1024}, o);
  EXPECT_EQ(r.result, "ok") << r.detail;
  EXPECT_TRUE(r.correct);
  EXPECT_GT(r.median_ms, 0);
  EXPECT_GT(r.baseline_ms, 0);
}

TEST(RunnerGpu, DeadlockIsReportedAsHang) {
  if (!runner::gpuAvailable()) GTEST_SKIP() << "no GPU";
  if (!haveNvcc()) GTEST_SKIP() << "no nvcc";
  auto s = loadSchedule("bench/gpu/schedules/sm90_deadlock.cake");
  runner::Options o;
  o.run_timeout_s = 15;
  o.time = false;
  auto r = runner::run(s, {1024, 1024, 1024}, o);
  EXPECT_EQ(r.result, "hang") << r.detail;
  EXPECT_TRUE(r.compiled);
  EXPECT_FALSE(r.correct);
}
