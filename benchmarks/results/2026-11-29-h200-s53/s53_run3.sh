#!/bin/bash
# Session 53 run 3: split launches from 448 tokens (instead of 1024), with transition records from 768 or 512 tokens
# (instead of 1024), on the 461-983-token inputs of the chunked kernel's single launch; 1377/1 and 1796/3 as controls.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=ce832e76,352c9ace,4b94d568,f105eda8,6fbc155c,43bf9699,54856fec,08d4f2c4,9c1ef562,c5257f65,f5619793,f4926229,e286a4f4
S="CHUNKED_SPLIT_MIN_TOKENS=448,CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS=448"
timeout -k 5 500 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;$S;$S,CHUNKED_TRANSITION_MIN_LEN=768;$S,CHUNKED_TRANSITION_MIN_LEN=512;default;$S;$S,CHUNKED_TRANSITION_MIN_LEN=768;$S,CHUNKED_TRANSITION_MIN_LEN=512" 2>&1 | grep -v "host .*compiled" | tee $OUT/r/s53-run3.txt | tail -12
