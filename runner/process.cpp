#include "runner/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace cake::runner {

namespace {
double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
void drain(int fd, std::string& dst, bool& open) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      dst.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) open = false;
    if (n < 0 && errno == EINTR) continue;
    return;  // EAGAIN or EOF or error
  }
}
}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, double timeout_s,
                         const std::vector<std::pair<std::string, std::string>>& env) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "empty command";
    return r;
  }
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe(out_pipe) || pipe(err_pipe) || pipe(exec_pipe)) {
    r.error = std::string("pipe: ") + strerror(errno);
    return r;
  }
  fcntl(exec_pipe[1], F_SETFD, FD_CLOEXEC);
  const double t0 = now_s();
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + strerror(errno);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(exec_pipe[0]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    // `cake` caps its own address space (cli/main.cpp, --memory-limit); the
    // programs it runs (nvcc, the harness) are not bound by it: a CUDA
    // context reserves far more address space than the cap, and under it
    // cudaSetDevice fails with "out of memory".
    rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != as.rlim_max) {
      as.rlim_cur = as.rlim_max;
      setrlimit(RLIMIT_AS, &as);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    int e = errno;
    ssize_t ignored = write(exec_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_errno = 0;
  if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    close(exec_pipe[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    r.error = "exec " + argv[0] + ": " + strerror(exec_errno);
    return r;
  }
  close(exec_pipe[0]);
  r.started = true;
  fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  bool out_open = true, err_open = true, exited = false;
  int status = 0;
  const double deadline = t0 + timeout_s;
  while (!exited) {
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {out_pipe[0], POLLIN, 0};
    if (err_open) fds[n++] = {err_pipe[0], POLLIN, 0};
    const double left = deadline - now_s();
    if (left <= 0) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      exited = true;
      break;
    }
    const int ms = static_cast<int>(std::min(left, 0.05) * 1000) + 1;
    if (n > 0)
      poll(fds, n, ms);
    else
      usleep(ms * 1000);
    if (out_open) drain(out_pipe[0], r.out, out_open);
    if (err_open) drain(err_pipe[0], r.err, err_open);
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) exited = true;
  }
  // the child is gone; kill anything it left in its group, then read what is left
  kill(-pid, SIGKILL);
  if (out_open) drain(out_pipe[0], r.out, out_open);
  if (err_open) drain(err_pipe[0], r.err, err_open);
  close(out_pipe[0]);
  close(err_pipe[0]);
  r.wall_s = now_s() - t0;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  return r;
}

}  // namespace cake::runner
