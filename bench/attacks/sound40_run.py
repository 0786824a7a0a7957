#!/usr/bin/env python3
"""Runs `cake check` on every mutant of OUT/index.tsv (bench/attacks/
sound40_mutants.py), two at a time, one line each to OUT/check.tsv (path,
label, exit status, verdict line, first rule, user CPU), then the counts.
A broken mutant that exits 0 is a hole unless its verdict names what the
values did not reach ("do not reach"); one said *proved* always is.

    bench/attacks/sound40_run.py OUT [CAKE=build/cli/cake] [JOBS=2]
"""
import concurrent.futures
import os
import re
import resource
import subprocess
import sys


def check(cake, out, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    res = subprocess.run([cake, "check", os.path.join(out, path)], capture_output=True, text=True)
    text = res.stdout + res.stderr
    sync = next((l.split(": sync: ", 1)[1] for l in text.splitlines() if ": sync: " in l), "")
    rule = re.search(r"([a-z]+\.[a-z-]+): counterexample", text)
    return res.returncode, sync, rule.group(1) if rule else "", resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main():
    out = sys.argv[1]
    cake = sys.argv[2] if len(sys.argv) > 2 else "build/cli/cake"
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "index.tsv"))]
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        results = list(ex.map(lambda r: check(cake, out, r[0]), rows))
    counts = {}
    with open(os.path.join(out, "check.tsv"), "w") as f:
        for (path, label), (rc, sync, rule, cpu) in zip(rows, results):
            f.write(f"{path}\t{label}\t{rc}\t{sync}\t{rule}\t{cpu:.2f}\n")
            proved = sync.startswith("proved")
            key = (label, rc, "proved" if proved else "")
            counts[key] = counts.get(key, 0) + 1
            if label == "bad" and (rc == 0 and "do not reach" not in sync or proved):
                print("HOLE?", path, rc, sync[:300])
            elif label == "bad" and rc == 0:
                print("named:", path, sync[:300])
            elif label == "good" and rc == 1:
                print("good reported:", path, rule, sync[:200])
    for k in sorted(counts):
        print(counts[k], *k)


if __name__ == "__main__":
    main()
