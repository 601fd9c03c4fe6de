"""solution/triton/gdn_prefill.py against the float64 oracle on ragged packed sequences, on
fresh random inputs with NaN-poisoned outputs (interpreter on CPU, compiled on GPU)."""

import pytest
import torch

from conftest import load_solution_module, poisoned_like
from gdnkit.inputs import prefill_inputs, seeded_generator
from gdnkit.oracle import gdn_recurrence_f64
from helpers import OUT_TOL, STATE_TOL, assert_close_to_oracle

prefill = load_solution_module("gdn_prefill")


def run_prefill(x, device):
    total, num_seqs = x["q"].shape[0], x["cu_seqlens"].shape[0] - 1
    out = poisoned_like((total, 8, 128), torch.bfloat16, device)
    new_state = poisoned_like((num_seqs, 8, 128, 128), torch.float32, device)
    prefill.run(*x.values(), out, new_state)
    return out, new_state


def check_against_oracle(x, device):
    out, new_state = run_prefill(x, device)
    cpu = [v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()]
    want_out, want_state = gdn_recurrence_f64(*cpu)
    assert_close_to_oracle("output", out, want_out, **OUT_TOL)
    assert_close_to_oracle("new_state", new_state, want_state, **STATE_TOL)


@pytest.mark.parametrize("seqlens", [
    [1, 1, 65, 3],      # cu_seqlens [0, 1, 2, 67, 70]: single tokens, one sequence over a chunk boundary
    [5, 0, 35],         # cu_seqlens [0, 5, 5, 40]: an empty sequence in the middle
    [150],              # one sequence over many chunk boundaries (two even at the largest chunk, 64)
    [1] * 12,           # many one-token sequences
], ids=["1-1-65-3", "5-0-35", "150", "12x1"])
def test_prefill_matches_oracle(seqlens, device, fresh_seed):
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


def test_prefill_without_state(device, fresh_seed):
    check_against_oracle(prefill_inputs([3, 70], seeded_generator(fresh_seed), device=device, with_state=False), device)


def test_prefill_empty_sequence_writes_zero_state(device, fresh_seed):
    x = prefill_inputs([2, 0, 0], seeded_generator(fresh_seed), device=device)
    _, new_state = run_prefill(x, device)
    assert torch.count_nonzero(new_state[1:]) == 0


@pytest.mark.parametrize("block_t", [16, 64])
def test_prefill_hard_inputs(block_t, monkeypatch, device, fresh_seed):
    """Strongly correlated keys, beta near 1 and fast decay: the entries of A approach 1 and
    the triangular inverse grows; substitution and block series must stay accurate."""
    monkeypatch.setattr(prefill, "BLOCK_T", block_t)
    gen = seeded_generator(fresh_seed)
    x = prefill_inputs([130], gen)
    base = torch.randn(1, 4, 128, generator=gen)
    keys = base + 0.15 * torch.randn(130, 4, 128, generator=gen)
    x["k"] = torch.nn.functional.normalize(keys, dim=-1).to(torch.bfloat16)
    x["b"] = (3.0 + torch.randn(130, 8, generator=gen)).to(torch.bfloat16)
    x["a"] = (2.0 * torch.randn(130, 8, generator=gen)).to(torch.bfloat16)
    x["A_log"] = torch.randn(8, generator=gen)
    check_against_oracle({k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in x.items()}, device)


@pytest.mark.parametrize("block_t, block_v", [(64, 32), (32, 128)])
def test_prefill_other_tilings(block_t, block_v, monkeypatch, device, fresh_seed):
    """The chunk and V-tile sizes are tuning knobs; every legal choice computes the same. Chunks
    longer than the 16-token diagonal block exercise the block series of the inverse."""
    monkeypatch.setattr(prefill, "BLOCK_T", block_t)
    monkeypatch.setattr(prefill, "BLOCK_V", block_v)
    check_against_oracle(prefill_inputs([1, 40, 0, 33], seeded_generator(fresh_seed), device=device), device)


def _args(device):
    x = prefill_inputs([3, 4], seeded_generator(0), device=device)
    out = torch.empty(7, 8, 128, dtype=torch.bfloat16, device=device)
    new_state = torch.empty(2, 8, 128, 128, dtype=torch.float32, device=device)
    return list(x.values()) + [out, new_state]


@pytest.mark.parametrize("index, bad, message", [
    (8, lambda t: t.to(torch.int32), "cu_seqlens must be torch.int64"),
    (3, lambda t: t[:1], "state must have shape"),
    (1, lambda t: t[:, :2], "k must have shape"),
    (6, lambda t: t.to(torch.bfloat16), "dt_bias must be torch.float32"),
    (10, lambda t: t[:5], "output must have shape"),
    (8, lambda t: t[None], "cu_seqlens must be a 1-D tensor"),
])
def test_prefill_rejects_bad_inputs(index, bad, message, device):
    args = _args(device)
    args[index] = bad(args[index])
    with pytest.raises((TypeError, ValueError), match=message):
        prefill.run(*args)
