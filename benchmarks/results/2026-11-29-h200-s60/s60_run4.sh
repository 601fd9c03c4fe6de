source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
timeout 250 python build/s60_stamps.py 2>&1 | tee $OUT/run4-stamps.txt
