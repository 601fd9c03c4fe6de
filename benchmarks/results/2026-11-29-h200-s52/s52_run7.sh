#!/bin/bash
# Session 52, run 7: the prep's owner search as one count and two scalar loads (default) against the max and two sums.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02,a9540651,5d3fc66a,6f1ad833,a01a3f93,c5257f65,43bf9699,6fbc155c,ce832e76,352c9ace,e92dafeb,5a91aa02,fc7a2bcb,87bff084
O="CHUNKED_PREP_OWNER_COUNT=False"
timeout -k 5 320 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "$O;default;$O;default" 2>&1 | grep -v "host .*compiled" | tee $OUT/r/s52-run7.txt | tail -8
