"""Evaluate solutions on a dataset the way the contest does, with flashinfer-bench's data model,
builders and input loading: for each workload and trial, load the inputs, run the definition's
reference, run the solution into freshly allocated outputs, and compare every element
(atol = rtol = 1e-2; an element fails only when both are exceeded). Stricter than the harness in
three ways that catch kernel bugs the harness can miss: outputs are poisoned with NaN before the
call (an element the kernel never writes shows up as non-finite), inputs are checked to be
unchanged after the call, and on the CPU the call runs under the Triton interpreter.

On a GPU each passing workload is also timed (see timing.py). Results are flashinfer-bench
Traces, so they can be written as the harness writes them.
"""

from __future__ import annotations

import io
import math
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Dict, Iterable, List, Optional

import torch
from flashinfer_bench import Solution, Trace, TraceSet
from flashinfer_bench.bench.config import BenchmarkConfig
from flashinfer_bench.bench.utils import compute_error_stats, gen_inputs, load_safetensors
from flashinfer_bench.compile import BuilderRegistry
from flashinfer_bench.data import Correctness, Definition, Evaluation, EvaluationStatus, Performance
from flashinfer_bench.utils import env_snapshot

from . import DECODE, PREFILL
from .definitions import reference_callable

# The contest's iteration counts (decode: harness defaults; prefill: its eval command).
TIMING = {DECODE: (10, 50), PREFILL: (1, 5)}


@dataclass
class Settings:
    device: str = "cuda" if torch.cuda.is_available() else "cpu"
    trials: int = 3
    atol: float = 1e-2
    rtol: float = 1e-2
    timing: bool = True          # only on a GPU
    timing_trials: int = 3


@dataclass
class Outcome:
    status: EvaluationStatus
    max_abs: float = 0.0
    max_rel: float = 0.0
    latency_ms: Optional[float] = None
    timing_method: Optional[str] = None
    log: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)


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


def compare(outputs: List[torch.Tensor], expected: List[torch.Tensor], names: List[str],
            settings: Settings) -> Outcome:
    cfg = BenchmarkConfig(atol=settings.atol, rtol=settings.rtol)
    outcome = Outcome(EvaluationStatus.PASSED)
    for name, got, want in zip(names, outputs, expected):
        if tuple(got.shape) != tuple(want.shape):
            return Outcome(EvaluationStatus.INCORRECT_SHAPE, log=f"{name}: shape {tuple(got.shape)}, expected {tuple(want.shape)}")
        if got.dtype != want.dtype:
            return Outcome(EvaluationStatus.INCORRECT_DTYPE, log=f"{name}: dtype {got.dtype}, expected {want.dtype}")
        if not torch.isfinite(got.float()).all():
            bad = int((~torch.isfinite(got.float())).sum())
            return Outcome(EvaluationStatus.INCORRECT_NUMERICAL, math.inf, math.inf,
                           log=f"{name}: {bad} non-finite elements (NaN poison left unwritten, or inf/NaN computed)")
        abs_err, rel_err, exceeds, ratio = compute_error_stats(got, want, cfg)
        outcome.max_abs = max(outcome.max_abs, abs_err)
        outcome.max_rel = max(outcome.max_rel, rel_err)
        if exceeds:
            outcome.status = EvaluationStatus.INCORRECT_NUMERICAL
            outcome.log += f"{name}: {(1 - ratio) * got.numel():.0f} elements beyond atol/rtol (max abs {abs_err:.3g})\n"
    return outcome


