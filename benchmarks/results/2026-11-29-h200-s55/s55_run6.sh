#!/bin/bash
# Session 55 run 6 (diagnostic): what costs the followers' form on inputs that take none: the kernel compiled
# with FOLLOW but no follower programs launched (right only where nothing defers: these two inputs).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02
F=CHUNKED_SPLIT_FOLLOW=1
N=CHUNKED_SPLIT_FOLLOW=1,SCRATCH_NO_FOLLOWERS=1
timeout -k 5 400 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$F;$N;default;$F;$N" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run6.txt
tail -8 $OUT/r/s55-run6.txt
