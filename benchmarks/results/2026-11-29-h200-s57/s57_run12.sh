#!/bin/bash
# Session 57 run 12: the batch-1 decode's time taken apart (scratch build/s57_b1_parts.py).
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
timeout 200 python build/s57_b1_parts.py 2>&1 | tail -8 | tee $OUT/b1.txt
