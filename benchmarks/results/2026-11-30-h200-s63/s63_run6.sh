#!/bin/bash
# Session 63, run 6: two sequences of at most 64 tokens with two or three slots a solver (none reached), three rounds
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_DEPTH_MIN_TOKENS=0;WARP_ROLES_DEPTH_MIN_TOKENS=0,WARP_ROLES_TWO_SEQ_DEPTH=0"
W=2ba465c0,043e74e4,1aa8cf18,f2f01c2c,1cf8e175,1efaf2a9,fdf5f1f4,len20-30,len1-45
timeout 580 python benchmarks/gpu_check.py --out $OUT/run6 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R;$R" > $OUT/run6.txt 2>&1
echo "rc $?" >> $OUT/run6.txt
grep "worst err\|^workloads\|FAIL\|rc " $OUT/run6.txt | cut -c1-330
