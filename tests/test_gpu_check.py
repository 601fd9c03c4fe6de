"""benchmarks/gpu_check.py's variant syntax: "KNOB=value,KNOB=value" sets module-level knobs of a kernel
file, each value read in the type of the knob's current value. A value that does not fit its type is an
error, not a silently different variant (session 42: a boolean knob read '2' as True)."""

import types

import pytest

from helpers import load_benchmark


@pytest.fixture(scope="module")
def gc():
    """benchmarks/gpu_check.py, loaded once for this file's tests."""
    return load_benchmark("gpu_check")


def _kernel_file():
    return types.SimpleNamespace(FLAG=False, COUNT=3, RATE=0.5, ARCHES=("sm90",), PRECISION="tf32", NOTHING=None)


def test_variants_parse_to_their_knobs_types(gc):
    module = _kernel_file()
    defaults = dict(vars(module))
    gc.apply_knobs(module, "FLAG=1,COUNT=432,RATE=2,ARCHES=sm90+sm100,PRECISION=ieee", defaults)
    assert (module.FLAG, module.COUNT, module.RATE, module.ARCHES, module.PRECISION) == \
        (True, 432, 2.0, ("sm90", "sm100"), "ieee")
    assert type(module.COUNT) is int and type(module.RATE) is float
    # each variant starts from the defaults again
    gc.apply_knobs(module, "FLAG=true,ARCHES=", defaults)
    assert (module.FLAG, module.COUNT, module.ARCHES) == (True, 3, ())
    gc.apply_knobs(module, "", defaults)
    assert vars(module) == defaults
    assert gc.parse_variants("default;FLAG=0;COUNT=1,RATE=1") == ["", "FLAG=0", "COUNT=1,RATE=1"]


@pytest.mark.parametrize("variant, message", [
    ("FLAG=2", "FLAG is a boolean"),          # once read as True
    ("FLAG=yes", "FLAG is a boolean"),
    ("NOTHING=1", "NOTHING holds a NoneType"),
])
def test_values_that_do_not_fit_their_knob_are_errors(gc, variant, message):
    module = _kernel_file()
    with pytest.raises(ValueError, match=message):
        gc.apply_knobs(module, variant, dict(vars(module)))


def test_an_int_knob_takes_integers_only(gc):
    module = _kernel_file()
    with pytest.raises(ValueError):
        gc.apply_knobs(module, "COUNT=1.5", dict(vars(module)))


def test_the_decode_tile_variant_sets_every_field_of_a_row(gc):
    """TILE=BVxWxSEQ[xLOG[xLOADxSTORE[xPREFETCH_V]]]: one decode table row for every batch size; the eviction
    policies as first, last or - (the default), both or neither; anything else is an error."""
    assert gc.decode_tile("8x1x0") == (8, 1, False, False, "", "", False)
    assert gc.decode_tile("4x1x0x1") == (4, 1, False, True, "", "", False)
    assert gc.decode_tile("4x1x0x1xfirstxlast") == (4, 1, False, True, "evict_first", "evict_last", False)
    assert gc.decode_tile("8x1x0x0x-x-x1") == (8, 1, False, False, "", "", True)
    module = types.SimpleNamespace(TILE_TABLE={})
    gc.apply_knobs(module, "TILE=4x1x0x1xfirstx-", {})
    assert module.TILE_TABLE["sm90"] == [(1 << 62, 4, 1, False, True, "evict_first", "", False)]
    for bad in ("4x1", "4x1x0x1xfirst", "4x1x0x1xfirstxnever", "4x1x0x1x-x-x1x1"):
        with pytest.raises(ValueError, match="TILE"):
            gc.decode_tile(bad)


def test_errors_count_unwritten_elements_as_failures(gc):
    """The contest rule in gpu_check's oracle comparison: an element fails when both its absolute and its
    relative error exceed 1e-2, and every NaN or inf fails (run_prefill poisons the outputs with NaN, so an
    element a kernel leaves unwritten is a NaN). Session 55: NaN compared false and counted as passing."""
    import torch

    want = torch.tensor([1.0, -2.0, 100.0, 0.0])
    assert gc.errors(want + 1e-3, want)["fails"] == 0
    assert gc.errors(want * 1.005, want)["fails"] == 0            # within the relative tolerance
    assert gc.errors(want + torch.tensor([0, 0, 0, 0.02]), want)["fails"] == 1
    for bad in (float("nan"), float("inf")):
        got = want.clone()
        got[1] = bad
        e = gc.errors(got, want)
        assert (e["fails"], e["finite"], e["max_abs"]) == (1, False, float("inf"))


def test_the_ab_summary_averages_each_variants_rounds_against_the_first(gc):
    """Two rounds of two variants (and a variant that failed): each variant's mean over its rounds, its
    difference from the first variant's mean and its rounds' range; the failed variant is left out, a
    workload a variant did not time shows '-'."""
    entries = [
        {"variant": "", "latency_us": {"w1": 5.0, "w2": 10.0}},
        {"variant": "K=1", "latency_us": {"w1": 4.5, "w2": 10.4}},
        {"variant": "K=2", "error": "RuntimeError: no", "latency_us": {}},
        {"variant": "", "latency_us": {"w1": 5.2, "w2": 10.2}},
        {"variant": "K=1", "latency_us": {"w1": 4.7}},
    ]
    table = gc.ab_summary(entries, ["w1", "w2"], {"w1": "w1 6/1"}).splitlines()
    assert table[0] == "| workload | default (µs) | K=1 (diff) |"
    assert table[2] == "| w1 6/1 | 5.10 (5.00-5.20) | -0.50 (4.50-4.70) |"
    assert table[3] == "| w2 | 10.10 (10.00-10.20) | +0.30 (10.40-10.40) |"
    assert table[-1] == "(rounds: default 2, K=1 2)"
    assert "K=2" not in "\n".join(table)
    assert gc.ab_summary([{"variant": "", "error": "x", "latency_us": {}}], ["w1"]) == ""
    entries[1]["latency_us"] = {"w2": 10.4}
    entries[4]["latency_us"] = {"w2": 10.6}
    assert gc.ab_summary(entries, ["w1"]).splitlines()[2] == "| w1 | 5.10 (5.00-5.20) | - |"
