#!/bin/bash
# Session 63, run 3: three slots for two or three sequences of 65-192 tokens (the candidate default) against the old
# rule (WARP_ROLES_MULTI_SEQ_DEPTH=0) and with the cap at 432; three rounds; oracle cases.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_MULTI_SEQ_DEPTH=0;WARP_ROLES_MULTI_SEQ_DEPTH_MAX_TOKENS=432"
W=ea27be17,cd979341,3a77dfec,078a41ea,f3d30cb9,19c6ab20,1b441950,35ea9bbe,fd072ba6,33a38713,25d9c14d,ba95d412,d2b5a221,bfd8f7b6,3215fe5f,len150-150,ba08a83e
timeout 580 python benchmarks/gpu_check.py --out $OUT/run3 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R;$R" > $OUT/run3.txt 2>&1
echo "rc $?" >> $OUT/run3.txt
grep "worst err\|^workloads\|FAIL\|rc " $OUT/run3.txt | cut -c1-330
