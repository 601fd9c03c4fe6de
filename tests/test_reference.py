"""Our definitions' float32 references against the independent float64 oracle."""

import pytest
import torch

from gdnkit import DECODE, PREFILL
from gdnkit.definitions import load_definition, reference_callable
from gdnkit.inputs import decode_inputs, prefill_inputs, seeded_generator
from gdnkit.oracle import decode_as_prefill, gdn_recurrence_f64
from helpers import OUT_TOL, assert_close_to_oracle

REF_STATE_TOL = dict(atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("with_state", [True, False])
@pytest.mark.parametrize("batch", [1, 3])
def test_decode_reference_matches_oracle(batch, with_state, fresh_seed):
    x = decode_inputs(batch, seeded_generator(fresh_seed), with_state=with_state)
    out, new_state = reference_callable(load_definition(DECODE))(*x.values())
    want_out, want_state = gdn_recurrence_f64(*decode_as_prefill(*list(x.values())[:8]), x["scale"])
    assert out.dtype == torch.bfloat16 and out.shape == (batch, 1, 8, 128)
    assert new_state.dtype == torch.float32 and new_state.shape == (batch, 8, 128, 128)
    assert_close_to_oracle("output", out[:, 0], want_out, **OUT_TOL)
    assert_close_to_oracle("new_state", new_state, want_state, **REF_STATE_TOL)


@pytest.mark.parametrize("seqlens", [[1, 1, 65, 3], [5, 0, 35], [70]])
def test_prefill_reference_matches_oracle(seqlens, fresh_seed):
    x = prefill_inputs(seqlens, seeded_generator(fresh_seed))
    out, new_state = reference_callable(load_definition(PREFILL))(*x.values())
    want_out, want_state = gdn_recurrence_f64(*x.values())
    assert_close_to_oracle("output", out, want_out, **OUT_TOL)
    assert_close_to_oracle("new_state", new_state, want_state, **REF_STATE_TOL)


def test_prefill_reference_empty_sequence_gets_zero_state(fresh_seed):
    x = prefill_inputs([3, 0, 2], seeded_generator(fresh_seed))
    assert x["state"][1].abs().sum() > 0
    _, new_state = reference_callable(load_definition(PREFILL))(*x.values())
    assert torch.count_nonzero(new_state[1]) == 0


def test_scale_zero_or_none_means_inverse_sqrt_head_size(fresh_seed):
    x = decode_inputs(2, seeded_generator(fresh_seed))
    ref = reference_callable(load_definition(DECODE))
    args = list(x.values())
    default, _ = ref(*args[:8], 0.0)
    none, _ = ref(*args[:8], None)
    explicit, _ = ref(*args[:8], 128 ** -0.5)
    doubled, _ = ref(*args[:8], 2 * 128 ** -0.5)
    assert torch.equal(default, explicit) and torch.equal(none, explicit)
    assert not torch.equal(doubled, explicit)
