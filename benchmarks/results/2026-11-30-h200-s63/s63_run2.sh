#!/bin/bash
# Session 63, run 2: shared-memory padding (scratch: unused k slots) against three slots for two sequences only;
# three rounds; oracle cases.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;SCRATCH_PAD_K_SLOTS_TWO_SEQ=12,SCRATCH_PAD_K_SLOTS_ONE_SEQ=11;SCRATCH_TWO_SEQ_DEPTH=3"
W=2ba465c0,043e74e4,1aa8cf18,1cf8e175,fdf5f1f4,cd979341,1b441950,fd072ba6,25d9c14d,ba95d412,bfd8f7b6,len150-150,a39aa135,49ef89d2,73b8cc85,ba08a83e
timeout 580 python benchmarks/gpu_check.py --out $OUT/run2 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R;$R" > $OUT/run2.txt 2>&1
echo "rc $?" >> $OUT/run2.txt
grep "worst err\|^workloads\|FAIL\|rc " $OUT/run2.txt | cut -c1-330
