#!/bin/bash
# Session 62, run 3: the fat step's bound (WARP_ROLES_FAT_STEP=3: the solvers skip the cross-chunk products;
# wrong results) against 2 and the default, three rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_FAT_STEP=2;WARP_ROLES_FAT_STEP=3"
W=85d7becb,d5f5c00c,d8f4a9ae,f203fdcd,9343fd82,a39aa135,len64,ef9515b6
timeout 560 python benchmarks/gpu_check.py --out $OUT/run3 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R;$R" > $OUT/run3.txt 2>&1
echo "rc $?" >> $OUT/run3.txt
grep "worst err\|^workloads" $OUT/run3.txt | cut -c1-250
