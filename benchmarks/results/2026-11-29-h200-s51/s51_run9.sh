#!/bin/bash
# Session 51, run 9: ncu's per-instruction stall sampling of the persistent pair loop on one-chunk items, gates or not.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for g in 0 1; do
  python build/s51_ncu.py $g
  timeout 150 $NCU --clock-control none -k regex:_pair_program --launch-skip 3 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --section SpeedOfLight --import-source no -o $OUT/r/pair$g \
    python build/s51_ncu.py $g > $OUT/r/ncu-log$g.txt 2>&1
  echo "ncu rc $?"; tail -2 $OUT/r/ncu-log$g.txt
  timeout 60 $NCU --import $OUT/r/pair$g.ncu-rep --page source --csv --print-source sass > $OUT/r/pair$g-sass.csv 2> $OUT/r/src-err$g.txt
  timeout 60 $NCU --import $OUT/r/pair$g.ncu-rep --page details --print-details all > $OUT/r/pair$g-details.txt 2>&1
  grep -i "duration\|stall\|warp cycles" $OUT/r/pair$g-details.txt | head -20
  gzip -f $OUT/r/pair$g-sass.csv; rm -f $OUT/r/pair$g.ncu-rep
done
ls -la $OUT/r
