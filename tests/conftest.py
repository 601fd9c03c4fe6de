"""Shared set-up. Without a GPU the Triton kernels run in the interpreter: the variable must be set
before any kernel module is imported (Triton reads it when a kernel is decorated), the
interpreter's bfloat16 dot needs gdnkit's fix, and its helper calls are made cheaper (see
gdnkit/interpreter.py and test_interpreter_fix.py). With a GPU the same tests run the compiled kernels."""

import atexit
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


@pytest.fixture(autouse=True)
def _interpreter_setting_kept():
    """TRITON_INTERPRET as it was before each test, whatever the test ran: `gdnkit run --cpu`,
    called in-process (test_evaluate.py), sets it for the rest of its process, and on a GPU that
    would send every later test's routing (run() asks it) and kernel module through the interpreter."""
    before = os.environ.get("TRITON_INTERPRET")
    yield
    if before is None:
        os.environ.pop("TRITON_INTERPRET", None)
    else:
        os.environ["TRITON_INTERPRET"] = before


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
