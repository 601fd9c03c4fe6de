#!/bin/bash
# Session 57 run 10: the 8-row tile with its v prefetch at batch 4-16, against the table, two rounds.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
V="default;TILE=8x1x0x0x-x-x1;TILE=8x1x0x0xfirstxlastx1;default;TILE=8x1x0x0x-x-x1;TILE=8x1x0x0xfirstxlastx1"
timeout 300 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "$V" > $OUT/dec.txt 2>&1
grep "^decode" $OUT/dec.txt | grep -E "B=  (4|8)|B= 16" | cut -c1-75
