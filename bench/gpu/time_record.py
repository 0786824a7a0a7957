"""One timed harness run as a JSON line (stdout) and a readable line (stderr).

Usage: python3 time_record.py R.json KERNEL SIZE >> time.jsonl
R.json is the harness's last output line; a run that printed nothing becomes
{"result": "no_output"}. Shared by the device scripts of bench/gpu/ that time
kernels one by one (device_sm80pp.sh, device_sm80b.sh).
"""
import json
import sys

try:
    r = json.load(open(sys.argv[1]))
except Exception:
    r = {"result": "no_output"}
r["kernel"], r["size"] = sys.argv[2], int(sys.argv[3])
print(json.dumps(r))
m = r.get("min_ms")
bm = r.get("baseline_min_ms")
sys.stderr.write("%-34s %5d^3 %-6s ratio %.3f (min-to-min %.3f)  kernel %.4f ms  cublas %.4f ms  rel_err %s\n" % (
    r["kernel"], r["size"], r.get("result"), r.get("ratio") or 0, (bm / m) if m and bm else 0,
    r.get("median_ms") or 0, r.get("baseline_ms") or 0, r.get("rel_error")))
