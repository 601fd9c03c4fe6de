#!/bin/bash
# Session 56 run 3: the warp-role kernel's state loop below 64 KB (WARP_ROLES_SOLVERS 3 and 2 against 4). Two rounds,
# then the probed timeline of 300 tokens in the three variants.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=len432,len300,3215fe5f,bfd8f7b6,ba95d412,ba08a83e,ed66c791,a39aa135
timeout -k 5 400 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;WARP_ROLES_SOLVERS=3;WARP_ROLES_SOLVERS=2;default;WARP_ROLES_SOLVERS=3;WARP_ROLES_SOLVERS=2" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run3.txt
tail -12 $OUT/r/s56-run3.txt
timeout -k 5 150 python benchmarks/warp_roles_timeline.py --out $OUT/r --seqlens "300" \
  --variants "default;WARP_ROLES_SOLVERS=3;WARP_ROLES_SOLVERS=2" > $OUT/r/s56-run3-timeline.txt 2>&1
tail -30 $OUT/r/s56-run3-timeline.txt
