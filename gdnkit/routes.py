"""Which prefill kernel every contest workload takes on each architecture, from the kernel file's own
routing (gdn_prefill._route: the shapes and the architecture alone, so no GPU is needed), optionally
beside our latency and the strict baseline's in a run folder. It answers "which inputs does this rule
change touch?" before any device time is spent, e.g. whether a new split threshold moves a workload:

    gdnkit routes                                   # every prefill workload, sm90 and sm100
    gdnkit routes --run traces/h200-session53       # with that run's latencies
    gdnkit routes --knob CHUNKED_SPLIT_FEW_SEQS=0   # the routing with a knob changed (gpu_check's syntax)
    gdnkit routes --changed-by CHUNKED_SPLIT_FEW_SEQS=0   # only the workloads whose route that changes

The sequence splits are the contest manifest's (synthetic for prefill: the real cu_seqlens are not
public), so the longest-sequence column is ours; the route itself depends only on the total and the
sequence count.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import PREFILL
from .dataset import load_manifest
from .kernels import load_kernel_module, parse_knobs

ARCHES = ("sm90", "sm100")


def prefill_module(arch: str, knobs: Sequence[str] = ()):
    """A fresh gdn_prefill module that routes as on `arch` (compiled kernels, not the interpreter), with
    the given NAME=VALUE knobs set (gdnkit.kernels.parse_knobs: an unknown knob is a ValueError)."""
    mod = load_kernel_module("gdn_prefill")
    mod._arch = lambda device, arch=arch: arch
    mod._on_cpu_interpreter = lambda: False
    mod.GLUON_AVAILABLE = True   # as on the GPU's Triton, where the warp-role kernel is built (this machine's need not)
    for name, value in parse_knobs(knobs, [mod]).items():
        setattr(mod, name, value)
    return mod


def prefill_routes(arches: Sequence[str] = ARCHES, knobs: Sequence[str] = (),
                   manifest: Optional[Dict[str, List[dict]]] = None) -> List[dict]:
    """One row per prefill workload of the manifest: uuid, total, sequences, longest and the route label
    per architecture (as gdn_prefill._Route.label names it; "A/B" where the input's first call measures
    A, the architecture's own route, against B and keeps one of them: ROUTE_TUNING_ARCHES)."""
    manifest = manifest if manifest is not None else load_manifest()
    modules = {arch: prefill_module(arch, knobs) for arch in arches}
    rows = []
    for entry in manifest.get(PREFILL, []):
        lens = entry["seqlens"]
        row = {"uuid": entry["uuid"], "total": sum(lens), "num_seqs": len(lens), "longest": max(lens, default=0)}
        for arch, mod in modules.items():
            # where the first call measures candidates (ROUTE_TUNING_ARCHES): all of them, "A/B"
            row[arch] = "/".join(c.label for c in candidate_routes(mod, row["total"], row["num_seqs"]))
        rows.append(row)
    rows.sort(key=lambda r: (r["total"], r["num_seqs"], r["uuid"]))
    return rows


def candidate_routes(mod, total: int, num_seqs: int, device=None) -> tuple:
    """The routes run() of the gdn_prefill module `mod` chooses between for these shapes on `device`: _route's
    answer first, then any that the first call measures against it (_route_candidates; one route where none is)."""
    return mod._route_candidates(mod._route(total, num_seqs, device), total, num_seqs, device)


def route_tuning(mod, total: int, num_seqs: int, has_state: bool = True, device=None):
    """What run() of the gdn_prefill module `mod` measured on the first call of these shapes, for the
    candidates the module gives them now (a _RouteTuning: the route kept, each candidate's µs, the
    rejected), or None: no call yet, or an architecture without candidates for them."""
    candidates = candidate_routes(mod, total, num_seqs, device)
    if len(candidates) == 1:
        return None
    for key, tuning in mod._ROUTE_TUNINGS.items():   # (any device index)
        if key[1:] == (total, num_seqs, has_state, candidates):
            return tuning
    return None


def run_latencies(run_dir: Path) -> Dict[str, Dict[str, float]]:
    """{'ours': {uuid: µs}, 'baseline': ..., 'strict_baseline': ...} of the prefill definition in a run folder
    (only the roles it has, only workloads that passed)."""
    from .report import load_run
    info, _, results = load_run(Path(run_dir))
    roles = info.get("roles", {}).get(PREFILL, {})
    out = {}
    for role, solution in roles.items():
        per = results.get(PREFILL, {}).get(solution, {})
        out[role] = {u: r.latency_ms * 1000 for u, r in per.items() if r.status == "PASSED" and r.latency_ms}
    return out


def render(rows: List[dict], arches: Sequence[str], latencies: Optional[Dict[str, Dict[str, float]]] = None,
           title: str = "Prefill routes") -> str:
    """Markdown: a row per workload, then the count of workloads per route and architecture."""
    latencies = latencies or {}
    ours, strict = latencies.get("ours", {}), latencies.get("strict_baseline", {})
    head = ["workload", "T", "N", "longest"] + list(arches)
    if latencies:
        head += ["ours (µs)", "strict baseline (µs)", "speedup"]
    md = [f"# {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [f"`{r['uuid'][:8]}`", str(r["total"]), str(r["num_seqs"]), str(r["longest"])]
        cells += [r[a] for a in arches]
        if latencies:
            o, s = ours.get(r["uuid"]), strict.get(r["uuid"])
            cells += [f"{o:.2f}" if o else "-", f"{s:.2f}" if s else "-", f"{s / o:.2f}x" if o and s else "-"]
        md.append("| " + " | ".join(cells) + " |")
    md += ["", "| route | " + " | ".join(arches) + " |", "|---|" + "---|" * len(arches)]
    counts = {a: Counter(r[a] for r in rows) for a in arches}
    for label in sorted(set().union(*counts.values())):
        md.append(f"| {label} | " + " | ".join(str(counts[a].get(label, 0)) for a in arches) + " |")
    return "\n".join(md) + "\n"


def changed_rows(arches: Sequence[str], knobs: Sequence[str], changed_by: Sequence[str]) -> List[dict]:
    """The rows whose route on some architecture differs between `knobs` and `knobs` + `changed_by`,
    with both labels ('before -> after') where they differ."""
    before = prefill_routes(arches, knobs)
    after = {r["uuid"]: r for r in prefill_routes(arches, list(knobs) + list(changed_by))}
    rows = []
    for r in before:
        a = after[r["uuid"]]
        if any(r[arch] != a[arch] for arch in arches):
            rows.append({**r, **{arch: r[arch] if r[arch] == a[arch] else f"{r[arch]} -> {a[arch]}"
                                 for arch in arches}})
    return rows
