#!/bin/bash
# Session 54 run 5 (scratch): 32 x 32 diagonal blocks in the 64-token prep's solve (two 64 x 64 levels on the
# chain instead of three), with the diagonal inverse by recursion (form 1) or 4 x 4 recursion + series (form 2).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02,410794d4,5d3fc66a,352c9ace,43bf9699
A=CHUNKED_PREP_SUB_BLOCK=32
B=CHUNKED_PREP_SUB_BLOCK=32,CHUNKED_PREP_SOLVE_FORM=2
timeout -k 5 330 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$A;$B;default;$A;$B" 2>&1 | grep -v "host .*compiled" > $OUT/r/s54-run5.txt
tail -9 $OUT/r/s54-run5.txt
