#!/bin/bash
# Session 57 run 9: the BV8 rows with every input line asked into L2 first (scratch SCRATCH_PREFETCH_STATE), three rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
P=SCRATCH_PREFETCH_STATE=1
timeout 300 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "default;$P;default;$P;default;$P" > $OUT/dec.txt 2>&1
grep "^decode" $OUT/dec.txt | grep -E "B= (32|48|64)" | cut -c1-70
