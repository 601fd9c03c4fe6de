"""benchmarks/arch_rehearsal.py and gpu_check's ARCH=... pseudo-knob: the kernel files routed as on
another architecture, on whatever device runs them. Host logic only (no kernel is launched), so the
labels are checked on the CPU; the rehearsal itself needs a GPU."""

import pytest
import torch

from gdnkit.kernels import load_kernel_module
from helpers import load_benchmark


@pytest.fixture(scope="module")
def rehearsal():
    return load_benchmark("arch_rehearsal")


@pytest.fixture
def prefill():
    mod = load_kernel_module("gdn_prefill")
    mod._on_cpu_interpreter = lambda: False   # route as compiled kernels would (the interpreter has no Gluon)
    return mod


CUDA = torch.device("cuda")   # a device object only: _arch is replaced, so nothing asks the driver


def routes(rehearsal, mod, arch, shapes):
    rehearsal.gc.apply_knobs(mod, f"ARCH={arch}", rehearsal.gc.knob_defaults(mod))
    return {shape: rehearsal.prefill_route(mod, *shape, CUDA) for shape in shapes}


SHAPES = [(6, 1), (16, 1), (18, 1), (46, 2), (82, 3), (300, 1), (3000, 1), (983, 2), (1800, 3), (8192, 56)]


def test_the_b200_routing_has_none_of_the_sm90_only_paths(rehearsal, prefill):
    """Only as candidates that each shape's first call measures (ROUTE_TUNING_ARCHES): the warp-role
    kernel and split launches; wide tiles not at all."""
    sm100 = routes(rehearsal, prefill, "sm100", SHAPES)
    assert not any(label in ("warp-roles", "chunked-long+split") or "+wide" in label for label in sm100.values()), sm100
    assert sm100[(6, 1)] == "recurrent" and sm100[(16, 1)] == "fused/warp-roles (unmeasured)"
    assert sm100[(18, 1)] == sm100[(300, 1)] == sm100[(46, 2)] == sm100[(82, 3)] == \
        "chunked-short/warp-roles (unmeasured)"
    # many short sequences of the 64-token configuration run lean there (no split to take them)
    assert sm100[(8192, 56)] == "chunked-long+lean"
    assert sm100[(983, 2)] == sm100[(3000, 1)] == "chunked-long/chunked-long+split (unmeasured)"


def test_the_b200_routing_labels_what_the_first_call_kept(rehearsal, prefill):
    routes(rehearsal, prefill, "sm100", SHAPES)
    route = prefill._route(18, 1, CUDA)
    candidates = prefill._route_candidates(route, 18, 1, CUDA)
    prefill._ROUTE_TUNINGS[(0, 18, 1, True, candidates)] = prefill._RouteTuning(
        candidates[1], (("chunked-short", 5.6), ("warp-roles", 4.1)), ())
    assert rehearsal.prefill_route(prefill, 18, 1, CUDA) == "warp-roles (measured)"
    assert rehearsal.prefill_route(prefill, 18, 1, CUDA, has_state=False) == "chunked-short/warp-roles (unmeasured)"
    # on a real B200 (no ARCH= knob) _arch reads the device it is given: the label's lookup must pass it on
    prefill._arch = lambda device: {"cuda": "sm100"}[device.type]
    assert rehearsal.prefill_route(prefill, 18, 1, CUDA) == "warp-roles (measured)"
    rehearsal.gc.apply_knobs(prefill, "ARCH=sm100", rehearsal.gc.knob_defaults(prefill))   # a variant starts afresh
    assert rehearsal.prefill_route(prefill, 18, 1, CUDA) == "chunked-short/warp-roles (unmeasured)"


def test_the_h200_routing_takes_them(rehearsal, prefill):
    sm90 = routes(rehearsal, prefill, "sm90", SHAPES)
    assert sm90[(18, 1)] == sm90[(46, 2)] == sm90[(82, 3)] == sm90[(300, 1)] == "warp-roles"
    assert sm90[(3000, 1)] == "chunked-long+split" and sm90[(8192, 56)] == "chunked-long+split+wide"
    assert sm90[(6, 1)] == "recurrent" and sm90[(16, 1)] == "warp-roles"


def test_the_arch_knob_is_undone_by_the_next_variant(rehearsal, prefill):
    gc = rehearsal.gc
    defaults = gc.knob_defaults(prefill)
    own = prefill._arch
    gc.apply_knobs(prefill, "ARCH=sm100", defaults)
    assert prefill._arch(CUDA) == "sm100" and prefill._arch(torch.device("cpu")) == "sm100"
    gc.apply_knobs(prefill, "", defaults)
    assert prefill._arch is own and prefill._arch(torch.device("cpu")) == "default"
    with pytest.raises(ValueError, match="ARCH: sm90, sm100 or default"):
        gc.apply_knobs(prefill, "ARCH=sm80", defaults)


def test_the_decode_file_takes_the_arch_knob_too(rehearsal):
    decode = load_kernel_module("gdn_decode")
    gc = rehearsal.gc
    gc.apply_knobs(decode, "ARCH=default", gc.knob_defaults(decode))
    assert decode.tile_for(1, CUDA) == tuple(decode.TILE_TABLE["default"][0][1:])
    gc.apply_knobs(decode, "ARCH=sm100", gc.knob_defaults(decode))
    assert decode.tile_for(1, CUDA) == tuple(decode.TILE_TABLE["sm100"][0][1:])


def test_a_variant_run_twice_gets_its_own_label(rehearsal):
    assert rehearsal.variant_tags(["", "ARCH=sm100", "A=1", "ARCH=sm100", ""]) == \
        ["default", "ARCH=sm100", "A=1", "ARCH=sm100 #2", "default #2"]


def _row(uuid, total, here_us, there_us, there_passed=True):
    ok = {"fails": 0, "finite": True, "tolerance_used": 0.1, "max_abs": 1e-3}
    return {"uuid": uuid, "total": total, "num_seqs": 1, "longest": total,
            "default": {"route": "warp-roles", "us": here_us, "passed": True, "out": ok, "state": ok},
            "ARCH=sm100": {"route": "chunked-short", "us": there_us, "passed": there_passed, "out": ok, "state": ok}}


def test_the_summary_scores_each_variant_against_the_anchors(rehearsal, capsys):
    report = {"variants": ["default", "ARCH=sm100"],
              "prefill": [_row("aaaa0001-x", 18, 4.0, 5.0), _row("bbbb0002-x", 61, 5.0, 10.0, there_passed=False)]}
    anchors = {"aaaa0001": {"flashinfer_kernel_us": 8.0, "flashinfer_wrapper_us": 400.0},
               "bbbb0002": {"flashinfer_kernel_us": 4.0, "flashinfer_wrapper_us": 200.0}}
    assert rehearsal.score(report["prefill"], "default", anchors, "flashinfer_kernel_us") == (1.4, 1, 2)
    assert rehearsal.score(report["prefill"], "ARCH=sm100", anchors, "flashinfer_kernel_us") == (1.0, 1, 2)
    rehearsal.summarize(report, anchors)
    text = capsys.readouterr().out
    assert "default: passed 2/2" in text and "ARCH=sm100: passed 1/2" in text and "ARCH=sm100: FAILED" in text
    assert "kernel alone 1.400 (1/2 wins)" in text and "as the contest calls it 70.00" in text
    assert "warp-roles               -> chunked-short              2 workloads, 1.250-2.000, mean 1.625" in text
