"""Evaluate solutions on a dataset the way the contest does, built on flashinfer-bench's data
model, builders and input loading (flashinfer_bench.bench.utils.load_safetensors/gen_inputs).

For each workload and trial: load the inputs, run the definition's reference once, then run
every candidate solution on its own copy of the inputs into freshly allocated outputs, and
compare every element (atol = rtol = 1e-2; an element fails only when both are exceeded). Then,
on a GPU, time every candidate that passed (timing.py: CUPTI span, cold L2, median; the
contest's iteration counts; mean over `timing_trials`).

Stricter than the harness where it catches kernel bugs the harness can miss: outputs are
poisoned with NaN before the call (an element the kernel never writes shows up as non-finite),
and inputs must be unchanged after it (except for candidates marked `may_modify_inputs`, such as
FlashInfer's decode, which updates its state in place exactly as the contest baseline does).

Failures (build, run, shape, dtype, numbers) become non-PASSED traces carrying the log; they
never stop the run. Results are flashinfer-bench Traces.
"""

from __future__ import annotations

import io
import math
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Dict, Iterable, List, Optional

import torch
from flashinfer_bench import Solution, Trace, TraceSet
from flashinfer_bench.bench.config import BenchmarkConfig
from flashinfer_bench.bench.utils import compute_error_stats, gen_inputs, load_safetensors
from flashinfer_bench.compile import BuilderRegistry
from flashinfer_bench.data import (Correctness, Definition, Environment, Evaluation, EvaluationStatus,
                                   Performance, Workload)
from flashinfer_bench.utils import env_snapshot

from . import DECODE, PREFILL, __version__
from .definitions import reference_callable

# The contest's iteration counts (decode: the harness defaults; prefill: its eval command).
TIMING = {DECODE: (10, 50), PREFILL: (1, 5)}
PASSED = EvaluationStatus.PASSED


@dataclass
class Settings:
    device: str = "cuda" if torch.cuda.is_available() else "cpu"
    trials: int = 3              # correctness trials, as the contest
    atol: float = 1e-2
    rtol: float = 1e-2
    timing: bool = True          # only on a GPU
    timing_trials: int = 3       # latency = mean over trials of the median over iterations


@dataclass
class Candidate:
    solution: Solution
    timing: str = "call"         # "call": time the entry point; "split": time what the entry
                                 # module's split_for_timing(*args) returns (e.g. a kernel alone)
    may_modify_inputs: bool = False


@dataclass
class Outcome:
    status: EvaluationStatus
    max_abs: float = 0.0
    max_rel: float = 0.0
    latency_ms: Optional[float] = None
    timing_method: Optional[str] = None
    log: str = ""


def poisoned_outputs(definition: Definition, inputs: List[Any], device: str) -> List[torch.Tensor]:
    """Output tensors of the right shapes and dtypes, filled with NaN (-1 for integers)."""
    shapes = definition.get_output_shapes(definition.get_axes_values_from_inputs(inputs))
    outs = []
    for shape, dtype in zip(shapes, definition.torch_output_dtypes):
        fill = float("nan") if dtype.is_floating_point else -1
        outs.append(torch.full(shape, fill, dtype=dtype, device=device))
    return outs


def _sync(device: str) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def _copy(inputs: List[Any]) -> List[Any]:
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def compare(outputs: List[torch.Tensor], expected: List[torch.Tensor], names: List[str],
            settings: Settings) -> Outcome:
    cfg = BenchmarkConfig(atol=settings.atol, rtol=settings.rtol)
    outcome = Outcome(PASSED)
    for name, got, want in zip(names, outputs, expected):
        if tuple(got.shape) != tuple(want.shape):
            return Outcome(EvaluationStatus.INCORRECT_SHAPE, log=f"{name}: shape {tuple(got.shape)}, expected {tuple(want.shape)}")
        if got.dtype != want.dtype:
            return Outcome(EvaluationStatus.INCORRECT_DTYPE, log=f"{name}: dtype {got.dtype}, expected {want.dtype}")
        finite = torch.isfinite(got.float())
        if not finite.all():
            return Outcome(EvaluationStatus.INCORRECT_NUMERICAL, math.inf, math.inf,
                           log=f"{name}: {int((~finite).sum())} non-finite elements (NaN poison left unwritten, or inf/NaN computed)")
        abs_err, rel_err, exceeds, ratio = compute_error_stats(got, want, cfg)
        outcome.max_abs = max(outcome.max_abs, abs_err)
        outcome.max_rel = max(outcome.max_rel, rel_err)
        if exceeds:
            outcome.status = EvaluationStatus.INCORRECT_NUMERICAL
            outcome.log += f"{name}: {(1 - ratio) * got.numel():.0f} elements beyond atol/rtol (max abs {abs_err:.3g})\n"
    return outcome


