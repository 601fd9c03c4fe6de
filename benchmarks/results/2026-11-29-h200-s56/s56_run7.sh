#!/bin/bash
# Session 56 run 7: CHUNKED_SPLIT_SCAN_MAXNREG=248 against none, three rounds.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=a9540651,5d3fc66a,cc310f94,b8c8dc3c,c2931c92,5b8a0e4b,06f21bb1,a2629e02,6f1ad833,c358edcd,109addb1
V="default;CHUNKED_SPLIT_SCAN_MAXNREG=248"
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "$V;$V;$V" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run7.txt
tail -14 $OUT/r/s56-run7.txt
