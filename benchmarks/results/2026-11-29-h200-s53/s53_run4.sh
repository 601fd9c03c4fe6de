#!/bin/bash
# Session 53 run 4: split launches from 512 tokens (one sequence) and 896 (several), with transition records from
# 512 tokens below 1024 (the new defaults) against the old thresholds (1024); then the side-by-side run of the new
# kernel (prefill, synthetic dataset), returned as one archive.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=352c9ace,43bf9699,54856fec,08d4f2c4,9c1ef562,c5257f65,f5619793,ce832e76,6fbc155c,f4926229
O="CHUNKED_SPLIT_MIN_TOKENS=1024,CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS=1024"
timeout -k 5 220 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;$O;default;$O" 2>&1 | grep -v "host .*compiled" > $OUT/r/s53-run4.txt
tail -6 $OUT/r/s53-run4.txt
[ -d datasets/synthetic ] || ( time python -m gdnkit synth --definition gdn_prefill_qk4_v8_d128_k_last ) > $OUT/synth.txt 2>&1
( time timeout -k 5 360 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_prefill_qk4_v8_d128_k_last --out /tmp/h200-session53-split ) > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session53-split.tgz -C /tmp h200-session53-split
grep -A3 "| against" $OUT/bench.txt
