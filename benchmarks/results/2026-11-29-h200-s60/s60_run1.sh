set -x
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
python build/s60_decode.py 2>&1 | tee $OUT/run1-tuning.txt
python benchmarks/gpu_check.py --out $OUT/gc --no-prefill --decode-variants "default;ARCH=sm100" 2>&1 | tail -20 | tee $OUT/run1-gpu-check.txt
python -m pytest -q -p no:cacheprovider tests/test_tile_tuning.py tests/test_decode_kernel.py 2>&1 | tail -5 | tee $OUT/run1-tests.txt
