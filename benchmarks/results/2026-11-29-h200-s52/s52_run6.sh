#!/bin/bash
# Session 52, run 6: split launches whose longest sequence's narrow tiles walk its chunks on flags (CHUNKED_SPLIT_FLAG_CHAIN).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout -k 5 120 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py -k "flag_chain or split_launches" 2>&1 | tail -2 | tee $OUT/r/s52-run6-tests.txt
W=06f21bb1,a2629e02,410794d4,d49df0b2,e9e1e445,d0ce7b5d,9a5d694b,26244fb4,5835a2bc,618df04a,5b8a0e4b,c2931c92,b8c8dc3c,cc310f94,5d3fc66a,a9540651,07aa7922,7ba9d519,4b6143dd,a01a3f93,109addb1,c358edcd,a87ded8a,15856e8c
timeout -k 5 380 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;CHUNKED_SPLIT_FLAG_CHAIN=True;default;CHUNKED_SPLIT_FLAG_CHAIN=True" 2>&1 | grep -v "host .*compiled" | tee $OUT/r/s52-run6.txt | tail -9
