#!/bin/bash
# Session 52, run 4: where the chain-first split launches lose: each launch's span (torch.profiler), and the
# corrected tie test.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout -k 5 150 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py -k "early_chain" 2>&1 | tail -3 | tee $OUT/r/s52-run4-tests.txt
timeout -k 5 300 python benchmarks/launch_gaps.py --workloads 06f21bb1,a9540651,7ba9d519,4b6143dd \
  --variants "default;CHUNKED_SPLIT_EARLY_CHAIN=True" 2>&1 | tee $OUT/r/s52-run4-gaps.txt | tail -40
