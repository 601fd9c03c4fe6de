#!/bin/bash
# Session 53 run 5: split launches from 896 tokens for two or three sequences (records from 512 below 1024) against none below 1024.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=c5257f65,f5619793,9c1ef562,08d4f2c4,43bf9699,54856fec
O="CHUNKED_SPLIT_FEW_SEQS=0"
timeout -k 5 200 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;$O;default;$O;default;$O" 2>&1 | grep -v "host .*compiled" > $OUT/r/s53-run5.txt
tail -9 $OUT/r/s53-run5.txt
