#!/usr/bin/env python3
"""Print one file's verdict: exit code, the error-severity rules, and for exit 0 whether
--require-proof passes. Usage: verdict.py BIN FILE"""
import json, subprocess, sys
binary, path = sys.argv[1], sys.argv[2]
p = subprocess.run([binary, "check", "--format", "json", path], capture_output=True, text=True)
rules = set()
try:
    doc = json.loads(p.stdout)
    for f in doc["files"]:
        for x in f.get("findings", []):
            if x.get("severity") == "error": rules.add(x["rule"])
        for s in f.get("schedules", []):
            for x in s["findings"]:
                if x.get("severity") == "error": rules.add(x["rule"])
except Exception:
    rules.add("PARSE?" + p.stderr.strip().replace("\n", " ")[:200])
tag = ",".join(sorted(rules)) or "-"
if p.returncode == 0:
    q = subprocess.run([binary, "check", "--require-proof", path], capture_output=True, text=True)
    tag = "proved" if q.returncode == 0 else "checked-only"
print(p.returncode, tag)
