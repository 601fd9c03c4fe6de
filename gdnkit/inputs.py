"""Synthetic inputs for the two definitions, the recipe flashinfer-bench's GDN tests use:
q, v ~ 0.8 * randn; k = L2-normalised randn (per head); state ~ 0.01 * randn;
A_log, a, dt_bias ~ 0.05 * randn; b ~ 0.1 * randn. Deterministic for a given torch.Generator;
tensors are drawn on the CPU in a fixed order and then moved."""

from __future__ import annotations

import hashlib
import math
from typing import Dict, Optional, Sequence

import torch

from . import DECODE, PREFILL

NUM_Q_HEADS, NUM_V_HEADS, HEAD_SIZE = 4, 8, 128
DEFAULT_SCALE = 1.0 / math.sqrt(HEAD_SIZE)


def seeded_generator(*parts) -> torch.Generator:
    """A CPU generator seeded from a stable hash of `parts` (e.g. a seed and a workload uuid)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest[:8], "little") & (2**63 - 1))


def _randn(gen, shape, std, dtype):
    return (torch.randn(shape, generator=gen, dtype=torch.float32) * std).to(dtype)


def _unit_keys(gen, shape):
    k = torch.randn(shape, generator=gen, dtype=torch.float32)
    return torch.nn.functional.normalize(k, dim=-1).to(torch.bfloat16)


def _common(gen, lead, num_states, with_state):
    bf16, f32 = torch.bfloat16, torch.float32
    t = {
        "q": _randn(gen, (*lead, NUM_Q_HEADS, HEAD_SIZE), 0.8, bf16),
        "k": _unit_keys(gen, (*lead, NUM_Q_HEADS, HEAD_SIZE)),
        "v": _randn(gen, (*lead, NUM_V_HEADS, HEAD_SIZE), 0.8, bf16),
        "state": _randn(gen, (num_states, NUM_V_HEADS, HEAD_SIZE, HEAD_SIZE), 0.01, f32),
        "A_log": _randn(gen, (NUM_V_HEADS,), 0.05, f32),
        "a": _randn(gen, (*lead, NUM_V_HEADS), 0.05, bf16),
        "dt_bias": _randn(gen, (NUM_V_HEADS,), 0.05, f32),
        "b": _randn(gen, (*lead, NUM_V_HEADS), 0.1, bf16),
    }
    if not with_state:
        t["state"] = None
    return t


def decode_inputs(batch_size: int, gen: torch.Generator, device="cpu", with_state=True) -> Dict:
    """Inputs of gdn_decode_qk4_v8_d128_k_last in definition order (tensors, then scale)."""
    t = _common(gen, (batch_size, 1), batch_size, with_state)
    t["scale"] = DEFAULT_SCALE
    return _to(t, device)


def prefill_inputs(seqlens: Sequence[int], gen: torch.Generator, device="cpu", with_state=True) -> Dict:
    """Inputs of gdn_prefill_qk4_v8_d128_k_last in definition order for sequences of the
    given lengths (zeros allowed), packed in that order."""
    lens = torch.tensor([0, *seqlens], dtype=torch.int64)
    t = _common(gen, (int(lens.sum()),), len(seqlens), with_state)
    cu = torch.cumsum(lens, 0)
    ordered = {name: t[name] for name in ("q", "k", "v", "state", "A_log", "a", "dt_bias", "b")}
    ordered["cu_seqlens"] = cu
    ordered["scale"] = DEFAULT_SCALE
    return _to(ordered, device)


def inputs_for(definition: str, gen: torch.Generator, *, batch_size: Optional[int] = None,
               seqlens: Optional[Sequence[int]] = None, device="cpu", with_state=True) -> Dict:
    if definition == DECODE:
        return decode_inputs(batch_size, gen, device, with_state)
    if definition == PREFILL:
        return prefill_inputs(seqlens, gen, device, with_state)
    raise ValueError(f"unknown definition {definition!r}")


def _to(t: Dict, device) -> Dict:
    return {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in t.items()}
