#!/bin/bash
# Session 56 run 6: the split scan launch's register cap (CHUNKED_SPLIT_SCAN_MAXNREG 255, 248, 240) against none.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02,410794d4,d49df0b2,26244fb4,a9540651,5d3fc66a,f4926229
V="default;CHUNKED_SPLIT_SCAN_MAXNREG=255;CHUNKED_SPLIT_SCAN_MAXNREG=248;CHUNKED_SPLIT_SCAN_MAXNREG=240"
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "$V;$V" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run6.txt
tail -14 $OUT/r/s56-run6.txt