def _call(candidate: Candidate, fn: Callable, definition: Definition, inputs: List[Any],
          device: str) -> List[torch.Tensor]:
    if candidate.solution.spec.destination_passing_style:
        outputs = poisoned_outputs(definition, inputs, device)
        fn(*inputs, *outputs)
    else:
        result = fn(*inputs)
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    _sync(device)
    return outputs


def _timed_callable(candidate: Candidate, fn, definition: Definition, inputs: List[Any], device: str):
    """(callable, args) for the timer, with DPS outputs allocated outside the timed call."""
    args = list(inputs)
    if candidate.solution.spec.destination_passing_style:
        args += poisoned_outputs(definition, inputs, device)
    if candidate.timing == "split":
        module = sys.modules[fn.metadata.misc["module_name"]]
        return module.split_for_timing(*args)
    return fn, args


def check_workload(definition: Definition, candidates: List[Candidate], runnables: Dict[str, Any],
                   reference_fn: Callable, trace_set_root, workload: Workload,
                   settings: Settings) -> Dict[str, Outcome]:
    """Correctness of every candidate over `settings.trials` trials, then (GPU) timing of those
    that passed. `runnables` maps solution name to its runnable, or to a build-error string."""
    names = list(definition.outputs)
    logs = {c.solution.name: io.StringIO() for c in candidates}
    outcomes: Dict[str, Outcome] = {}
    for c in candidates:
        if isinstance(runnables[c.solution.name], str):
            outcomes[c.solution.name] = Outcome(EvaluationStatus.COMPILE_ERROR, log=runnables[c.solution.name])
    live = [c for c in candidates if c.solution.name not in outcomes]
    worst = {c.solution.name: Outcome(PASSED) for c in live}
    inputs: List[Any] = []
    try:
        blobs = load_safetensors(definition, workload, trace_set_root)
        for _ in range(settings.trials):
            if all(c.solution.name in outcomes for c in live):
                break  # every candidate has failed already: no reference run is needed
            inputs = gen_inputs(definition, workload, settings.device, blobs)
            expected = list(reference_fn(*inputs))
            for c in [c for c in live if c.solution.name not in outcomes]:
                name, log = c.solution.name, logs[c.solution.name]
                mine = _copy(inputs)
                try:
                    with redirect_stdout(log), redirect_stderr(log):
                        outputs = _call(c, runnables[name], definition, mine, settings.device)
                except Exception:
                    traceback.print_exc(file=log)
                    outcomes[name] = Outcome(EvaluationStatus.RUNTIME_ERROR, log=log.getvalue())
                    continue
                changed = [n for n, a, b in zip(definition.inputs, inputs, mine)
                           if isinstance(a, torch.Tensor) and not torch.equal(a, b)]
                if changed and not c.may_modify_inputs:
                    outcomes[name] = Outcome(EvaluationStatus.RUNTIME_ERROR,
                                             log=log.getvalue() + f"the solution modified its input {changed[0]!r}")
                    continue
                trial = compare(outputs, expected, names, settings)
                if trial.status != PASSED:
                    trial.log = log.getvalue() + trial.log
                    outcomes[name] = trial
                    continue
                worst[name].max_abs = max(worst[name].max_abs, trial.max_abs)
                worst[name].max_rel = max(worst[name].max_rel, trial.max_rel)
    except Exception:  # the inputs or the reference failed: every candidate is undecided
        text = traceback.format_exc()
        return {c.solution.name: outcomes.get(c.solution.name) or
                Outcome(EvaluationStatus.RUNTIME_ERROR, log="evaluating the workload failed:\n" + text)
                for c in candidates}

    timing = settings.timing and torch.device(settings.device).type == "cuda"
    for c in live:
        name = c.solution.name
        if name in outcomes:
            continue
        outcome = worst[name]
        if timing:
            try:
                outcome.latency_ms, outcome.timing_method = time_candidate(
                    c, runnables[name], definition, inputs, settings)
            except Exception:
                traceback.print_exc(file=logs[name])
                outcomes[name] = Outcome(EvaluationStatus.RUNTIME_ERROR, log=logs[name].getvalue())
                continue
            logs[name].write(f"timing: {outcome.timing_method}, {settings.timing_trials} trials"
                             f"{', kernel only (split_for_timing)' if c.timing == 'split' else ''}\n")
        else:
            logs[name].write("not timed (no GPU): latency_ms 0 means untimed\n")
        outcome.log = logs[name].getvalue()
        outcomes[name] = outcome
    return outcomes


