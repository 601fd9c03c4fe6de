#!/bin/bash
# Session 57 run 4: decode side by side with FlashInfer (all 54 workloads), then the new table against the old
# one at B <= 16 (TILE=4x1x0x1: BV4, one pass, hardware log, no eviction hints).
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
[ -d datasets/synthetic/workloads/gdn_decode_qk4_v8_d128_k_last ] || ( time python -m gdnkit synth --definition gdn_decode_qk4_v8_d128_k_last ) > $OUT/synth.txt 2>&1
( time timeout -k 5 330 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_decode_qk4_v8_d128_k_last --out /tmp/h200-session57-decode ) > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session57-decode.tgz -C /tmp h200-session57-decode
tail -c 1500 $OUT/bench.txt
timeout 150 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "default;TILE=4x1x0x1;default;TILE=4x1x0x1" > $OUT/dec.txt 2>&1
grep "^decode" $OUT/dec.txt | cut -c1-60
