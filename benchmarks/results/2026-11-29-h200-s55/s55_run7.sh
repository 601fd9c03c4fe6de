#!/bin/bash
# Session 55 run 7: deferred outputs (CHUNKED_SPLIT_DEFER_OUTPUTS): the GPU tests, then one A/B round on three inputs
# (the device budget's last minutes).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout -k 5 60 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py -k "deferred_outputs" 2>&1 | tail -2 > $OUT/r/s55-run7-tests.txt
cat $OUT/r/s55-run7-tests.txt
timeout -k 5 150 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 \
  --workloads a9540651,f4926229,06f21bb1 \
  --prefill-variants "default;CHUNKED_SPLIT_DEFER_OUTPUTS=1" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run7.txt
tail -5 $OUT/r/s55-run7.txt
