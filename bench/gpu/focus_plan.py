#!/usr/bin/env python3
"""A short plan for one device call that compares new split-K pairs with the
last suite's winners in the same run (helper `reduce`, docs/benchmarks.md
"A split-K reduce with plain global loads").

Usage: focus_plan.py SUITE.jsonl PLAN.txt CARRY [PAIR_SUBSTR]

From the last call's harness records (SUITE.jsonl, or its raw CUPTI records
RECORDS.jsonl[.gz] when the suite file did not come back: records_suite.py's
ratios) and its plan (PLAN.txt),
prints two kinds of lines:
  * the plan line of the best kernel per shape (all 24 shapes, so the call's
    best-per-shape geometric mean is comparable), with the library folder
    rewritten to CARRY;
  * for every decode shape (M <= 128), the plan line of the best split-K pair
    whose label contains PAIR_SUBSTR (default "_pdl+sm90_splitk_reduce_bn32_pdl":
    the PDL pairs with the 32-column reduce), and a line
    "twin PARTIAL S M N K" naming it, for build_splitk.sh to bind the new
    reduce's twin of that pair with `cake run --split-k S --dry-run`.
A line is printed once.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def key(r):
    """The plan line's identity of a record: kernel library, reduce library, split, shape."""
    lib = r["kernel_lib"]
    red = None
    if r.get("split"):
        red = os.path.join(os.path.dirname(lib), r["kernel"].split("+")[1] + ".so")
    return (lib, red, r.get("split"), r["M"], r["N"], r["K"])


def line_key(line):
    t = line.split()
    opt = {t[i]: t[i + 1] for i in range(1, len(t) - 1) if t[i].startswith("--")}
    split = int(opt["--split"]) if "--split" in opt else None
    return (t[0], opt.get("--reduce"), split, int(opt["--m"]), int(opt["--n"]), int(opt["--k"]))


def record_rows(records, lines):
    """Suite rows from the harness's raw CUPTI records (records_suite.py's ratios), for a call
    whose suite.jsonl did not come back: each tag matched to its plan line (the kernel's label
    ends with the library's name; the bench schedules' labels carry a "gemm_" prefix)."""
    import records_suite
    rows = []
    for tag, (ratio, *_rest) in records_suite.ratios(records).items():
        names, shp, *s = tag.split()
        m, n, k = map(int, shp.split("x"))
        split = int(s[0][1:]) if s else None
        kern = names.split("+")
        for lk in lines:
            base = os.path.basename(lk[0])[:-3]
            if lk[2:] == (split, m, n, k) and kern[0].endswith(base) and \
                    (lk[1] is None) == (len(kern) == 1) and (lk[1] is None or lk[1].endswith(kern[1] + ".so")):
                rows.append({"kernel_lib": lk[0], "kernel": names, "split": split, "M": m, "N": n, "K": k,
                             "ratio": ratio, "result": "ok"})
                break
        else:
            sys.exit(f"focus_plan: no plan line for the record {tag}")
    return rows


def main(suite, plan, carry, pair_substr="_pdl+sm90_splitk_reduce_bn32_pdl"):
    lines = {line_key(l): l.strip() for l in open(plan) if l.strip()}
    if "records.jsonl" in suite:
        rows = record_rows(suite, lines)
    else:
        rows = [json.loads(l) for l in open(suite) if l.startswith("{")]
    rows = [r for r in rows if r.get("result") == "ok" and r.get("ratio")]
    old = os.path.dirname(lines and next(iter(lines))[0] or "")
    shapes = {}
    for r in rows:
        shapes.setdefault((r["M"], r["N"], r["K"]), []).append(r)
    out = []
    for shp, rs in shapes.items():
        picks = [max(rs, key=lambda r: r["ratio"])]
        pairs = [r for r in rs if pair_substr in r["kernel"]]
        if shp[0] <= 128 and pairs:
            picks.append(max(pairs, key=lambda r: r["ratio"]))
        for r in picks:
            k = key(r)
            if k not in lines:
                sys.exit(f"focus_plan: no plan line for {k}")
            text = lines[k].replace(old + "/", carry + "/")
            if text not in out:
                out.append(text)
        if len(picks) > 1:
            p = picks[1]
            twin = f"twin {p['kernel'].split('+')[0]} {p['split']} {shp[0]} {shp[1]} {shp[2]}"
            if twin not in out:
                out.append(twin)
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
