#!/bin/bash
# Session 58 run 1: the recurrent kernel's tokens in blocks (RECURRENT_TOKENS_PER_STEP), two rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;RECURRENT_TOKENS_PER_STEP=2;RECURRENT_TOKENS_PER_STEP=3;RECURRENT_TOKENS_PER_STEP=6;RECURRENT_BLOCK_V=4,RECURRENT_TOKENS_PER_STEP=3;RECURRENT_MAX_TOKENS=16,RECURRENT_TOKENS_PER_STEP=4;RECURRENT_MAX_TOKENS=16,RECURRENT_TOKENS_PER_STEP=8;RECURRENT_MAX_TOKENS=16,RECURRENT_TOKENS_PER_STEP=8,RECURRENT_LOOKAHEAD=16"
timeout 560 python benchmarks/gpu_check.py --out $OUT/run1 --quick --no-decode --compile-jobs 15 --workloads 77daf91d,len3,len8,len3-5,8e7ef744,685d26ff,339a7ff4 --prefill-variants "$R;$R" > $OUT/run1.txt 2>&1
grep -v "^    \|^prewarm" $OUT/run1.txt | tail -60 | cut -c1-220
