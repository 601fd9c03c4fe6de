#!/bin/bash
# Session 54 run 4: side-by-side prefill run with the prep's solve in form 1 (CHUNKED_PREP_SOLVE_FORM = 1, the new default)
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
grep -n "^CHUNKED_PREP_SOLVE_FORM" solution/triton/gdn_prefill.py > $OUT/knob.txt
[ -d datasets/synthetic ] || ( time python -m gdnkit synth --definition gdn_prefill_qk4_v8_d128_k_last ) > $OUT/synth.txt 2>&1
( time timeout -k 5 480 python -m gdnkit bench --dataset datasets/synthetic --definition gdn_prefill_qk4_v8_d128_k_last --out /tmp/h200-session54-solve ) > $OUT/bench.txt 2>&1
tar czf $OUT/h200-session54-solve.tgz -C /tmp h200-session54-solve
tail -c 1200 $OUT/bench.txt
