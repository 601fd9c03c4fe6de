#!/bin/bash
# Session 50, run 7: a wide scan step's operand intake alone (build/s50_intake.py).
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 240 python build/s50_intake.py 2>&1 | tee $OUT/r/s50-run9-intake.txt
