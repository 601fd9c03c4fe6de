"""benchmarks/scan_step.py times the chunked kernel's wide record loop through a wrapper kernel: the wrapper
must really step the loop over the chunks and programs it says (on the CPU under the interpreter, against a
float64 recurrence), or its per-step times mean nothing."""

import importlib.util
from pathlib import Path

import pytest
import torch

from conftest import DEVICE

ROOT = Path(__file__).resolve().parents[1]


def _scan_step_module():
    spec = importlib.util.spec_from_file_location("scan_step", ROOT / "benchmarks" / "scan_step.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stages", [3, 2], ids=["three-stages", "two-stages"])
def test_wrapper_steps_the_record_loop(stages):
    """Two chunks of two sequences, all 8 heads and both V tiles (programs 0-17); the two-stage form takes
    the records as register operands, the three-stage one from shared memory."""
    m = _scan_step_module()
    chunks, window, grid = 2, 2, 18
    x = m.synthetic_inputs(chunks, window, DEVICE, seed=5)
    got = m.launch(m._loop_program, x, m.state_buffer(x, grid), chunks, window, stages).double().cpu()
    want = m.reference_states(x, grid, chunks, window)
    assert torch.isfinite(got).all()
    err = (got - want).abs().max() / want.abs().max()
    assert err < 3e-2, float(err)
    # every program's tile differs from the others' (heads, V tiles and sequences are all read)
    assert len({round(float(s.abs().sum()), 3) for s in got}) == grid