def time_candidate(candidate: Candidate, fn, definition: Definition, inputs: List[Any], settings: Settings):
    from .timing import time_call

    warmup, iterations = TIMING.get(definition.name, (10, 50))
    runs = []
    for _ in range(settings.timing_trials):
        timed, args = _timed_callable(candidate, fn, definition, _copy(inputs), settings.device)
        runs.append(time_call(timed, args, warmup, iterations, device=settings.device))
    return sum(r[0] for r in runs) / len(runs), runs[0][1]


def environment(device: str) -> Environment:
    """flashinfer-bench's snapshot (hardware, torch, triton, cuda) plus what else decides the
    numbers: flashinfer, flashinfer-bench, gdnkit versions and the timing method."""
    env = env_snapshot(device)
    libs = dict(env.libs)
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("flashinfer-python", "flashinfer-bench", "cupti-python"):
        try:
            libs[dist] = version(dist)
        except PackageNotFoundError:
            pass
    libs["gdnkit"] = __version__
    if torch.device(device).type == "cuda":
        from .timing import cupti_available

        libs["timing"] = "cupti" if cupti_available() else "cuda-events"
    return Environment(hardware=env.hardware, libs=libs)


def make_trace(definition: Definition, solution: Solution, workload: Workload, outcome: Outcome,
               env: Environment) -> Trace:
    correctness = None
    if outcome.status in (PASSED, EvaluationStatus.INCORRECT_NUMERICAL):
        correctness = Correctness(max_absolute_error=outcome.max_abs, max_relative_error=outcome.max_rel)
    performance = None
    if outcome.latency_ms is not None:
        performance = Performance(latency_ms=outcome.latency_ms)
    elif outcome.status == PASSED:
        # flashinfer-bench requires a performance record on PASSED; an untimed run (CPU) gets
        # latency 0, which reports read as "not timed".
        performance = Performance(latency_ms=0.0)
    evaluation = Evaluation(status=outcome.status, environment=env, timestamp=datetime.now().isoformat(),
                            log=outcome.log, correctness=correctness, performance=performance)
    return Trace(definition=definition.name, workload=workload, solution=solution.name, evaluation=evaluation)


def build_all(definition: Definition, candidates: Iterable[Candidate]) -> Dict[str, Any]:
    registry = BuilderRegistry.get_instance()
    built = {}
    for c in candidates:
        try:
            built[c.solution.name] = registry.build(definition, c.solution)
        except Exception:
            built[c.solution.name] = traceback.format_exc()
    return built


def evaluate(trace_set: TraceSet, candidates: Iterable, settings: Settings,
             workload_filter: Optional[Callable] = None,
             on_result: Optional[Callable[[Trace, Outcome], None]] = None,
             progress: bool = False) -> List[Trace]:
    """Evaluate each candidate (a Candidate, or a bare Solution) on every workload of its
    definition in `trace_set`; returns the traces in workload order."""
    candidates = [c if isinstance(c, Candidate) else Candidate(c) for c in candidates]
    env = environment(settings.device)
    traces: List[Trace] = []
    for def_name in dict.fromkeys(c.solution.definition for c in candidates):
        definition = trace_set.definitions.get(def_name)
        workloads = trace_set.workloads.get(def_name, [])
        if workload_filter:
            workloads = [w for w in workloads if workload_filter(w)]
        if definition is None or not workloads:
            continue
        mine = [c for c in candidates if c.solution.definition == def_name]
        runnables = build_all(definition, mine)
        reference_fn = reference_callable(definition)
        iterator = workloads
        if progress:
            from tqdm import tqdm

            iterator = tqdm(workloads, desc=def_name, unit="workload", file=sys.stderr)
        for wl in iterator:
            outcomes = check_workload(definition, mine, runnables, reference_fn, trace_set.root,
                                      wl.workload, settings)
            for c in mine:
                trace = make_trace(definition, c.solution, wl.workload, outcomes[c.solution.name], env)
                traces.append(trace)
                if on_result:
                    on_result(trace, outcomes[c.solution.name])
    return traces
