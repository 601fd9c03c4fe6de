source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm --format=csv
timeout 200 python build/s60_order.py 2>&1 | tee $OUT/run3-order.txt
