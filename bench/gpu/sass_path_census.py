#!/usr/bin/env python3
# The steady-state path through the sm_80 k-block loop in nvdisasm / cuobjdump SASS: from the head of the
# loop with the most HMMA (the target of its backward branch) to that branch, taking every unconditional
# branch, the interior test's branch (`@P BRA P, X`: the interior copy path) and no other conditional
# branch (the refill guard `k + 2 < k_tiles` holds, the loop continues). Prints the instructions on the
# path, per HMMA group (k-blocks = HMMA / 128 for a 64x64 warp tile with k-blocks of 64), and an opcode census.
# Usage: sass_path_census.py SASS [HMMA_PER_KBLOCK]   (SASS from `nvdisasm -c` or `cuobjdump -sass`)
import collections
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
per_kb = int(sys.argv[2]) if len(sys.argv) > 2 else 128
ins, labels = [], {}
for l in lines:
    m = re.match(r'^(\.L_x_\d+):', l)
    if m:
        labels[m.group(1)] = len(ins)
        continue
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', l)
    if m:
        ins.append((int(m.group(1), 16), m.group(2).strip()))
addr_index = {a: i for i, (a, _) in enumerate(ins)}


def target(t):
    m = re.search(r'`\((\.L_x_\d+)\)', t)
    if m:
        if m.group(1) not in labels:  # nvdisasm 11.8 (sass_local.sh) leaves out opcodes it does not know
            sys.exit(f'{sys.argv[1]}: branch target {m.group(1)} is not in the listing (a left-out instruction)')
        return labels[m.group(1)]
    m = re.search(r'BRA\s+(?:\S+,\s*)?0x([0-9a-f]+)', t)
    return addr_index.get(int(m.group(1), 16)) if m else None


best = None
for i, (a, t) in enumerate(ins):
    if re.search(r'\bBRA\b', t):
        j = target(t)
        if j is not None and j < i:
            h = sum('HMMA' in x[1] for x in ins[j:i + 1])
            if h and (best is None or h > best[2]):
                best = (j, i, h)
if not best:
    sys.exit('no loop with HMMA')
head, back, _ = best
path, i, seen = [], head, 0
while i != back and seen < 100000:
    seen += 1
    a, t = ins[i]
    path.append(t)
    if re.search(r'\bBRA\b', t):
        j = target(t)
        pred = re.match(r'^@!?U?P\w+\s', t)
        interior = re.search(r'BRA\s+!?U?P\w+,', t) is not None
        if not pred or interior:
            i = j
            continue
    i += 1
path.append(ins[back][1])
ops = collections.Counter(re.sub(r'^@!?U?P\w+\s+', '', t).split()[0] for t in path)
h = ops['HMMA.16816.F32.BF16'] + ops['HMMA.16816.F32']
kb = max(h / per_kb, 1)
print(f'{sys.argv[1]}: path {len(path)} instructions, {h} HMMA, {len(path) / kb:.1f} per k-block '
      f'({(len(path) - h) / kb:.1f} non-HMMA)')
print(' '.join(f'{k}:{v}' for k, v in ops.most_common()))
