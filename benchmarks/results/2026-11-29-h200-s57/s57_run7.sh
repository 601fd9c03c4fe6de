#!/bin/bash
# Session 57 run 7: the recurrent kernel's loads from L2 (RECURRENT_LOOKAHEAD 1, 2 with its L2 prefetch), two rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
V="default;RECURRENT_LOOKAHEAD=1;RECURRENT_LOOKAHEAD=2;default;RECURRENT_LOOKAHEAD=1;RECURRENT_LOOKAHEAD=2"
timeout 400 python benchmarks/gpu_check.py --out $OUT/pre --quick --no-decode --compile-jobs 14 --workloads 77daf91d,len3,len8,len3-5 --prefill-variants "$V" > $OUT/pre.txt 2>&1
grep -v "^    \|^oracle\|^prewarm" $OUT/pre.txt | tail -12 | cut -c1-200
