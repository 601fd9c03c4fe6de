"""solution/triton/gdn_decode.py against the float64 oracle and the definition's reference,
on fresh random inputs with NaN-poisoned outputs (interpreter on CPU, compiled on GPU)."""

import pytest
import torch

from conftest import load_solution_module, poisoned_like
from gdnkit import DECODE
from gdnkit.definitions import load_definition, reference_callable
from gdnkit.inputs import decode_inputs, seeded_generator
from gdnkit.oracle import decode_as_prefill, gdn_recurrence_f64
from helpers import OUT_TOL, STATE_TOL, assert_close_to_oracle

decode = load_solution_module("gdn_decode")


def check_against_oracle(x, device):
    out, new_state = run_decode(x, device)
    cpu = {k: (v.cpu() if isinstance(v, torch.Tensor) else v) for k, v in x.items()}
    want_out, want_state = gdn_recurrence_f64(*decode_as_prefill(*list(cpu.values())[:8]), cpu["scale"])
    assert_close_to_oracle("output", out[:, 0], want_out, **OUT_TOL)
    assert_close_to_oracle("new_state", new_state, want_state, **STATE_TOL)


def run_decode(x, device, scale=None):
    batch = x["q"].shape[0]
    out = poisoned_like((batch, 1, 8, 128), torch.bfloat16, device)
    new_state = poisoned_like((batch, 8, 128, 128), torch.float32, device)
    args = list(x.values())
    if scale is not None:
        args[8] = scale
    decode.run(*args, out, new_state)
    return out, new_state


@pytest.mark.parametrize("with_state", [True, False])
@pytest.mark.parametrize("batch", [1, 3])
def test_decode_matches_oracle(batch, with_state, device, fresh_seed):
    check_against_oracle(decode_inputs(batch, seeded_generator(fresh_seed), device=device, with_state=with_state), device)


@pytest.mark.parametrize("batch", [65])
def test_decode_large_batch_outside_the_workload_list(batch, device, fresh_seed):
    """A batch size past every contest bucket (uses the table's last row)."""
    check_against_oracle(decode_inputs(batch, seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("block_v, num_warps, sequential, hardware_log, load_evict, store_evict, prefetch_v",
                         [(4, 1, True, False, "", "", False), (4, 1, False, True, "evict_first", "", False),
                          (4, 1, False, True, "evict_first", "evict_last", True),
                          (8, 1, False, False, "", "evict_last", True), (16, 2, True, True, "", "", False)])
def test_decode_every_table_entry_computes_the_same(block_v, num_warps, sequential, hardware_log, load_evict,
                                                    store_evict, prefetch_v, monkeypatch, device, fresh_seed):
    """Tile size, warps, the order of the two reductions, the log, the L2 eviction policies and the v
    prefetch are tuning choices only (the hardware log and the prefetch are inline PTX: the CPU
    interpreter runs libdevice's log and no prefetch, and it ignores cache policies, so there this checks
    that each row's fields reach the kernel)."""
    monkeypatch.setattr(decode, "TILE_TABLE", {arch: [(1 << 62, block_v, num_warps, sequential, hardware_log,
                                                       load_evict, store_evict, prefetch_v)]
                                               for arch in ("sm90", "sm100", "default")})
    check_against_oracle(decode_inputs(2, seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("arch", sorted(decode.TILE_TABLE))
def test_decode_tile_table_rows_are_well_formed(arch):
    """Every architecture's rows (only the "default" one runs on the CPU): eight fields, a tile that
    divides the 128 value rows, eviction policies Triton knows, batch bounds increasing to one that
    covers every batch."""
    rows = decode.TILE_TABLE[arch]
    assert all(len(row) == 8 and isinstance(row[7], bool) for row in rows)
    assert all(128 % block_v == 0 and num_warps >= 1 for _, block_v, num_warps, *_ in rows)
    assert all(row[5] in decode.EVICTION_POLICIES and row[6] in decode.EVICTION_POLICIES for row in rows)
    bounds = [row[0] for row in rows]
    assert bounds == sorted(set(bounds)) and bounds[-1] >= 1 << 31


def test_decode_tile_for_takes_the_first_row_that_covers_the_batch(monkeypatch):
    """The row choice on sm90, batch sizes on and beside every row's bound."""
    monkeypatch.setattr(decode, "_arch", lambda device: "sm90")
    rows = decode.TILE_TABLE["sm90"]
    cpu = torch.device("cpu")
    for batch in (1, 2, 4, 5, 16, 17, 64, 1000):
        row = next(r for r in rows if batch <= r[0])
        assert decode.tile_for(batch, cpu) == tuple(row[1:])


def test_decode_matches_reference_with_explicit_scale(device, fresh_seed):
    x = decode_inputs(2, seeded_generator(fresh_seed), device=device)
    out, new_state = run_decode(x, device, scale=0.25)
    args = list(x.values())
    args[8] = 0.25
    ref_out, ref_state = reference_callable(load_definition(DECODE))(*args)
    torch.testing.assert_close(new_state, ref_state, atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(out.float(), ref_out.float(), atol=4e-3, rtol=8e-3)


def test_decode_state_is_not_modified(device, fresh_seed):
    x = decode_inputs(1, seeded_generator(fresh_seed), device=device)
    before = x["state"].clone()
    run_decode(x, device)
    assert torch.equal(x["state"], before)


def _args(device, batch=2):
    x = decode_inputs(batch, seeded_generator(0), device=device)
    out = torch.empty(batch, 1, 8, 128, dtype=torch.bfloat16, device=device)
    new_state = torch.empty(batch, 8, 128, 128, dtype=torch.float32, device=device)
    return list(x.values()) + [out, new_state]


@pytest.mark.parametrize("index, bad, message", [
    (0, lambda t: t.float(), "q must be torch.bfloat16"),
    (3, lambda t: t.to(torch.bfloat16), "state must be torch.float32"),
    (2, lambda t: t[:, :, :4], "v must have shape"),
    (5, lambda t: t.permute(2, 1, 0).contiguous().permute(2, 1, 0), "a must be contiguous"),
    (10, lambda t: t[:1], "new_state must have shape"),
    (4, lambda t: t.tolist(), "A_log must be a torch.Tensor"),
])
def test_decode_rejects_bad_inputs(index, bad, message, device):
    args = _args(device)
    args[index] = bad(args[index])
    with pytest.raises((TypeError, ValueError), match=message):
        decode.run(*args)


def test_decode_rejects_cpu_tensors_outside_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(ValueError, match="CUDA device"):
        decode.run(*_args("cpu"))
