#!/bin/bash
# Session 51, run 11: the persistent pair loop with its final states stored by TMA.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 150 python build/s51_run11.py 2>&1 | tee $OUT/r/s51-run11.txt
