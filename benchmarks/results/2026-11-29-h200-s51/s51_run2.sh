#!/bin/bash
# Session 51, run 2: the Gluon pair record loop (build/s51_pair.py) checked and timed beside the Triton loop;
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee $OUT/r/gpu.txt
timeout 200 python build/s51_run.py $OUT/r 2>&1 | tail -40 | tee $OUT/r/s51-run2-pair.txt
