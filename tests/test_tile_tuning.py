"""gdn_decode's tiles measured on a batch size's first call (TILE_TUNING_ARCHES): which tiles are
candidates, how the first call chooses between them (agreement with the table's tile, then a clearly
shorter time), that run() keeps the choice for the batch size, and on a GPU, routed as a B200 would be,
that both tiles are measured by the GPU's time and the outputs are right against the oracle."""

import pytest
import torch

from conftest import load_solution_module, poisoned_like
from gdnkit.inputs import decode_inputs, seeded_generator
from gdnkit.oracle import decode_as_prefill, gdn_recurrence_f64
from helpers import OUT_TOL, STATE_TOL, assert_close_to_oracle

decode = load_solution_module("gdn_decode")
CUDA = torch.device("cuda")   # a device object only where _arch is replaced


@pytest.fixture
def fresh_tunings(monkeypatch):
    monkeypatch.setattr(decode, "_TILE_TUNINGS", {})
    return decode._TILE_TUNINGS


def block_vs(arch, batches=(1, 4, 8, 16, 17, 32, 64, 65)):
    """Each batch size's candidate tiles' BLOCK_V, routed as on `arch`."""
    return {b: [tile[0] for tile in decode._tile_candidates(b, CUDA)] for b in batches}


def test_candidates_on_the_b200_are_the_table_tile_and_the_nearest_other_block_v(monkeypatch):
    """On sm100 every batch size gets the table's tile first and the tile of the nearest row with the other
    BLOCK_V second (the B = 5-16 row's BV4 for B >= 17; the BV8 row for B <= 16); on sm90, whose table was
    measured, and with the measuring off, the table's tile alone."""
    monkeypatch.setattr(decode, "_arch", lambda device: "sm100")
    rows = decode.TILE_TABLE["sm100"]
    assert block_vs("sm100") == {1: [4, 8], 4: [4, 8], 8: [4, 8], 16: [4, 8], 17: [8, 4], 32: [8, 4], 64: [8, 4],
                                 65: [8, 4]}
    assert decode._tile_candidates(1, CUDA) == (tuple(rows[0][1:]), tuple(rows[3][1:]))
    assert decode._tile_candidates(32, CUDA) == (tuple(rows[3][1:]), tuple(rows[2][1:]))
    monkeypatch.setattr(decode, "TILE_TUNING_ARCHES", ())
    assert all(len(tiles) == 1 for tiles in block_vs("sm100").values())
    monkeypatch.setattr(decode, "TILE_TUNING_ARCHES", ("sm100",))
    monkeypatch.setattr(decode, "_arch", lambda device: "sm90")
    assert all(len(tiles) == 1 for tiles in block_vs("sm90").values())


def test_a_table_of_one_block_v_has_nothing_to_measure(monkeypatch):
    monkeypatch.setattr(decode, "_arch", lambda device: "sm100")
    monkeypatch.setattr(decode, "TILE_TABLE", {"sm100": [(4, 4, 1, False, True, "", "", False),
                                                         (1 << 62, 4, 1, True, False, "", "", False)],
                                               "default": [(1 << 62, 8, 1, True, False, "", "", False)]})
    assert decode._tile_candidates(1, CUDA) == ((4, 1, False, True, "", "", False),)
    assert decode._tile_candidates(9, CUDA) == ((4, 1, True, False, "", "", False),)


# _tune_tile with launches that write chosen values, and a fake clock.
TILE_A = (4, 1, False, True, "", "", False)
TILE_B = (8, 1, False, False, "", "", True)


class FakeLaunches:
    """launch_into for _tune_tile: each tile writes `values[BLOCK_V]` into both outputs (or raises)."""

    def __init__(self, values):
        self.values, self.calls, self.outputs = values, [], []

    def __call__(self, tile, out, out_state):
        self.calls.append(tile[0])
        self.outputs.append((out.data_ptr(), out_state.data_ptr()))
        value = self.values[tile[0]]
        if isinstance(value, Exception):
            raise value
        out.fill_(value)
        out_state.fill_(value)


