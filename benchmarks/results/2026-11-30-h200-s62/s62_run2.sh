#!/bin/bash
# Session 62, run 2: the fat step (WARP_ROLES_FAT_STEP 1: the state products after the solves; 2: from the
# early copies, during the solves) against the default on single sequences of 17-64 tokens, two rounds,
# every variant through gpu_check's float64-oracle cases (hard-32, hard-49, hard-61, single-40-no-state
# take the fat step).
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_FAT_STEP=1;WARP_ROLES_FAT_STEP=2"
W=85d7becb,cc241d2e,62447caf,d5f5c00c,d8f4a9ae,f203fdcd,9343fd82,2c9693b4,a39aa135,len17,len33,len40,len64,ef9515b6,2ba465c0
timeout 560 python benchmarks/gpu_check.py --out $OUT/run2 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R" > $OUT/run2.txt 2>&1
echo "rc $?" >> $OUT/run2.txt
grep -i "worst err\|fail\|^workloads\|error" $OUT/run2.txt | cut -c1-300 | head -30
tail -40 $OUT/run2.txt
