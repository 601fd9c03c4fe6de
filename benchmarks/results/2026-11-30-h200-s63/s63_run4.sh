#!/bin/bash
# Session 63 run 4: side-by-side prefill run at df74242 (two sequences of 65-192 tokens: three slots a solver)
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
grep -n "^WARP_ROLES_TWO_SEQ_DEPTH\|^WARP_ROLES_DEPTH" solution/triton/gdn_prefill.py > $OUT/knob.txt
[ -d datasets/synthetic ] || ( time python -m gdnkit synth --definition gdn_prefill_qk4_v8_d128_k_last ) > $OUT/synth.txt 2>&1
( time timeout -k 5 540 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_prefill_qk4_v8_d128_k_last --out /tmp/h200-session63 ) > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session63.tgz -C /tmp h200-session63
tail -c 1500 $OUT/bench.txt