def tune(monkeypatch, values, times):
    timed = []

    def fake_time(launches, reps, device):
        timed.append(len(launches))
        for launch in launches:
            launch()
        return times[:len(launches)]

    monkeypatch.setattr(decode, "_time_tiles", fake_time)
    launches = FakeLaunches(values)
    out, state = torch.zeros(2, 1, 8, 128, dtype=torch.bfloat16), torch.zeros(2, 8, 128, 128)
    tuning = decode._tune_tile((TILE_A, TILE_B), launches, out, state)
    assert out.abs().sum() == 0 and state.abs().sum() == 0   # only scratch outputs are written
    tune.outputs = launches.outputs
    return tuning, launches.calls, timed


def test_the_other_tile_is_kept_only_where_clearly_faster(monkeypatch):
    """The table's tile stands unless the other took at most TILE_TUNING_FASTER_LIMIT times its time."""
    limit = decode.TILE_TUNING_FASTER_LIMIT
    assert 0.9 <= limit < 1.0
    tuning, calls, timed = tune(monkeypatch, {4: 1.0, 8: 1.004}, [10.0, 8.0])
    assert tuning.tile == TILE_B and tuning.times_us == (10.0, 8.0) and tuning.rejected == ()
    assert timed == [2] and calls == [4, 8, 4, 8]
    # compared from outputs of their own, then both timed into the first's (where a launch writes moves its time)
    compared, timed_into = tune.outputs[:2], tune.outputs[2:]
    assert compared[0] != compared[1] and timed_into == [compared[0], compared[0]]
    tuning, _, _ = tune(monkeypatch, {4: 1.0, 8: 1.0}, [10.0, 10.0 * limit * 0.99])
    assert tuning.tile == TILE_B
    tuning, _, _ = tune(monkeypatch, {4: 1.0, 8: 1.0}, [10.0, 10.0 * limit * 1.01])
    assert tuning.tile == TILE_A   # faster by events, but not clearly: the table's tile stands
    tuning, _, _ = tune(monkeypatch, {4: 1.0, 8: 1.0}, [10.0, 12.0])
    assert tuning.tile == TILE_A and tuning.times_us == (10.0, 12.0)


@pytest.mark.parametrize("wrong", [1.5, float("nan"), float("inf"), RuntimeError("does not compile here")],
                         ids=["off-by-half", "nan", "inf", "raises"])
def test_a_tile_that_disagrees_is_never_chosen_nor_timed(monkeypatch, wrong):
    tuning, calls, timed = tune(monkeypatch, {4: 1.0, 8: wrong}, [10.0, 0.1])
    assert tuning.tile == TILE_A and tuning.rejected == (TILE_B,) and timed == []
    assert tuning.times_us == (None, None)


def test_the_table_tile_is_the_reference(monkeypatch):
    """Its failure is run()'s: it is not swallowed."""
    with pytest.raises(RuntimeError):
        tune(monkeypatch, {4: RuntimeError("broken"), 8: 1.0}, [1.0, 1.0])


def test_agreement_is_the_contests_rule_between_the_two():
    want = torch.tensor([1.0, 100.0, 0.0])
    assert decode._outputs_agree(torch.tensor([1.0099, 100.99, 0.0099]), want)
    assert not decode._outputs_agree(torch.tensor([1.0, 101.5, 0.0]), want)       # 1.5 and 1.5%
    assert not decode._outputs_agree(torch.tensor([1.0, 100.0, 0.011]), want)     # 0.011 from 0
    assert not decode._outputs_agree(torch.tensor([1.0, float("inf"), 0.0]), want)


def oracle_check(x, out, new_state):
    cpu = {k: (v.cpu() if isinstance(v, torch.Tensor) else v) for k, v in x.items()}
    want_out, want_state = gdn_recurrence_f64(*decode_as_prefill(*list(cpu.values())[:8]), cpu["scale"])
    assert_close_to_oracle("output", out[:, 0], want_out, **OUT_TOL)
    assert_close_to_oracle("new_state", new_state, want_state, **STATE_TOL)


