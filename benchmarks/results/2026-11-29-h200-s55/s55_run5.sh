#!/bin/bash
# Session 55 run 5: followers with the chain's flags released per block of chunks (the chain loop stays
# pipelined): the GPU tests first, then an A/B, blocks of 16 and 8, two rounds, our kernel alone.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout -k 5 150 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py tests/test_gpu_check.py -k "followers or errors" 2>&1 | tail -3 > $OUT/r/s55-run5-tests.txt
cat $OUT/r/s55-run5-tests.txt
W=a9540651,5d3fc66a,cc310f94,f4926229,6f1ad833,c358edcd,06f21bb1,a2629e02
F=CHUNKED_SPLIT_FOLLOW=1
F8=CHUNKED_SPLIT_FOLLOW=1,CHUNKED_SPLIT_FOLLOW_BLOCK=8
timeout -k 5 420 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$F;$F8;default;$F;$F8" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run5.txt
tail -9 $OUT/r/s55-run5.txt
