# Emulation used in call 1 (helper sm80b, session 15): the k-block loop of a lowered sm_80 .cu (the
# call-1 lowering, rotating slot variable cake_rs_k_3) unrolled by 3 with constant slots, then the plain
# loop for the rest. Usage: python3 unroll3_emul.py IN.cu OUT.cu
import re,sys
src=open(sys.argv[1]).read().split('\n')
i=next(j for j,l in enumerate(src) if re.match(r'\s*for \(int k = 0, cake_rs_k_3 = 0; k < ',l))
hdr=src[i]; m=re.search(r'k < (.*?); \+\+k',hdr); KT=m.group(1)
depth=0; end=None
for j in range(i,len(src)):
    depth+=src[j].count('{')-src[j].count('}')
    if depth==0: end=j; break
body='\n'.join(src[i+1:end])
out=['    {','    int cake_kb = 0;',f'    for (; cake_kb + 3 <= {KT}; cake_kb += 3) {{']
for u in range(3):
    out+=[f'    {{ const int k = cake_kb + {u}; const int cake_rs_k_3 = {u};',body,'    }']
out+=['    }',f'    for (int cake_r = 0; cake_kb < {KT}; ++cake_kb, ++cake_r) {{ const int k = cake_kb; const int cake_rs_k_3 = cake_r;',body,'    }','    }']
open(sys.argv[2],'w').write('\n'.join(src[:i]+out+src[end+1:]))
