#!/bin/bash
# Session 56 run 1: the scan programs' code first in one-launch binaries (CHUNKED_SCAN_CODE_FIRST): the
# 959/4 and 832/4 configuration's narrow loop 0xdc40 -> 0x3600, wide loop 0x137d0 -> 0x91b0 (sm90 SASS, same
# instructions); 461/2, 574/2, 525/1 keep their hot narrow loop below 64 KB either way (controls); 08d4f2c4
# is split (ROLE 1/2, unchanged code). A/B, two rounds, H200 routing.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=43bf9699,54856fec,6fbc155c,f105eda8,ce832e76,4b94d568,352c9ace,08d4f2c4
ON=CHUNKED_SCAN_CODE_FIRST=1
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$ON;default;$ON" 2>&1 | grep -v "host .*compiled" > $OUT/r/s56-run1.txt
tail -16 $OUT/r/s56-run1.txt
