#!/bin/bash
# Session 53 run 2: was 54856fec's +7.8% in run 1 session 52's owner search? A/B by a scratch knob.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=54856fec,e286a4f4,c358edcd,43bf9699,08d4f2c4,aaa378be,f4926229,6fbc155c,fd072ba6,1cf8e175,06f21bb1,a9540651
O="CHUNKED_PREP_OWNER_COUNT=False"
timeout -k 5 420 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;$O;default;$O" 2>&1 | grep -v "host .*compiled" | tee $OUT/r/s53-run2.txt | tail -8
