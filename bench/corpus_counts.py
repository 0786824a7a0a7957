#!/usr/bin/env python3
"""Prints docs/corpus.md's two count tables (files per family, files per
expected rule) for the files under corpus/ except the generated mutants/.

A file is known-bad when it has an `# expect:` other than `pass`, an
`# expect-error:` or an `# expect-any:`, and counts as pass otherwise; its
target is the first `target=` (or `# target:` line). A file that expects
several rules counts once for each in the second table.

Usage: python3 bench/corpus_counts.py [CORPUS_DIR]
"""
import collections
import os
import re
import sys

FAMILIES = ["basics", "gemm", "attention", "kmeans", "knn", "normalization", "reduction", "copy", "moe",
            "splitk", "conv", "cluster", "layout", "bugs", "gates"]
TARGETS = ["sm_80", "sm_90a", "sm_100a"]


def read(path):
    text = open(path).read()
    expects = re.findall(r"^# expect(?:-error|-any)?:\s*(.*)$", text, re.M)
    bad = bool(re.search(r"^# expect-(?:error|any):", text, re.M)) or any(e.strip() != "pass" for e in expects)
    rules = [r for line in re.findall(r"^# expect:\s*(.*)$", text, re.M) for r in line.split() if r != "pass"]
    m = re.search(r'target="([^"]+)"|^# target:\s*(\S+)', text, re.M)
    target = (m.group(1) or m.group(2)) if m else None
    return bad, rules, target


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "corpus"
    fam = collections.OrderedDict((f, collections.Counter()) for f in FAMILIES)
    per_rule = collections.Counter()
    for dirpath, _, files in os.walk(root):
        rel = os.path.relpath(dirpath, root).split(os.sep)
        if rel[0] == "mutants" or rel[0] not in fam:
            continue
        for name in files:
            if not name.endswith(".cake"):
                continue
            bad, rules, target = read(os.path.join(dirpath, name))
            c = fam[rel[0]]
            c["files"] += 1
            c["known-bad" if bad else "pass"] += 1
            if target in TARGETS:
                c[target] += 1
            per_rule.update(set(rules))
    cols = ["files", "pass", "known-bad"] + TARGETS
    print("| family | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    total = collections.Counter()
    for f, c in fam.items():
        total.update(c)
        print(f"| {f} | " + " | ".join(str(c[k]) for k in cols) + " |")
    print("| **total** | " + " | ".join(str(total[k]) for k in cols) + " |")
    print()
    print("| expected rule | files |")
    print("|---|---|")
    for r in sorted(per_rule):
        print(f"| `{r}` | {per_rule[r]} |")


if __name__ == "__main__":
    main()
