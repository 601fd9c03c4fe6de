#!/bin/bash
# Session 61 run 1: the warp-role kernel below 17 tokens (WARP_ROLES_MIN_TOKENS), against the fused and recurrent kernels; two rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt 2>&1
R="default;WARP_ROLES_MIN_TOKENS=9;WARP_ROLES_MIN_TOKENS=1,RECURRENT_MAX_TOKENS=0;WARP_ROLES_MIN_TOKENS=9,WARP_ROLES_IDLE_CTAS=0"
timeout 560 python benchmarks/gpu_check.py --out $OUT/run1 --quick --no-decode --compile-jobs 15 --workloads 77daf91d,len3,len3-5,len9,8e7ef744,685d26ff,eaa0fd47,ef9515b6,339a7ff4,len10-5,85d7becb --prefill-variants "$R;$R" > $OUT/run1.txt 2>&1
grep -v "^    \|^prewarm" $OUT/run1.txt | tail -60 | cut -c1-240
