#!/bin/bash
# Session 56 run 8: the committed cap (248) against none on the other split inputs, two rounds.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=08d4f2c4,9c1ef562,c5257f65,f5619793,f4926229,e44ba4d3,e286a4f4,aaa378be,c2bb4f66,a01a3f93,a87ded8a,15856e8c,4b6143dd,7ba9d519
V="CHUNKED_SPLIT_SCAN_MAXNREG=0;default"
timeout -k 5 250 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "$V;$V" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run8.txt
tail -14 $OUT/r/s56-run8.txt
