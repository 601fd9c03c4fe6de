"""Shared set-up. Without a GPU the Triton kernels run in the interpreter: the variable must be set
before any kernel module is imported (Triton reads it when a kernel is decorated), the
interpreter's bfloat16 dot needs gdnkit's fix, and its helper calls are made cheaper (see
gdnkit/interpreter.py and test_interpreter_fix.py). With a GPU the same tests run the compiled kernels."""

import atexit
import contextlib
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest
import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"
    from gdnkit.interpreter import install_interpreter_fixes

    install_interpreter_fixes()

ROOT = Path(__file__).resolve().parent.parent
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@contextlib.contextmanager
def interpreter_setting_kept():
    """TRITON_INTERPRET as it was on entry, again on exit, whatever ran inside."""
    before = os.environ.get("TRITON_INTERPRET")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = before


@pytest.fixture(autouse=True)
def _interpreter_setting_kept_per_test():
    """Every test in interpreter_setting_kept: `gdnkit run --cpu`, called in-process (test_evaluate.py),
    sets TRITON_INTERPRET for the rest of its process, and on a GPU that would send every later test's
    routing (run() asks it) and kernel modules through the interpreter."""
    with interpreter_setting_kept():
        yield


def load_solution_module(name: str):
    """solution/triton/<name>.py as a fresh module (so tests may change its tile constants)."""
    from gdnkit.kernels import load_kernel_module

    return load_kernel_module(name)


@pytest.fixture
def device():
    return DEVICE


@pytest.fixture
def fresh_seed(request):
    """A new seed per run, reported with the test so that a failure can be replayed
    (set GDNKIT_TEST_SEED to force one)."""
    seed = int(os.environ.get("GDNKIT_TEST_SEED", random.SystemRandom().randrange(2**31)))
    request.node.user_properties.append(("seed", seed))
    print(f"seed={seed}")
    return seed


def poisoned_like(shape, dtype, device):
    return torch.full(shape, float("nan"), dtype=dtype, device=device)


# flashinfer-bench's builders write solution packages under FIB_CACHE_PATH; keep tests out of ~/.cache,
# and remove the folder when the run ends (one was left behind per run before).
if "FIB_CACHE_PATH" not in os.environ:
    _fib_cache = tempfile.mkdtemp(prefix="gdnkit-fib-cache-")
    os.environ["FIB_CACHE_PATH"] = _fib_cache
    atexit.register(shutil.rmtree, _fib_cache, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """GDNKIT_TEST_SHARD=k/n keeps every n-th collected test from the k-th (0 <= k < n): n processes,
    one per shard, then share one GPU machine whose pytest has no xdist (README, Tests)."""
    items[:] = shard_of(items, os.environ.get("GDNKIT_TEST_SHARD"))


def shard_of(items, shard):
    """The items of shard "k/n" (see pytest_collection_modifyitems); all of them for None or ""."""
    if not shard:
        return list(items)
    try:
        k, n = (int(part) for part in shard.split("/"))
    except ValueError:
        raise pytest.UsageError(f"GDNKIT_TEST_SHARD must be k/n, got {shard!r}") from None
    if not 0 <= k < n:
        raise pytest.UsageError(f"GDNKIT_TEST_SHARD: k must be in [0, n), got {shard!r}")
    return [item for i, item in enumerate(items) if i % n == k]