def check_workload(definition: Definition, solution_fn: Callable, reference_fn: Callable,
                   trace_set_root, workload, settings: Settings, dps: bool = True) -> Outcome:
    """Correctness over `settings.trials` trials, then (GPU) timing; never raises."""
    log = io.StringIO()
    names = list(definition.outputs)
    try:
        with redirect_stdout(log), redirect_stderr(log):
            blobs = load_safetensors(definition, workload, trace_set_root)
            worst = Outcome(EvaluationStatus.PASSED)
            inputs = None
            for _ in range(settings.trials):
                inputs = gen_inputs(definition, workload, settings.device, blobs)
                snapshot = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
                expected = list(reference_fn(*inputs))
                if dps:
                    outputs = poisoned_outputs(definition, inputs, settings.device)
                    solution_fn(*inputs, *outputs)
                else:
                    result = solution_fn(*inputs)
                    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
                _sync(settings.device)
                for name, before, after in zip(definition.inputs, snapshot, inputs):
                    if isinstance(before, torch.Tensor) and not torch.equal(before, after):
                        return Outcome(EvaluationStatus.RUNTIME_ERROR, log=f"the solution modified its input {name!r}")
                trial = compare(outputs, expected, names, settings)
                if trial.status != EvaluationStatus.PASSED:
                    trial.log = log.getvalue() + trial.log
                    return trial
                worst.max_abs = max(worst.max_abs, trial.max_abs)
                worst.max_rel = max(worst.max_rel, trial.max_rel)
            if settings.timing and torch.device(settings.device).type == "cuda":
                warmup, iters = TIMING.get(definition.name, (10, 50))
                args = list(inputs) + (poisoned_outputs(definition, inputs, settings.device) if dps else [])
                runs = [time_solution(solution_fn, args, warmup, iters) for _ in range(settings.timing_trials)]
                worst.latency_ms = sum(r[0] for r in runs) / len(runs)
                worst.timing_method = runs[0][1]
    except Exception:
        traceback.print_exc(file=log)
        return Outcome(EvaluationStatus.RUNTIME_ERROR, log=log.getvalue())
    worst.log = log.getvalue()
    return worst


def time_solution(fn, args, warmup, iterations):
    from .timing import time_call

    return time_call(fn, args, warmup, iterations)


def make_trace(definition: Definition, solution: Solution, workload_trace: Trace, outcome: Outcome,
               device: str) -> Trace:
    correctness = None
    if outcome.status in (EvaluationStatus.PASSED, EvaluationStatus.INCORRECT_NUMERICAL):
        correctness = Correctness(max_absolute_error=outcome.max_abs, max_relative_error=outcome.max_rel)
    performance = None
    if outcome.latency_ms is not None:
        performance = Performance(latency_ms=outcome.latency_ms)
    elif outcome.status == EvaluationStatus.PASSED:
        # flashinfer-bench requires a performance record on PASSED; an untimed run (CPU) gets
        # latency 0, which reports must read as "not timed".
        performance = Performance(latency_ms=0.0)
    evaluation = Evaluation(
        status=outcome.status, environment=env_snapshot(device), timestamp=datetime.now().isoformat(),
        log=outcome.log, correctness=correctness, performance=performance,
    )
    return Trace(definition=definition.name, workload=workload_trace.workload,
                 solution=solution.name, evaluation=evaluation)


def evaluate(trace_set: TraceSet, solutions: Iterable[Solution], settings: Settings,
             workload_filter: Optional[Callable] = None,
             on_result: Optional[Callable[[Trace, Outcome], None]] = None) -> List[Trace]:
    """Evaluate each solution on every workload of its definition in `trace_set`."""
    traces = []
    registry = BuilderRegistry.get_instance()
    for solution in solutions:
        definition = trace_set.definitions.get(solution.definition)
        workloads = trace_set.workloads.get(solution.definition, [])
        if definition is None or not workloads:
            continue
        if workload_filter:
            workloads = [w for w in workloads if workload_filter(w)]
        reference_fn = reference_callable(definition)
        try:
            runnable = registry.build(definition, solution)
            build_error = None
        except Exception:
            runnable, build_error = None, traceback.format_exc()
        for wl in workloads:
            if build_error is not None:
                outcome = Outcome(EvaluationStatus.COMPILE_ERROR, log=build_error)
            else:
                outcome = check_workload(definition, runnable, reference_fn, trace_set.root, wl.workload,
                                         settings, dps=solution.spec.destination_passing_style)
            trace = make_trace(definition, solution, wl, outcome, settings.device)
            traces.append(trace)
            if on_result:
                on_result(trace, outcome)
    return traces
