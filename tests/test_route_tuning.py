"""gdn_prefill's routes measured on an input's first call (ROUTE_TUNING_ARCHES): which inputs get
candidates, how the first call chooses between them (agreement with the architecture's own route,
then time), that run() keeps the choice for the shape, and on a GPU, routed as a B200 would be,
that the warp-role kernel and split launches are measured, chosen only where they agree, and right
against the oracle."""

import pytest
import torch

from conftest import load_solution_module, poisoned_like
from gdnkit.inputs import prefill_inputs, seeded_generator
from gdnkit.oracle import gdn_recurrence_f64
from gdnkit.routes import candidate_routes, prefill_module
from helpers import PREFILL_OUT_TOL, PREFILL_STATE_TOL, assert_close_to_oracle

prefill = load_solution_module("gdn_prefill")
CUDA = torch.device("cuda")   # a device object only where _arch is replaced


@pytest.fixture
def fresh_tunings(monkeypatch):
    monkeypatch.setattr(prefill, "_ROUTE_TUNINGS", {})
    return prefill._ROUTE_TUNINGS


def labels_of(arch, shapes, *knobs):
    """Each shape's candidate routes' labels, from a fresh module routed as on `arch` with the NAME=VALUE knobs."""
    mod = prefill_module(arch, knobs)
    return {(total, num_seqs): [r.label for r in candidate_routes(mod, total, num_seqs)] for total, num_seqs in shapes}


SHAPES = [(6, 1), (16, 1), (18, 1), (61, 1), (28, 2), (46, 2), (82, 3), (139, 3), (432, 1), (433, 1), (500, 2),
          (959, 4), (983, 2), (1000, 1), (2107, 1), (8192, 20), (8192, 56)]


def test_candidates_on_the_b200_are_its_route_and_what_the_h200_takes():
    """On sm100 every input that the warp-role kernel's shape rule takes (one or two sequences of 7-432
    tokens, three of at most 128) gets it as a second candidate beside the B200's own route, and every
    input that the split launches' shape rule takes, where the B200's route is one launch and not lean,
    gets them (in the B200's own tiles); nothing else has candidates, and on sm90, where run() takes
    both outright, nothing is measured."""
    sm100 = labels_of("sm100", SHAPES)
    assert sm100 == {(6, 1): ["recurrent"], (16, 1): ["fused", "warp-roles"], (18, 1): ["chunked-short", "warp-roles"],
                     (61, 1): ["chunked-short", "warp-roles"], (28, 2): ["fused", "warp-roles"],
                     (46, 2): ["chunked-short", "warp-roles"], (82, 3): ["chunked-short", "warp-roles"],
                     (139, 3): ["chunked-short"], (432, 1): ["chunked-short", "warp-roles"],
                     (433, 1): ["chunked-long"], (500, 2): ["chunked-long"], (959, 4): ["chunked-long"],
                     (983, 2): ["chunked-long", "chunked-long+split"], (1000, 1): ["chunked-long"],
                     (2107, 1): ["chunked-long", "chunked-long+split"],
                     (8192, 20): ["chunked-long", "chunked-long+split"], (8192, 56): ["chunked-long+lean"]}
    sm90 = labels_of("sm90", SHAPES)
    assert all(len(labels) == 1 for labels in sm90.values()) and sm90[(61, 1)] == ["warp-roles"]
    assert sm90[(8192, 20)] == ["chunked-long+split+wide"]


def test_no_candidates_when_measuring_is_off_or_the_path_already_runs():
    off = labels_of("sm100", SHAPES, "ROUTE_TUNING_ARCHES=")
    assert all(len(labels) == 1 for labels in off.values()) and off[(61, 1)] == ["chunked-short"]
    no_split = labels_of("sm100", SHAPES, "ROUTE_TUNING_SPLIT=0")
    assert no_split[(2107, 1)] == ["chunked-long"] and no_split[(61, 1)] == ["chunked-short", "warp-roles"]
    # the warp-role kernel and split launches allowed on sm100 outright: run() takes them, nothing to measure
    allowed = labels_of("sm100", SHAPES, "WARP_ROLES_ARCHES=sm90+sm100", "CHUNKED_SPLIT_ARCHES=sm90+sm100")
    assert allowed[(61, 1)] == ["warp-roles"] and allowed[(2107, 1)] == ["chunked-long+split"]
    assert all(len(labels) == 1 for labels in allowed.values())


def test_the_interpreter_measures_nothing(monkeypatch):
    """Under the CPU interpreter the warp-role kernel cannot run, so no input has a second candidate."""
    monkeypatch.setattr(prefill, "_on_cpu_interpreter", lambda: True)
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm100")
    route = prefill._route(61, 1, CUDA)
    assert prefill._route_candidates(route, 61, 1, CUDA) == (route,)


# _tune_route with launches that write chosen values, and a fake clock.
ROUTE_A = prefill._Route("chunked", "short", False, False, 16)
ROUTE_B = prefill._Route("warp-roles", "short")


