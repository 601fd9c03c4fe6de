"""An independent float64 oracle: the gated delta rule written as the plain token-by-token
recurrence on the transposed state S[K, V] (the textbook form), so it shares neither layout
nor code with the definitions' references or the kernels."""

from __future__ import annotations

import math
from typing import Optional, Tuple

import torch


def gdn_recurrence_f64(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    state: Optional[torch.Tensor],
    A_log: torch.Tensor,
    a: torch.Tensor,
    dt_bias: torch.Tensor,
    b: torch.Tensor,
    cu_seqlens: torch.Tensor,
    scale: Optional[float],
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Packed-varlen form (prefill shapes: q, k [T, HQ, K], v [T, HV, V], a, b [T, HV], state
    [N, HV, V, K]). Returns float64 output [T, HV, V] and new_state [N, HV, V, K]; an empty
    sequence gets new_state 0. Decode is the case cu_seqlens = [0, 1, ..., B]."""
    f64 = torch.float64
    T, HQ, K = q.shape
    HV, V = v.shape[1], v.shape[2]
    if not scale:
        scale = 1.0 / math.sqrt(K)
    bounds = [int(x) for x in cu_seqlens.tolist()]
    out = torch.zeros(T, HV, V, dtype=f64, device=q.device)
    new_state = torch.zeros(len(bounds) - 1, HV, V, K, dtype=f64, device=q.device)
    for n in range(len(bounds) - 1):
        if bounds[n + 1] <= bounds[n]:
            continue
        for h in range(HV):
            j = h // (HV // HQ)
            rate = math.exp(float(A_log[h]))
            # S[K, V]: column c holds what the state stores for value channel c.
            if state is None:
                S = torch.zeros(K, V, dtype=f64, device=q.device)
            else:
                S = state[n, h].to(f64).T.clone()
            for t in range(bounds[n], bounds[n + 1]):
                x = float(a[t, h]) + float(dt_bias[h])
                softplus = x if x > 20.0 else math.log1p(math.exp(x))
                g = math.exp(-rate * softplus)
                beta = 1.0 / (1.0 + math.exp(-float(b[t, h])))
                kt, qt, vt = k[t, j].to(f64), q[t, j].to(f64), v[t, h].to(f64)
                S = g * S
                S = S + beta * torch.outer(kt, vt - kt @ S)
                out[t, h] = scale * (qt @ S)
            new_state[n, h] = S.T
    return out, new_state


def decode_as_prefill(q, k, v, state, A_log, a, dt_bias, b):
    """Decode inputs ([B, 1, ...]) in the packed form of `gdn_recurrence_f64`."""
    batch = q.shape[0]
    cu = torch.arange(batch + 1, dtype=torch.int64)
    return q[:, 0], k[:, 0], v[:, 0], state, A_log, a[:, 0], dt_bias, b[:, 0], cu
