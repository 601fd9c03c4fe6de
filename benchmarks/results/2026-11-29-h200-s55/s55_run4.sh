#!/bin/bash
# Session 55 run 4: followers (CHUNKED_SPLIT_FOLLOW): the GPU tests first (a hang would show here), then an
# A/B against the default, two rounds, our kernel alone.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout -k 5 150 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py -k "followers" 2>&1 | tail -3 > $OUT/r/s55-run4-tests.txt
cat $OUT/r/s55-run4-tests.txt
W=a9540651,5d3fc66a,cc310f94,c2931c92,07aa7922,f4926229,6f1ad833,c358edcd,a01a3f93,06f21bb1,a2629e02
F=CHUNKED_SPLIT_FOLLOW=1
timeout -k 5 400 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$F;default;$F" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run4.txt
tail -8 $OUT/r/s55-run4.txt
