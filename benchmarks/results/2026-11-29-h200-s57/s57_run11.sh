#!/bin/bash
# Session 57 run 11: on another machine start, the new table against the old 4-row tile at batch 4-16 (three rounds),
# and the side-by-side decode run again.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
V="default;TILE=4x1x0x1;default;TILE=4x1x0x1;default;TILE=4x1x0x1"
timeout 200 python benchmarks/gpu_check.py --out $OUT/dec --quick --no-prefill --decode-variants "$V" > $OUT/dec.txt 2>&1
grep "^decode" $OUT/dec.txt | grep -E "B=  (1|4|8)|B= 16" | cut -c1-60
[ -d datasets/synthetic/workloads/gdn_decode_qk4_v8_d128_k_last ] || python -m gdnkit synth --definition gdn_decode_qk4_v8_d128_k_last > $OUT/synth.txt 2>&1
timeout -k 5 250 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_decode_qk4_v8_d128_k_last --out /tmp/h200-session57-decode-again > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session57-decode-again.tgz -C /tmp h200-session57-decode-again
grep -A12 "By batch size" $OUT/bench.txt | head -12; grep "FlashInfer (" $OUT/bench.txt | head -2
