#!/bin/bash
# Session 58 run 2: the decode's lane sums as one butterfly (LANE_SUMS), three rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
V="default;LANE_SUMS=True"
timeout 500 python benchmarks/gpu_check.py --out $OUT/run2 --no-prefill --decode-variants "$V;$V;$V" > $OUT/run2.txt 2>&1
grep "^decode" $OUT/run2.txt | cut -c1-160
