#!/bin/bash
# Session 52, run 5: the chain-first split launches with the chain launch at the largest shared-memory carveout
# (run 3's chain CTAs had the fitted one, which left no room for prep CTAs on their SMs).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout -k 5 150 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py -k "early_chain" 2>&1 | tail -2 | tee $OUT/r/s52-run5-tests.txt
W=06f21bb1,a2629e02,410794d4,d49df0b2,e9e1e445,d0ce7b5d,9a5d694b,26244fb4,5835a2bc,618df04a,5b8a0e4b,c2931c92,b8c8dc3c,cc310f94,5d3fc66a,a9540651,07aa7922,7ba9d519,4b6143dd
E="CHUNKED_SPLIT_EARLY_CHAIN=True"
timeout -k 5 400 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 12 --workloads $W \
  --prefill-variants "default;$E;$E,CHUNKED_SPLIT_EARLY_CHAIN_MAXNREG=168;default" 2>&1 | grep -v "host .*compiled" | tee $OUT/r/s52-run5.txt | tail -12
timeout -k 5 120 python benchmarks/launch_gaps.py --workloads a9540651,4b6143dd --variants "$E" 2>&1 | grep -v Warn | tee $OUT/r/s52-run5-gaps.txt | tail -3
