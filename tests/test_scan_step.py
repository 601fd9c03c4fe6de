"""benchmarks/scan_step.py times the chunked kernel's wide record loop through a wrapper kernel, and its Gluon
pair loop: each must really step the recurrence over the chunks and programs it says (the wrapper on the CPU under
the interpreter, the pair loop on an sm90 GPU, both against a float64 recurrence), or its per-step times mean
nothing."""

import pytest
import torch

from conftest import DEVICE
from helpers import load_benchmark


def _scan_step_module():
    return load_benchmark("scan_step")


@pytest.mark.parametrize("stages", [3, 2], ids=["three-stages", "two-stages"])
def test_wrapper_steps_the_record_loop(stages):
    """Two chunks of two sequences, all 8 heads and both V tiles (programs 0-17); the two-stage form takes
    the records as register operands, the three-stage one from shared memory."""
    m = _scan_step_module()
    chunks, window, grid = 2, 2, 18
    x = m.synthetic_inputs(chunks, window, DEVICE, seed=5)
    x["out"].fill_(float("nan"))
    got = m.launch(m._loop_program, x, m.state_buffer(x, grid), chunks, window, stages).double().cpu()
    _check_against_reference(m, x, got, grid, chunks, window)


def _check_against_reference(m, x, states, grid, chunks, window):
    """The states and every output the programs wrote, against the float64 recurrence; nothing else written."""
    want, want_out = m.reference(x, grid, chunks, window)
    assert torch.isfinite(states).all()
    err = (states - want).abs().max() / want.abs().max()
    assert err < 3e-2, float(err)
    # every program's tile differs from the others' (heads, V tiles and sequences are all read)
    assert len({round(float(s.abs().sum()), 3) for s in states}) == grid
    out = x["out"].double().cpu()
    written = ~torch.isnan(want_out)
    assert torch.equal(~torch.isnan(out), written)
    out_err = (out[written] - want_out[written]).abs().max() / want_out[written].abs().max()
    assert out_err < 3e-2, float(out_err)


@pytest.mark.skipif(not (torch.cuda.is_available() and torch.cuda.get_device_capability()[0] == 9),
                    reason="the Gluon pair loop is sm90 (wgmma); the CPU interpreter does not run Gluon")
@pytest.mark.parametrize("chunks, window, grid, ctas, gates", [(1, 1, 16, None, False), (4, 2, 32, None, False),
                                                               (5, 3, 48, None, False), (4, 2, 32, 3, False),
                                                               (2, 3, 48, 5, False), (1, 1, 16, None, True),
                                                               (2, 3, 48, 5, True)])
def test_pair_loop_steps_the_recurrence(chunks, window, grid, ctas, gates):
    """The Gluon pair loop (two state halves a CTA): states and outputs against the float64 recurrence, on one
    chunk, and on several sequences with every head and half (the grid counts tiles: two an item); with `ctas`,
    persistent CTAs taking 2-5 items each, the ring's slots and phases carried across items; with `gates`, the
    gate vectors from the storer warps, one output slot a consumer."""
    m = _scan_step_module()
    x = m.synthetic_inputs(chunks, window, "cuda", seed=11)
    x["out"].fill_(float("nan"))
    state = torch.full((grid, m.BV, m.K), float("nan"), device="cuda")
    got = m.pair_launch(x, state, chunks, window, ctas, gates).double().cpu()
    _check_against_reference(m, x, got, grid, chunks, window)
