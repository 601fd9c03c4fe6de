#!/bin/bash
# Session 57 run 6: decode side by side with FlashInfer (all 54 workloads) with the v prefetch in the BV8 rows.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
[ -d datasets/synthetic/workloads/gdn_decode_qk4_v8_d128_k_last ] || ( time python -m gdnkit synth --definition gdn_decode_qk4_v8_d128_k_last ) > $OUT/synth.txt 2>&1
( time timeout -k 5 330 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_decode_qk4_v8_d128_k_last --out /tmp/h200-session57-decode-prefetch ) > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session57-decode-prefetch.tgz -C /tmp h200-session57-decode-prefetch
grep -A12 "By batch size" $OUT/bench.txt; grep "score\|FlashInfer (" $OUT/bench.txt | head -5
