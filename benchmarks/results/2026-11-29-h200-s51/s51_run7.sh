#!/bin/bash
# Session 51, run 7: the storer's gate vectors at item boundaries (GATES 0, 1, 2, 4), persistent.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 150 python build/s51_run7.py $OUT/r 2>&1 | tee $OUT/r/s51-run7-ab.txt
