#!/bin/bash
# Session 54 run 3: the prep's solve with one (form 1) or two (form 2) fewer dependent dot levels
# (CHUNKED_PREP_SOLVE_FORM) against today's (form 0), A/B, two rounds, our kernel alone.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02,410794d4,a9540651,5d3fc66a,f4926229,c358edcd,4b6143dd,e286a4f4,352c9ace,54856fec,43bf9699,4b94d568,e92dafeb,5a91aa02
F1=CHUNKED_PREP_SOLVE_FORM=1
F2=CHUNKED_PREP_SOLVE_FORM=2
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$F1;$F2;default;$F1;$F2" 2>&1 | grep -v "host .*compiled" > $OUT/r/s54-run3.txt
tail -14 $OUT/r/s54-run3.txt
