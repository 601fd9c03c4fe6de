#!/bin/bash
# Session 55 run 3 (diagnostic): the narrow transition loop without its output (no Qd or Y loads, no Qd S0^T,
# no output stores; outputs wrong, states right): how much of a chain step the output's bytes and product take.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=a9540651,5d3fc66a,cc310f94,07aa7922,f4926229,6f1ad833,c358edcd
NO=SCRATCH_NO_OUTPUT=1
timeout -k 5 500 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$NO;default;$NO" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run3.txt
tail -8 $OUT/r/s55-run3.txt