@pytest.mark.parametrize("with_state", [True, False])
def test_run_keeps_the_choice_for_the_batch_size(with_state, monkeypatch, fresh_tunings, device, fresh_seed):
    """run() with the table's two real tiles as candidates and a fake clock that favours the second: the
    first call launches each twice (once to compare, once timed) and then the chosen one into the real
    outputs, which are right; the second call of the batch size launches only the chosen one. A call
    without a state is measured apart (its kernel is another compilation)."""
    small, large = TILE_A, (8, 1, False, False, "", "", False)   # (the interpreter runs no inline PTX)
    monkeypatch.setattr(decode, "_tile_candidates", lambda batch, dev: (small, large))
    monkeypatch.setattr(decode, "_time_tiles", lambda launches, reps, dev: [launch() or us for launch, us in
                                                                            zip(launches, [9.0, 3.0])])
    launched = []
    real_launch = decode._launch_tile
    monkeypatch.setattr(decode, "_launch_tile", lambda tile, *args: launched.append(tile[0]) or real_launch(tile, *args))
    for call in range(2):
        x = decode_inputs(3, seeded_generator(fresh_seed + call), device=device, with_state=with_state)
        out = poisoned_like((3, 1, 8, 128), torch.bfloat16, device)
        new_state = poisoned_like((3, 8, 128, 128), torch.float32, device)
        decode.run(*x.values(), out, new_state)
        oracle_check(x, out, new_state)
        if call == 0:
            assert launched == [4, 8, 4, 8, 8]
            (key, tuning), = fresh_tunings.items()
            assert key[1:] == (3, with_state, (small, large)) and tuning.tile == large
            assert tuning.times_us == (9.0, 3.0)
            launched.clear()
    assert launched == [8]


# On a GPU: routed as a B200 would be (sm100), so both tiles are measured.
gpu = pytest.mark.skipif(not torch.cuda.is_available() or decode._on_cpu_interpreter(),
                         reason="compiled kernels on a GPU")


@gpu
@pytest.mark.parametrize("batch", [1, 8, 16, 32, 64])
def test_b200_routing_measures_both_tiles(batch, monkeypatch, fresh_tunings, fresh_seed):
    """Routed as on a B200: both tiles measured on the first call by the GPU's time (microseconds as the
    contest sees them, not the host's launch), the choice by the rule, and both calls right."""
    monkeypatch.setattr(decode, "_arch", lambda device: "sm100")
    for call in range(2):
        x = decode_inputs(batch, seeded_generator(fresh_seed + call), device="cuda")
        out = poisoned_like((batch, 1, 8, 128), torch.bfloat16, "cuda")
        new_state = poisoned_like((batch, 8, 128, 128), torch.float32, "cuda")
        decode.run(*x.values(), out, new_state)
        oracle_check(x, out, new_state)
    (tuning,) = fresh_tunings.values()
    own_us, other_us = tuning.times_us
    assert tuning.rejected == () and 0 < own_us < 40 and 0 < other_us < 40, tuning
    candidates = decode._tile_candidates(batch, CUDA)
    assert tuning.tile == (candidates[1] if other_us <= decode.TILE_TUNING_FASTER_LIMIT * own_us else candidates[0])


@gpu
def test_b200_routing_rejects_a_wrong_tile(monkeypatch, fresh_tunings, fresh_seed):
    """A BV8 launch whose state is off is never chosen, however fast: the table's tile writes the outputs."""
    monkeypatch.setattr(decode, "_arch", lambda device: "sm100")
    monkeypatch.setattr(decode, "TILE_TUNING_FASTER_LIMIT", 10.0)   # (any time would do)
    real_launch = decode._launch_tile

    def wrong_bv8(tile, *args):
        real_launch(tile, *args)
        if tile[0] == 8:
            args[-1].mul_(1.5)   # the new state

    monkeypatch.setattr(decode, "_launch_tile", wrong_bv8)
    x = decode_inputs(4, seeded_generator(fresh_seed), device="cuda")
    out = poisoned_like((4, 1, 8, 128), torch.bfloat16, "cuda")
    new_state = poisoned_like((4, 8, 128, 128), torch.float32, "cuda")
    decode.run(*x.values(), out, new_state)
    (tuning,) = fresh_tunings.values()
    assert tuning.tile[0] == 4 and tuning.rejected == (decode._tile_candidates(4, CUDA)[1],)
    oracle_check(x, out, new_state)
