#!/bin/bash
# Session 56 run 5: more warp-role solvers (WARP_ROLES_SOLVERS 8, 8 at depth 1, 6) against four. Two rounds.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=len432,len300,3215fe5f,bfd8f7b6,ba95d412,ba08a83e,25d9c14d,2683c087,a39aa135,fdf5f1f4
V="default;WARP_ROLES_SOLVERS=8;WARP_ROLES_SOLVERS=8,WARP_ROLES_DEPTH=1;WARP_ROLES_SOLVERS=6"
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "$V;$V" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run5.txt
tail -14 $OUT/r/s56-run5.txt
