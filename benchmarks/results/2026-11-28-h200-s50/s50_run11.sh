#!/bin/bash
# Session 50, run 11: the wide record loop alone at steady state, one CTA an SM (3 stages) against two (2 stages).
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 200 python build/s50_chain.py 2>&1 | tail -20 | tee $OUT/r/s50-run11-chain.txt
