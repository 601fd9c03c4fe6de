#!/bin/bash
# Session 58 run 5: the B200's routing (ARCH=sm100) on the H200: race smoke and compute-sanitizer memcheck/initcheck.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
CS=/usr/local/cuda/bin/compute-sanitizer
I="18;61;49;300;1,45;100,14,14;30,30,30;90,115,34;461,70;959,0,1,1;2107;1377,600,17;4124x15;8192x56;8192x25;5000,3192;8192"
timeout 300 python benchmarks/race_smoke.py --arch sm100 --repeats 10 --inputs "$I" --json $OUT/race_smoke_sm100.json > $OUT/race_smoke_sm100.txt 2>&1
echo "rc $?" >> $OUT/race_smoke_sm100.txt; grep -v Warning $OUT/race_smoke_sm100.txt | tail -20
for tool in memcheck initcheck; do
  ARCH=sm100 timeout 130 $CS --tool $tool --error-exitcode 9 --print-limit 50 python build/s58_sanitize.py > $OUT/sanitizer-sm100-$tool.txt 2>&1
  echo "$tool rc $?"; grep -i "error\|invalid\|uninit\|summary" $OUT/sanitizer-sm100-$tool.txt | head -10
done
grep -v Warning $OUT/sanitizer-sm100-memcheck.txt | grep "True\|False" | awk '{print $(NF-2), $(NF-1), $NF}' | sort | uniq -c
