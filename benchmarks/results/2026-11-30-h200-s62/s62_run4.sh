#!/bin/bash
# Session 62, run 4: ncu's warp-state sampling of the warp-role kernel, by SASS instruction: 61/1 (four chunk
# steps), 16/1 (one), 134/1 (nine, two slots a solver); the fourth call of each (three before it), counters
# with ncu's cache flush between passes.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
which ncu; ncu --version | tail -1
for w in a39aa135 ef9515b6 ba08a83e; do
  timeout 150 ncu --clock-control none -k regex:warp_roles --launch-skip 3 --launch-count 1 --warp-sampling-interval 0 \
    --section WarpStateStats --section SourceCounters --section LaunchStats --section SpeedOfLight \
    -o $OUT/wr-$w python benchmarks/profile_prefill.py $w > $OUT/ncu-$w.txt 2>&1
  tail -3 $OUT/ncu-$w.txt
  ncu --import $OUT/wr-$w.ncu-rep --page source --csv --print-source sass > $OUT/wr-$w-sass.csv 2>&1
  ncu --import $OUT/wr-$w.ncu-rep --page details --csv > $OUT/wr-$w-details.csv 2>&1
  wc -l $OUT/wr-$w-sass.csv; head -c 600 $OUT/wr-$w-sass.csv; echo
done
ls -la $OUT
