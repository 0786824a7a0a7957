#!/usr/bin/env python3
"""The runner every attack of bench/attacks/ shares: it writes the generated
schedules, runs `cake check` on each and says which broken one got through.

A generator labels each schedule "bad" (broken: `cake check` must exit 1, or
2 for unknown, never 0, and never say *proved*) or "good" (a correct twin: an
exit 1 is a false alarm; unknown is allowed). Two layouts exist:

* an index (sessions 39 to 48, cover42, gap43): OUT/<base>/<name>.cake with a
  `# expect:` header, listed with its label in OUT/index.tsv. `run_index`
  checks each, writes OUT/check.tsv (path, label, exit status, sync verdict,
  first rule, user CPU seconds) and prints the counts per (label, exit,
  proved). This file is its command line:

      bench/attacks/attack_runner.py OUT [CAKE=build/cli/cake] [JOBS=1] [-- FLAGS]

  (FLAGS go to `cake check`, e.g. `-- --timeout 300` as sound44's --run).
* labelled names (session 49 on): OUT/<base>/<label>_<name>.cake from a list
  of (base, maker) whose maker returns (label, name, text). `main_bases`
  writes them and, with --run, checks each (and `cake check
  --require-proof` where the script asks), one line per schedule.

Either runner marks a broken schedule that exits 0 or is *proved* "HOLE"
and a correct one that exits 1 "good reported". In the labelled layout a
broken schedule may name the gates it is aimed at in a header line
`# aimed: tma.box-extent, ...`: one of them on the "proved for all
parameter values" line is a HOLE too, whatever the exit status (sound52). The environment variables
ONLY (comma-separated bases, or a part of the path) and MATCH (a regular
expression over base/name) narrow what runs.
"""
import concurrent.futures
import os
import re
import resource
import subprocess
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAKE = os.path.join(ROOT, "build/cli/cake")


# ---------------------------------------------------------------- sources
def read(path):
    """The text of a file under the repository root."""
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def corpus(path):
    return read(os.path.join("corpus", path))


def strip_header(text):
    """A schedule without its `#` lines (a corpus file's expect header)."""
    return "\n".join(l for l in text.split("\n") if not l.startswith("#")) + "\n"


def rep(t, a, b):
    """`t` with its first `a` replaced by `b` (`a` must occur)."""
    assert a in t, a
    return t.replace(a, b, 1)


def raw_string(path, name):
    """The C++ raw string literal `name` of a test source (any delimiter),
    without its leading newlines: a form the tests and an attack share."""
    text = read(path)
    m = re.search(re.escape(name) + r'\s*=\s*R"(\w*)\(', text)
    assert m, name
    delim = ")" + m.group(1) + '"'
    start = m.end()
    return text[start:text.index(delim, start)].lstrip("\n")


# ---------------------------------------------------------------- cake check
@dataclass
class Verdict:
    rc: int  # exit status (124: the runner's timeout)
    sync: str  # the text after the first ": sync: "
    rule: str  # the first rule with a counterexample, else the first "rule [" named
    cpu: float  # user CPU seconds of the run
    last: str  # the output's last line (160 characters)
    result: str = ""  # the word after "result: " (checked, proved, ...), where cake prints one
    gates: tuple = ()  # the rules of the "proved for all parameter values:" line

    @property
    def proved(self):
        return self.sync.startswith("proved")


def check(cake, path, *flags, timeout=None):
    """`cake check FLAGS PATH`, read."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    try:
        res = subprocess.run([cake, "check", *flags, path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Verdict(124, "", "", resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, "timeout")
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    text = res.stdout + res.stderr
    sync = next((l.split(": sync: ", 1)[1] for l in text.splitlines() if ": sync: " in l), "")
    rule = re.search(r"([a-z]+\.[a-z-]+): counterexample", text) or re.search(r"([a-z]+\.[a-z-]+) \[", text)
    result = re.search(r"result: (\w+)", text)
    lines = text.strip().splitlines()
    gates = tuple(g for l in lines if ": proved for all parameter values: " in l
                  for g in l.split(": proved for all parameter values: ", 1)[1].split(", "))
    return Verdict(res.returncode, sync, rule.group(1) if rule else "", cpu, (lines[-1] if lines else "")[:160],
                   result.group(1) if result else "", gates)


def aimed_rules(path):
    """The rules a broken schedule's `# aimed: a, b` header names: gates
    that must not be said *proved* on it (sound52)."""
    with open(path) as f:
        return tuple(r.strip() for l in f if l.startswith("# aimed:") for r in l[len("# aimed:"):].split(","))


def is_hole(label, verdict, proof=None, aimed=()):
    """A broken schedule that exits 0, is said *proved*, or whose
    `--require-proof` run exits 0. One aimed at gates (`# aimed:`, a layout
    bug whose synchronization is correct) is said proved where one of those
    gates is (or sync, where it names "sync")."""
    if label != "bad":
        return False
    proved = any(r in verdict.gates or (r == "sync" and verdict.proved) for r in aimed) if aimed else verdict.proved
    return verdict.rc == 0 or proved or (proof is not None and proof.rc == 0)


def false_alarm(label, verdict):
    return label == "good" and verdict.rc == 1


def selected(base, name):
    """Whether ONLY and MATCH let base/name run."""
    only = os.environ.get("ONLY", "")
    if only and not any(o == base or o in f"{base}/{name}" for o in only.split(",")):
        return False
    return re.search(os.environ.get("MATCH", ""), f"{base}/{name}") is not None


# ---------------------------------------------------------------- the index layout
def write_index(out, index):
    """OUT/index.tsv: each schedule's path and label."""
    with open(os.path.join(out, "index.tsv"), "w") as f:
        for p, e in index:
            f.write(f"{p}\t{e}\n")
    print(f"{len(index)} mutants ({sum(e == 'bad' for _, e in index)} broken) in {out}")


