#!/bin/bash
# Session 57 run 5: the decode's late v load (scratch SCRATCH_V_PREFETCH) and the copy by CTA size.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
timeout 150 python benchmarks/l2_policy_copy.py --batches 1,4,8,16 --rounds 2 --shapes 512x1,1024x1,2048x1 --out $OUT/copy.json > $OUT/copy.txt 2>&1
P=SCRATCH_V_PREFETCH=1
V="default;TILE=8x1x0x1;TILE=8x1x0x1,$P;$P;default;TILE=8x1x0x1;TILE=8x1x0x1,$P;$P"
timeout 300 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "$V" > $OUT/dec.txt 2>&1
grep "round" $OUT/copy.txt | grep -v "evict_first" | cut -c1-90
grep "^decode" $OUT/dec.txt | cut -c1-70
