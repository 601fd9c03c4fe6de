source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
t0=$(date +%s)
timeout 150 python build/s60_decode.py > $OUT/run2-decode.txt 2>&1
echo "decode rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run2-decode.txt
t0=$(date +%s)
timeout 120 python -m pytest -q -p no:cacheprovider tests/test_route_tuning.py tests/test_tile_tuning.py > $OUT/run2-tests.txt 2>&1
echo "tests rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run2-tests.txt
W=$(python -c 'import json; print(",".join(json.load(open("build/s59_candidates.json"))))')
t0=$(date +%s)
timeout 260 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 --workloads $W \
  --variants "ARCH=sm100,ROUTE_TUNING_ARCHES=;ARCH=sm100;default" > $OUT/run2-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run2-rehearsal.txt
cat $OUT/run2-decode.txt; tail -3 $OUT/run2-tests.txt; tail -8 $OUT/run2-rehearsal.txt
