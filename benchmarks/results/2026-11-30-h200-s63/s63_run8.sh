#!/bin/bash
# Session 63, run 8: the B200's first-call measuring on the two-sequence inputs of 65-192 tokens (three slots now),
# rehearsed on the H200 routed as a B200 (ARCH=sm100), beside the H200's own routing
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
W=ea27be17,cd979341,3a77dfec,078a41ea,f3d30cb9,19c6ab20,1b441950,35ea9bbe,fd072ba6,33a38713,25d9c14d,ba95d412
t0=$(date +%s)
timeout 200 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 --workloads $W \
  --variants "ARCH=sm100;default" > $OUT/run8-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run8-rehearsal.txt
tail -40 $OUT/run8-rehearsal.txt | cut -c1-220
