#!/bin/bash
# Session 57 run 2: the copy by CTA shape and policy, and CUDA events after a zeroing or a reading flush.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
timeout 400 python benchmarks/l2_policy_copy.py --batches 1,8,16,32,64 --rounds 2 --out $OUT/copy.json > $OUT/copy.txt 2>&1
cat $OUT/copy.txt | cut -c1-200