class FakeLaunches:
    """launch_into for _tune_route: each route writes `values[label]` into both outputs (or raises)."""

    def __init__(self, values):
        self.values, self.calls = values, []

    def __call__(self, route, out, out_state):
        self.calls.append(route.label)
        value = self.values[route.label]
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

    monkeypatch.setattr(prefill, "_time_launches", fake_time)
    launches = FakeLaunches(values)
    out, state = torch.zeros(4, 8, 128, dtype=torch.bfloat16), torch.zeros(1, 8, 128, 128)
    tuning = prefill._tune_route((ROUTE_A, ROUTE_B), launches, out, state)
    assert out.abs().sum() == 0 and state.abs().sum() == 0   # only scratch outputs are written
    return tuning, launches.calls, timed


def test_an_agreeing_route_is_kept_unless_clearly_slower(monkeypatch):
    """The later candidate (the route that won elsewhere) is kept where it agrees and took at most
    ROUTE_TUNING_SLOWER_LIMIT times the architecture's own route's time."""
    tuning, calls, timed = tune(monkeypatch, {"chunked-short": 1.0, "warp-roles": 1.004}, [5.6, 4.1])
    assert tuning.route == ROUTE_B and tuning.times_us == (("chunked-short", 5.6), ("warp-roles", 4.1))
    assert tuning.rejected == () and timed == [2] and calls == ["chunked-short", "warp-roles"] * 2
    limit = prefill.ROUTE_TUNING_SLOWER_LIMIT
    assert 1.05 < limit < 1.5
    tuning, _, _ = tune(monkeypatch, {"chunked-short": 1.0, "warp-roles": 1.0}, [4.0, 4.0 * limit * 0.99])
    assert tuning.route == ROUTE_B   # slower by events, but not clearly: the events favour the other
    tuning, _, _ = tune(monkeypatch, {"chunked-short": 1.0, "warp-roles": 1.0}, [4.0, 4.0 * limit * 1.01])
    assert tuning.route == ROUTE_A and tuning.rejected == ()


@pytest.mark.parametrize("wrong", [1.5, float("nan"), float("inf"), RuntimeError("does not compile here")],
                         ids=["off-by-half", "nan", "inf", "raises"])
def test_a_route_that_disagrees_is_never_chosen_nor_timed(monkeypatch, wrong):
    tuning, calls, timed = tune(monkeypatch, {"chunked-short": 1.0, "warp-roles": wrong}, [5.6, 0.1])
    assert tuning.route == ROUTE_A and tuning.rejected == ("warp-roles",) and timed == []
    assert tuning.times_us == (("chunked-short", None), ("warp-roles", None))


def test_the_architectures_own_route_is_the_reference(monkeypatch):
    """Its failure is run()'s: it is not swallowed."""
    with pytest.raises(RuntimeError):
        tune(monkeypatch, {"chunked-short": RuntimeError("broken"), "warp-roles": 1.0}, [1.0, 1.0])


def test_agreement_is_the_contests_rule_between_the_two():
    want = torch.tensor([1.0, 100.0, 0.0])
    assert prefill._outputs_agree(torch.tensor([1.0099, 100.99, 0.0099]), want)
    assert not prefill._outputs_agree(torch.tensor([1.0, 101.5, 0.0]), want)       # 1.5 and 1.5%
    assert not prefill._outputs_agree(torch.tensor([1.0, 100.0, 0.011]), want)     # 0.011 from 0
    assert not prefill._outputs_agree(torch.tensor([1.0, float("nan"), 0.0]), want)


def test_run_keeps_the_choice_for_the_shape(monkeypatch, fresh_tunings, device, fresh_seed):
    """run() with two real routes as candidates (the fused kernel and the short-chunk configuration,
    both of which the interpreter runs) and a fake clock that favours the second: the first call
    launches each twice (once to compare, once timed) and then the chosen one into the real outputs,
    which are right; the second call of the shape launches only the chosen one."""
    fused = prefill._Route("fused", "fused")
    short = prefill._Route("chunked", "short", False, False, prefill.CHUNKED_SHORT_BLOCK_V)
    monkeypatch.setattr(prefill, "_route_candidates", lambda route, total, num_seqs, dev: (fused, short))
    monkeypatch.setattr(prefill, "_time_launches", lambda launches, reps, dev: [launch() or us for launch, us in
                                                                                zip(launches, [9.0, 3.0])])
    launched = []
    real_launch = prefill._launch_route
    monkeypatch.setattr(prefill, "_launch_route", lambda route, *args: launched.append(route.label)
                        or real_launch(route, *args))
    for call in range(2):
        x = prefill_inputs([3, 6], seeded_generator(fresh_seed + call), device=device)
        out = poisoned_like((9, 8, 128), torch.bfloat16, device)
        new_state = poisoned_like((2, 8, 128, 128), torch.float32, device)
        prefill.run(*x.values(), out, new_state)
        want_out, want_state = gdn_recurrence_f64(*[v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()])
        assert_close_to_oracle("output", out, want_out, **PREFILL_OUT_TOL)
        assert_close_to_oracle("new_state", new_state, want_state, **PREFILL_STATE_TOL)
        if call == 0:
            assert launched == ["fused", "chunked-short", "fused", "chunked-short", "chunked-short"]
            (key, tuning), = fresh_tunings.items()
            assert key[1:] == (9, 2, True, (fused, short)) and tuning.route == short
            assert tuning.times_us == (("fused", 9.0), ("chunked-short", 3.0))
            launched.clear()
    assert launched == ["chunked-short"]


