#!/bin/bash
# Session 54 run 1: side-by-side prefill run of HEAD 99a0163 (split rule for 2-3 seqs of 896-1023 tokens) (synthetic dataset, ours + FlashInfer baselines);
# the run folder comes back as one tarball ($OUT returns at most 8 files)
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
ls datasets/synthetic/workloads 2>/dev/null | head -3 > $OUT/dataset_present.txt
[ -d datasets/synthetic ] || ( time python -m gdnkit synth --definition gdn_prefill_qk4_v8_d128_k_last ) > $OUT/synth.txt 2>&1
( time timeout -k 5 500 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_prefill_qk4_v8_d128_k_last --out /tmp/h200-session54 ) > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session54.tgz -C /tmp h200-session54
tail -c 1500 $OUT/bench.txt
