#!/bin/bash
# Session 56 run 2: CHUNKED_SCAN_CODE_FIRST on inputs where it changes no instruction (split launches: the same
# SASS in another binary; a39aa135 on the warp-role kernel: the same binary). Three rounds.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=08d4f2c4,9c1ef562,c5257f65,f4926229,e286a4f4,c358edcd,a2629e02,06f21bb1,a9540651,a39aa135
ON=CHUNKED_SCAN_CODE_FIRST=1
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$ON;default;$ON;default;$ON" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run2.txt
tail -16 $OUT/r/s56-run2.txt
