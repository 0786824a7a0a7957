#!/usr/bin/env python3
"""The Z3 engine's verdict labels of the corpus mutants (the output of
`cake_bench_sync_engines corpus/mutants --verdict`) against the labels the
corpus records (corpus/baseline.json, written by the explicit-state
simulator's oracle, `cake mutate`).

    bench/labels_vs_corpus.py LABELS.txt [corpus/baseline.json]

A mutant the corpus expects to pass must be benign in the Z3 labels (no
schedule of the file bad), and one the corpus expects to break only sync.,
data. or proxy. rules must be bad; mutants whose expectation names other
rules (layout., struct., ...) may be benign for synchronization. Prints the
counts per kind of expectation and every mismatch; exit status 1 on one.
"""
import collections
import json
import re
import sys

SYNC = ("sync", "data", "proxy")


def labels(path):
    out = collections.defaultdict(list)  # file -> ["bad" | "benign" | "undecided" | "disagree"]
    for line in open(path):
        m = re.match(r"^(ok|undecided|DISAGREE|INTERNAL) (corpus/mutants/\S+?\.cake):\S+?:? (.*)", line)
        if not m:
            continue
        kind, f, rest = m.groups()
        if kind == "ok":
            out[f].append("benign" if rest.strip() == "benign" else "bad")
        else:
            out[f].append("undecided" if kind == "undecided" else "disagree")
    return out


def verdict(ls):
    if "disagree" in ls:
        return "disagree"
    if "bad" in ls:
        return "bad"
    return "undecided" if "undecided" in ls else "benign"


def main():
    lab = labels(sys.argv[1])
    base = json.load(open(sys.argv[2] if len(sys.argv) > 2 else "corpus/baseline.json"))["cases"]
    counts, bad = collections.Counter(), []
    for f, case in sorted(base.items()):
        if not f.startswith("corpus/mutants/"):
            continue
        expect = case["expect"]
        rules = set(re.findall(r"[a-z]+\.[a-z-]+", expect))
        sync = {r for r in rules if r.split(".")[0] in SYNC}
        kind = "pass" if expect == "pass" else "sync-only" if sync == rules else "mixed" if sync else "other"
        v = verdict(lab[f]) if f in lab else "not labelled"
        counts[(kind, v)] += 1
        if (kind == "pass" and v == "bad") or (kind == "sync-only" and v == "benign") or v == "disagree":
            bad.append(f"{f}: corpus expects {expect}, Z3 label {v}")
    for (kind, v), n in sorted(counts.items()):
        print(f"expect {kind:9} -> z3 {v:12} {n}")
    for line in bad:
        print(line)
    print(f"{len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
