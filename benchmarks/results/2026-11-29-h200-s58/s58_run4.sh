#!/bin/bash
# Session 58 run 4: compute-sanitizer memcheck and initcheck over every kernel (decode and prefill, ragged inputs).
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
CS=/usr/local/cuda/bin/compute-sanitizer
python build/s58_sanitize.py > $OUT/plain.txt 2>&1; tail -3 $OUT/plain.txt
for tool in memcheck initcheck; do
  timeout 250 $CS --tool $tool --error-exitcode 9 --print-limit 50 python build/s58_sanitize.py > $OUT/sanitizer-$tool.txt 2>&1
  echo "$tool rc $?"; grep -v "^\[\|^([0-9]" $OUT/sanitizer-$tool.txt | grep -i "error\|invalid\|uninit\|summary" | head -20
done
