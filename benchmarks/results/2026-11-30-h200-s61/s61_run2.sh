#!/bin/bash
# Session 61 run 2: where the recurrent kernel should end (RECURRENT_MAX_TOKENS) beside the fused and warp-role kernels; three rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;RECURRENT_MAX_TOKENS=6,WARP_ROLES_MIN_TOKENS=7;RECURRENT_MAX_TOKENS=6;RECURRENT_MAX_TOKENS=5,WARP_ROLES_MIN_TOKENS=6"
timeout 580 python benchmarks/gpu_check.py --out $OUT/run2 --quick --no-decode --compile-jobs 15 --workloads len5,77daf91d,len7,len8,len3-4,len3-5,len4-4,len2-2-2,len2-2-2-2,len1-1-1-1-1-1-1-1,len9,ef9515b6,len10-5 --prefill-variants "$R;$R;$R" > $OUT/run2.txt 2>&1
grep "worst err\|^workloads" $OUT/run2.txt | cut -c1-250
