"""A benchmark run: our solutions and the FlashInfer baselines, side by side on one dataset,
written as a folder that `gdnkit report` turns into tables and plots.

    <run>/gdn/<definition>.jsonl   flashinfer-bench Traces (as `flashinfer-bench run` lays them out)
    <run>/workloads.json           per workload: definition, axes, sequence lengths (prefill)
    <run>/run.json                 dataset, roles (ours / baseline / strict baseline), environment
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Dict, List, Optional

import safetensors
from flashinfer_bench import Trace, TraceSet
from flashinfer_bench.data import save_jsonl_file

from . import PREFILL
from .evaluate import Candidate, Settings, environment, evaluate
from .packing import load_kernels
from .paths import project_root

BASELINE_AUTHOR = "flashinfer"


def default_configs() -> List[Path]:
    """Our solutions and the FlashInfer baselines."""
    root = project_root()
    return [root / "config.toml", root / "baselines" / "config.toml"]


def candidates(configs: List[Path]) -> List[Candidate]:
    return [Candidate(k.solution, timing=k.timing, may_modify_inputs=k.modifies_inputs)
            for config in configs for k in load_kernels(config)]


def roles(cands: List[Candidate]) -> Dict[str, Dict[str, str]]:
    """Per definition: `ours` (first non-FlashInfer solution), `baseline` (FlashInfer, timed as
    called: the contest's denominator) and `strict_baseline` (FlashInfer timed kernel-only)."""
    out: Dict[str, Dict[str, str]] = {}
    for c in cands:
        r = out.setdefault(c.solution.definition, {})
        if c.solution.author != BASELINE_AUTHOR:
            r.setdefault("ours", c.solution.name)
        elif c.timing == "split":
            r.setdefault("strict_baseline", c.solution.name)
        else:
            r.setdefault("baseline", c.solution.name)
    return out


def workload_facts(trace_set: TraceSet, traces: List[Trace]) -> Dict[str, dict]:
    """uuid -> definition, axes and, for prefill, the sequence lengths, for the workloads of
    `traces`. Only the cu_seqlens tensor of a prefill blob is read."""
    facts = {}
    for t in traces:
        wl = t.workload
        if wl.uuid in facts:
            continue
        entry = {"definition": t.definition, "axes": dict(wl.axes)}
        spec = wl.inputs.get("cu_seqlens")
        if t.definition == PREFILL and spec is not None and spec.type == "safetensors":
            with safetensors.safe_open(str(Path(trace_set.root) / spec.path), framework="pt") as blob:
                cu = blob.get_tensor(spec.tensor_key)
            entry["seqlens"] = (cu[1:] - cu[:-1]).tolist()
        facts[wl.uuid] = entry
    return facts


def run_benchmark(trace_set: TraceSet, out: Path, configs: Optional[List[Path]] = None,
                  settings: Optional[Settings] = None, definitions=None, workload_filter=None,
                  on_result=None, progress: bool = True, dataset_label: str = "") -> Path:
    configs = configs or default_configs()
    settings = settings or Settings()
    cands = [c for c in candidates(configs) if not definitions or c.solution.definition in definitions]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    traces = evaluate(trace_set, cands, settings, workload_filter=workload_filter,
                      on_result=on_result, progress=progress)
    # A run folder may be filled one definition at a time: this run replaces the traces of the
    # definitions it ran and keeps the others.
    for name in dict.fromkeys(t.definition for t in traces):
        save_jsonl_file([t for t in traces if t.definition == name], out / "gdn" / f"{name}.jsonl")
    old_facts = _read_json(out / "workloads.json")
    ran = {t.definition for t in traces}
    merged = {u: f for u, f in old_facts.items() if f["definition"] not in ran}
    merged.update(workload_facts(trace_set, traces))
    (out / "workloads.json").write_text(json.dumps(merged, indent=1) + "\n")
    env = traces[0].evaluation.environment if traces else environment(settings.device)
    info = _read_json(out / "run.json")
    info.update({
        "dataset": dataset_label or str(trace_set.root),
        "date": datetime.now().isoformat(timespec="seconds"),
        "environment": {"hardware": env.hardware, "libs": env.libs},
        "settings": {"trials": settings.trials, "timing_trials": settings.timing_trials,
                     "atol": settings.atol, "rtol": settings.rtol},
    })
    info["roles"] = {**info.get("roles", {}), **roles(cands)}
    info["solutions"] = {**info.get("solutions", {}), **{
        c.solution.name: {"author": c.solution.author, "definition": c.solution.definition, "timing": c.timing}
        for c in cands}}
    (out / "run.json").write_text(json.dumps(info, indent=1) + "\n")
    return out


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
