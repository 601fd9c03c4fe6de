#!/bin/bash
# Session 57 run 3: decode state cache policies, three rounds interleaved.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
LE=STATE_LOAD_EVICT=evict_first; BOTH=STATE_LOAD_EVICT=evict_first,STATE_STORE_EVICT=evict_last
V="default;$LE;$BOTH;default;$LE;$BOTH;default;$LE;$BOTH"
timeout 400 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "$V" > $OUT/dec.txt 2>&1
grep "^decode" $OUT/dec.txt | cut -c1-120
