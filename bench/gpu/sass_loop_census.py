#!/usr/bin/env python3
# Opcode census of the k-block loop in cuobjdump --dump-sass output: the smallest range
# [branch target, backward branch] that holds an HMMA (usage: sass_loop_census.py sass.txt).
import re,sys,collections
lines=open(sys.argv[1]).read().splitlines()
ins=[]
for l in lines:
    m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
    if m: ins.append((int(m.group(1),16),m.group(2).strip()))
# backward branches whose range contains HMMA
best=None
for i,(a,t) in enumerate(ins):
    m=re.search(r'BRA\s+(?:`\(\.L_x_\d+\)|)?.*?0x([0-9a-f]+)',t)
    if 'BRA' in t:
        m=re.search(r'0x([0-9a-f]+)',t)
        if not m: continue
        tgt=int(m.group(1),16)
        if tgt<a:
            body=[x for x in ins if tgt<=x[0]<=a]
            h=sum('HMMA' in x[1] for x in body)
            if h and (best is None or len(body)<len(best)): best=body
body=best
ops=collections.Counter()
for a,t in body:
    t=re.sub(r'^@!?U?P\w+\s+','',t)
    ops[t.split()[0]]+=1
print(sys.argv[1], 'loop instrs',len(body),'from %x to %x'%(body[0][0],body[-1][0]))
print(' '.join(f'{k}:{v}' for k,v in ops.most_common()))
