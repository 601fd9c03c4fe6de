#!/bin/bash
# Session 51, run 10: the persistent pair loop with and without its final state stores.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 150 python build/s51_run10.py 2>&1 | tee $OUT/r/s51-run10.txt