def run_index(out, cake=CAKE, jobs=1, flags=()):
    """`cake check` on each schedule of OUT/index.tsv, JOBS at a time, a
    line each to OUT/check.tsv in the index's order as it ends, then the
    counts. Returns the number of holes."""
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "index.tsv"))]
    rows = [r for r in rows if selected(*os.path.split(os.path.splitext(r[0])[0]))]
    counts, holes = {}, 0
    with open(os.path.join(out, "check.tsv"), "w") as f, concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        verdicts = ex.map(lambda r: check(cake, os.path.join(out, r[0]), *flags), rows)
        for (path, label), v in zip(rows, verdicts):
            f.write(f"{path}\t{label}\t{v.rc}\t{v.sync}\t{v.rule}\t{v.cpu:.2f}\n")
            f.flush()
            key = (label, v.rc, "proved" if v.proved else "")
            counts[key] = counts.get(key, 0) + 1
            if is_hole(label, v):
                holes += 1
                print("HOLE?", path, v.rc, v.sync[:300], flush=True)
            elif false_alarm(label, v):
                print("good reported:", path, v.rule, v.sync[:200], flush=True)
    for k in sorted(counts):
        print(counts[k], *k)
    return holes


def main_index(jobs=1, flags=()):
    """The command line: OUT [CAKE] [JOBS] [-- FLAGS]."""
    args = sys.argv[1:]
    if "--" in args:
        args, flags = args[:args.index("--")], tuple(args[args.index("--") + 1:])
    run_index(args[0], args[1] if len(args) > 1 else CAKE, int(args[2]) if len(args) > 2 else jobs, flags)


def run_index_if_asked(out, flags=("--timeout", "300")):
    """A generator's `OUT --run [CAKE]`: its index checked one at a time."""
    if "--run" in sys.argv:
        args = [a for a in sys.argv[1:] if not a.startswith("--")]
        run_index(out, args[1] if len(args) > 1 else CAKE, 1, flags)


# ---------------------------------------------------------------- the labelled-name layout
def write_bases(out, bases):
    """Each base's schedules as OUT/<base>/<label>_<name>.cake; returns the
    (label, path) of those ONLY and MATCH select."""
    files = []
    for base, make in bases:
        os.makedirs(os.path.join(out, base), exist_ok=True)
        for label, name, text in make():
            path = os.path.join(out, base, f"{label}_{name}.cake")
            with open(path, "w") as f:
                f.write(text)
            if selected(base, name):
                files.append((label, path))
    print(f"{len(files)} schedules written under {out}")
    return files


def run_files(files, cake=CAKE, require_proof=False, timeout=None, flags=()):
    """`cake check FLAGS` on each (label, path), and `--require-proof` too
    where asked, a line each. Returns the number of holes."""
    holes = 0
    for label, path in files:
        v = check(cake, path, *flags, timeout=timeout)
        proof = check(cake, path, *flags, "--require-proof", timeout=timeout) if require_proof else None
        aimed = aimed_rules(path)
        hole = is_hole(label, v, proof, aimed)
        holes += hole
        mark = "  HOLE" if hole else "  good reported" if false_alarm(label, v) else ""
        mark += "".join(f"  [{r}: {'PROVED' if r in v.gates else 'not proved'}]" for r in aimed)
        if proof is None:
            print(f"{v.rc} {label} {path}{mark}", flush=True)
        else:
            print(f"check {v.rc} proof {proof.rc} {label} {path}{mark}\n    {v.last}\n    {proof.last}", flush=True)
    print(f"{holes} broken schedules exit 0 or proved")
    return holes


def main_bases(bases, require_proof=False, timeout=None, flags=()):
    """A generator's command line: OUT [--run [CAKE]]. Returns the number
    of holes (0 without --run)."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    files = write_bases(args[0], bases)
    if "--run" in sys.argv:
        return run_files(files, args[1] if len(args) > 1 else CAKE, require_proof, timeout, flags)
    return 0


if __name__ == "__main__":
    main_index()
