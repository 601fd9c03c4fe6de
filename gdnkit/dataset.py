"""Datasets in flashinfer-bench's folder layout (definitions/, workloads/, blob/, solutions/,
traces/), loadable with `TraceSet.from_path`:

- `fetch`: the real contest dataset from the Hugging Face hub (GDN files only);
- `synth`: a synthetic mirror of the contest's 54 decode and 100 prefill workloads (same uuids
  and axes; synthetic values; prefill splits from gdnkit/data/contest_workloads.json);
- `embedded_dataset`: a few small workloads that the CPU interpreter runs in seconds, built on
  first use; the default of every command.

A workload manifest (gdnkit/data/*_workloads.json) lists per definition {uuid, batch_size} for
decode and {uuid, seqlens} for prefill; `synth` turns one into a dataset.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional

import safetensors.torch
from flashinfer_bench import SafetensorsInput, Trace, TraceSet, Workload
from flashinfer_bench.data import ScalarInput

from . import DECODE, DEFINITION_NAMES, PREFILL
from .definitions import definition_path
from .inputs import DEFAULT_SCALE, inputs_for, seeded_generator
from .paths import datasets_dir, staged_folder

HF_DATASET = "flashinfer-ai/mlsys26-contest"
DATA_DIR = Path(__file__).resolve().parent / "data"
CONTEST_MANIFEST = DATA_DIR / "contest_workloads.json"
EMBEDDED_MANIFEST = DATA_DIR / "embedded_workloads.json"
STAMP = "gdnkit_dataset.json"
# Bump when synth writes different bytes for the same manifest and seed.
SYNTH_VERSION = 1


class DatasetError(RuntimeError):
    """A dataset cannot be fetched, generated or loaded; the message says what to do."""


# ----------------------------------------------------------------------------- manifests

def load_manifest(path: Path = CONTEST_MANIFEST) -> Dict[str, List[dict]]:
    data = json.loads(Path(path).read_text())
    return {name: data[name] for name in DEFINITION_NAMES if name in data}


def workload_axes(definition: str, entry: dict) -> Dict[str, int]:
    if definition == DECODE:
        return {"batch_size": int(entry["batch_size"])}
    lens = entry["seqlens"]
    return {"total_seq_len": int(sum(lens)), "num_seqs": len(lens), "len_cu_seqlens": len(lens) + 1}


def manifest_from_contest(contest: Path) -> Dict[str, List[dict]]:
    """The manifest that the contest folder (../shared/contest) implies: its workload list
    (uuids, axes) and its synthetic prefill splits. Tests compare it with CONTEST_MANIFEST."""
    seqlens = json.loads((contest / "workloads" / f"{PREFILL}.seqlens.json").read_text())
    out: Dict[str, List[dict]] = {}
    for name in DEFINITION_NAMES:
        entries = []
        for line in (contest / "workloads" / f"{name}.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            wl = json.loads(line)["workload"]
            if name == DECODE:
                entries.append({"uuid": wl["uuid"], "batch_size": wl["axes"]["batch_size"]})
            else:
                entries.append({"uuid": wl["uuid"], "seqlens": seqlens[wl["uuid"]]})
        out[name] = entries
    return out


# ----------------------------------------------------------------------------- synth

def blob_relpath(definition: str, uuid: str) -> str:
    return f"blob/workloads/gdn/{definition}/{definition}_{uuid}.safetensors"


def _workload_trace(definition: str, entry: dict, blob: str) -> Trace:
    names = ["q", "k", "v", "state", "A_log", "a", "dt_bias", "b"]
    if definition == PREFILL:
        names.append("cu_seqlens")
    inputs = {n: SafetensorsInput(path=f"./{blob}", tensor_key=n) for n in names}
    inputs["scale"] = ScalarInput(value=DEFAULT_SCALE)
    workload = Workload(axes=workload_axes(definition, entry), inputs=inputs, uuid=entry["uuid"])
    return Trace(definition=definition, workload=workload)


def synth(
    out: Path,
    manifest: Optional[Dict[str, List[dict]]] = None,
    seed: int = 0,
    definitions: Iterable[str] = DEFINITION_NAMES,
    progress: Optional[Callable[[str], None]] = None,
    blobs: bool = True,
) -> Path:
    """Write a dataset for `manifest` (default: the contest mirror) to `out`, replacing what
    was there. Values are a pure function of (seed, uuid): the same call writes the same bytes.
    blobs=False writes the definitions and workload list only (inputs cannot be loaded)."""
    manifest = load_manifest() if manifest is None else manifest
    out = Path(out)
    definitions = [d for d in definitions if d in manifest]
    with staged_folder(out) as tmp:
        for name in definitions:
            (tmp / "definitions" / "gdn").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(definition_path(name), tmp / "definitions" / "gdn" / f"{name}.json")
            lines = []
            for i, entry in enumerate(manifest[name]):
                blob = blob_relpath(name, entry["uuid"])
                if blobs:
                    gen = seeded_generator(seed, entry["uuid"])
                    tensors = inputs_for(name, gen, batch_size=entry.get("batch_size"), seqlens=entry.get("seqlens"))
                    (tmp / blob).parent.mkdir(parents=True, exist_ok=True)
                    safetensors.torch.save_file(
                        {k: v.contiguous() for k, v in tensors.items() if k != "scale"}, str(tmp / blob)
                    )
                lines.append(_workload_trace(name, entry, blob).model_dump_json(exclude_none=False))
                if progress:
                    progress(f"{name} {i + 1}/{len(manifest[name])}")
            (tmp / "workloads" / "gdn").mkdir(parents=True, exist_ok=True)
            (tmp / "workloads" / "gdn" / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        stamp = {"kind": "synthetic" if blobs else "listing", "seed": seed, "synth_version": SYNTH_VERSION,
                 "manifest_sha256": _manifest_digest(manifest, definitions)}
        (tmp / STAMP).write_text(json.dumps(stamp, indent=2) + "\n")
    return out


def _manifest_digest(manifest, definitions) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({d: manifest[d] for d in definitions}, sort_keys=True).encode())
    for d in definitions:
        h.update(definition_path(d).read_bytes())
    return h.hexdigest()


def embedded_dataset(root: Optional[Path] = None) -> Path:
    """The embedded default dataset, (re)built when missing or out of date."""
    path = Path(root) if root else datasets_dir() / "embedded"
    manifest = load_manifest(EMBEDDED_MANIFEST)
    want = {"kind": "synthetic", "seed": 0, "synth_version": SYNTH_VERSION,
            "manifest_sha256": _manifest_digest(manifest, list(manifest))}
    try:
        have = json.loads((path / STAMP).read_text())
    except (OSError, ValueError):
        have = None
    if have != want:
        synth(path, manifest, seed=0)
    return path


def add_solutions(dataset: Path, configs: List[Path]) -> List[Path]:
    """Write the solutions of `configs` into dataset/solutions/<author>/<definition>/<name>.json,
    so that `flashinfer-bench run --local <dataset>` evaluates them. Kernel-only timing variants
    (timing = "split") are left out: flashinfer-bench would time their whole entry point."""
    from .packing import load_kernels

    written = []
    for config in configs:
        for kernel in load_kernels(config):
            if kernel.timing != "call":
                continue
            s = kernel.solution
            path = Path(dataset) / "solutions" / s.author / s.definition / f"{s.name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(s.model_dump_json(indent=2) + "\n")
            written.append(path)
    return written


# ----------------------------------------------------------------------------- fetch

def fetch_patterns() -> List[str]:
    """Files of the GDN definitions in the contest dataset (definitions, workloads, baseline
    solutions and blobs); fnmatch patterns, `*` also matches `/`."""
    return [f"{folder}/*{name}*" for folder in ("definitions", "workloads", "solutions", "blob")
            for name in DEFINITION_NAMES]


def fetch(out: Optional[Path] = None, revision: Optional[str] = None) -> Path:
    """Download the GDN part of the contest dataset into `out` (default datasets/contest)."""
    import huggingface_hub

    out = Path(out) if out else datasets_dir() / "contest"
    try:
        path = huggingface_hub.snapshot_download(
            repo_id=HF_DATASET, repo_type="dataset", revision=revision,
            local_dir=str(out), allow_patterns=fetch_patterns(),
        )
    except Exception as exc:  # offline, gated, rate-limited, disk full, ...
        raise DatasetError(
            f"could not download the contest dataset {HF_DATASET} from the Hugging Face hub into {out}:\n"
            f"  {type(exc).__name__}: {exc}\n"
            "If you have a copy (e.g. `git clone https://huggingface.co/datasets/flashinfer-ai/mlsys26-contest`), "
            "pass its folder with --dataset PATH or set GDNKIT_DATASET=PATH. Without one, "
            "`gdnkit synth` writes a synthetic mirror of the same workloads."
        ) from exc
    open_dataset(Path(path))
    return Path(path)


# ----------------------------------------------------------------------------- opening

def open_dataset(path: Path) -> TraceSet:
    """Load a dataset folder, refusing (clearly) one that is missing or holds no GDN workload.
    (TraceSet.from_path itself would create a missing folder and return it empty.)"""
    path = Path(path)
    if not path.is_dir():
        raise DatasetError(f"dataset folder {path} does not exist")
    trace_set = TraceSet.from_path(str(path))
    found = [d for d in DEFINITION_NAMES if d in trace_set.definitions and trace_set.workloads.get(d)]
    if not found:
        raise DatasetError(
            f"{path} holds no workloads of {' or '.join(DEFINITION_NAMES)} "
            "(expected definitions/**/*.json and workloads/**/*.jsonl)"
        )
    return trace_set


def resolve_dataset(arg: Optional[str]) -> Path:
    """--dataset: a folder; 'embedded' (also the default, unless GDNKIT_DATASET is set);
    'synthetic' (datasets/synthetic, written by `gdnkit synth`); 'contest' (datasets/contest,
    written by `gdnkit fetch`)."""
    arg = arg or os.environ.get("GDNKIT_DATASET") or "embedded"
    if arg == "embedded":
        return embedded_dataset()
    if arg in ("synthetic", "contest"):
        path = datasets_dir() / arg
        if not path.is_dir():
            cmd = "gdnkit synth" if arg == "synthetic" else "gdnkit fetch"
            raise DatasetError(f"{path} does not exist yet; run `{cmd}` first")
        return path
    return Path(arg)