# On a GPU: routed as a B200 would be (sm100), so the warp-role kernel is a measured candidate.
gpu = pytest.mark.skipif(not torch.cuda.is_available() or prefill._on_cpu_interpreter(),
                         reason="compiled kernels on a GPU")


@gpu
@pytest.mark.parametrize("seqlens", [[8], [16], [3, 5], [5, 5, 6], [49], [61], [1, 45], [70, 6], [30, 30, 30], [300],
                                     [600, 400, 100], [1100]], ids=str)
def test_b200_routing_measures_what_the_h200_takes(seqlens, monkeypatch, fresh_tunings, fresh_seed):
    """Routed as on a B200: the warp-role kernel or split launches measured against the B200's own route on
    the first call, the outputs of both calls right against the oracle, and the choice by the rule."""
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm100")
    x = prefill_inputs(seqlens, seeded_generator(fresh_seed), device="cuda")
    total, num_seqs = sum(seqlens), len(seqlens)
    for call in range(2):
        out = poisoned_like((total, 8, 128), torch.bfloat16, "cuda")
        new_state = poisoned_like((num_seqs, 8, 128, 128), torch.float32, "cuda")
        prefill.run(*x.values(), out, new_state)
        want_out, want_state = gdn_recurrence_f64(*[v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()])
        assert_close_to_oracle("output", out, want_out, **PREFILL_OUT_TOL)
        assert_close_to_oracle("new_state", new_state, want_state, **PREFILL_STATE_TOL)
    (tuning,) = fresh_tunings.values()
    labels = [label for label, _ in tuning.times_us]
    assert labels[1] == ("chunked-long+split" if total > 432 else "warp-roles") and tuning.rejected == ()
    (_, own_us), (_, other_us) = tuning.times_us
    assert 0 < own_us < 100 and 0 < other_us < 100, tuning   # (the GPU's time: 4-40 µs on the H200)
    kept = other_us <= prefill.ROUTE_TUNING_SLOWER_LIMIT * own_us
    assert tuning.route.label == (labels[1] if kept else labels[0]), tuning


@gpu
def test_b200_routing_rejects_a_wrong_warp_role_kernel(monkeypatch, fresh_tunings, fresh_seed):
    """A warp-role launch whose output is off is never chosen: the B200's own route writes the outputs."""
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm100")
    real_launch = prefill._launch_route

    def wrong_warp_roles(route, *args):
        real_launch(route, *args)
        if route.kernel == "warp-roles":
            args[-2].add_(0.5)   # the output

    monkeypatch.setattr(prefill, "_launch_route", wrong_warp_roles)
    x = prefill_inputs([49], seeded_generator(fresh_seed), device="cuda")
    out = poisoned_like((49, 8, 128), torch.bfloat16, "cuda")
    new_state = poisoned_like((1, 8, 128, 128), torch.float32, "cuda")
    prefill.run(*x.values(), out, new_state)
    (tuning,) = fresh_tunings.values()
    assert tuning.route.label == "chunked-short" and tuning.rejected == ("warp-roles",)
    want_out, want_state = gdn_recurrence_f64(*[v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()])
    assert_close_to_oracle("output", out, want_out, **PREFILL_OUT_TOL)
    assert_close_to_oracle("new_state", new_state, want_state, **PREFILL_STATE_TOL)


@gpu
@pytest.mark.parametrize("seqlens", [[3, 29], [25, 3], [49], [1, 45]], ids=str)
def test_the_measuring_times_the_gpu_not_the_host(seqlens, monkeypatch, fresh_tunings, fresh_seed):
    """On the H200 the contest's timing has the warp-role kernel 1.2-1.4x faster than the B200's own
    routes on these inputs (session 45; session 59's first try, whose events timed the host's launch,
    kept the fused kernel on [3, 29]): the first call must keep it, and time each route at about the
    microseconds the contest sees (under 20 µs here), not the host's launch (40-310 µs)."""
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm100")
    x = prefill_inputs(seqlens, seeded_generator(fresh_seed), device="cuda")
    total, num_seqs = sum(seqlens), len(seqlens)
    prefill.run(*x.values(), torch.empty(total, 8, 128, dtype=torch.bfloat16, device="cuda"),
                torch.empty(num_seqs, 8, 128, 128, device="cuda"))
    (tuning,) = fresh_tunings.values()
    assert tuning.route.label == "warp-roles", tuning
    assert all(us < 20 for _, us in tuning.times_us), tuning
