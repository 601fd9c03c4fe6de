#!/bin/bash
# Session 52, run 2: A/B of the split prep launch on 8 warps (maxnreg 128: two CTAs an SM, 16 warps; maxnreg 80:
# three, 24 warps, spilling) against the default (4 warps, three CTAs an SM at 168 registers, 12 warps).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02,410794d4,d49df0b2,e9e1e445,9a5d694b,26244fb4,a9540651,5d3fc66a,07aa7922,4b6143dd,7ba9d519,6f1ad833,a01a3f93,15856e8c,e286a4f4
V8="CHUNKED_SPLIT_PREP_WARPS=8,CHUNKED_SPLIT_PREP_MAXNREG=128,CHUNKED_SPLIT_WIDE_TRANSITION_PREP_MAXNREG=128,CHUNKED_SPLIT_TRANSITION_PREP_MAXNREG=128"
V8S="CHUNKED_SPLIT_PREP_WARPS=8,CHUNKED_SPLIT_PREP_MAXNREG=80,CHUNKED_SPLIT_WIDE_TRANSITION_PREP_MAXNREG=80,CHUNKED_SPLIT_TRANSITION_PREP_MAXNREG=80"
timeout 520 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;$V8;$V8S;default" 2>&1 | tee $OUT/r/s52-run2.txt | tail -60
