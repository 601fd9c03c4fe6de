#!/bin/bash
# Session 52, run 1: ncu on the split prep launch (ROLE 1) of 06f21bb1 (no transition records taken) and a9540651 (taken).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/r/gpu.txt
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
echo "ncu: $NCU"
timeout 120 python benchmarks/profile_prefill.py 06f21bb1 2>&1 | tail -2
for w in 06f21bb1 a9540651; do
  timeout 200 $NCU --clock-control none -k regex:gdn --launch-skip 4 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section InstructionStats --section Occupancy --section SchedulerStats --section LaunchStats \
    --import-source no -o $OUT/r/prep-$w python benchmarks/profile_prefill.py $w > $OUT/r/ncu-log-$w.txt 2>&1
  echo "ncu $w rc $?"; tail -3 $OUT/r/ncu-log-$w.txt
  timeout 60 $NCU --import $OUT/r/prep-$w.ncu-rep --page source --csv --print-source sass > $OUT/r/prep-$w-sass.csv 2> $OUT/r/src-err-$w.txt
  timeout 60 $NCU --import $OUT/r/prep-$w.ncu-rep --page details --print-details all > $OUT/r/prep-$w-details.txt 2>&1
  grep -i "duration\|Grid Size\|Registers\|Issue Slot\|Executed Ipc\|warp cycles per issued\|No Eligible" $OUT/r/prep-$w-details.txt | head -20
  gzip -f $OUT/r/prep-$w-sass.csv; rm -f $OUT/r/prep-$w.ncu-rep
done
ls -la $OUT/r
