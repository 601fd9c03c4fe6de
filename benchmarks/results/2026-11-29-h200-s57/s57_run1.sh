#!/bin/bash
# Session 57 run 1: the L2 eviction policy of the decode's state and of a plain copy, after the contest's flush.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/gpu.txt
python -c "import torch;print(torch.cuda.get_device_properties(0).L2_cache_size)" >> $OUT/gpu.txt
timeout 200 python benchmarks/l2_policy_copy.py --batches 1,8,16,32,64,128 --rounds 1 --out $OUT/copy.json > $OUT/copy.txt 2>&1
V="default;STATE_LOAD_EVICT=evict_first;STATE_LOAD_EVICT=evict_first,STATE_STORE_EVICT=evict_last;STATE_STORE_EVICT=evict_last;default;STATE_LOAD_EVICT=evict_first"
timeout 300 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "$V" > $OUT/dec.txt 2>&1
tail -5 $OUT/copy.txt; grep -v "^ " $OUT/dec.txt | tail -60
