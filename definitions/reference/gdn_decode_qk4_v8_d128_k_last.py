import math

import torch
import torch.nn.functional as F


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, scale):
    """Gated delta rule, one decode step, float32 throughout.

    Shapes: q, k [B, 1, HQ, K]; v [B, 1, HV, V]; state [B, HV, V, K] ("k-last": each row
    S[v, :] runs over K); A_log, dt_bias [HV]; a, b [B, 1, HV]. Value head h reads q/k head
    h // (HV // HQ).

    Gates:  g = exp(-exp(A_log) * softplus(a + dt_bias)),  beta = sigmoid(b)
    Step, per (batch, value head), on the rows of S:
        S     <- g * S                         decay
        u     =  S @ k                         what the decayed state predicts for k  [V]
        S     <- S + outer(beta * (v - u), k)  delta-rule correction
        o     =  scale * (S @ q)               read out with the updated state
    Returns output [B, 1, HV, V] bfloat16 and new_state [B, HV, V, K] float32.
    """
    batch, _, num_qk_heads, head_k = q.shape
    num_v_heads = v.shape[2]
    if scale is None or scale == 0.0:
        scale = 1.0 / math.sqrt(head_k)
    group = num_v_heads // num_qk_heads

    g = torch.exp(-torch.exp(A_log.float()) * F.softplus(a[:, 0].float() + dt_bias.float()))
    beta = torch.sigmoid(b[:, 0].float())                       # [B, HV]
    q_h = q[:, 0].float().repeat_interleave(group, dim=1)       # [B, HV, K]
    k_h = k[:, 0].float().repeat_interleave(group, dim=1)       # [B, HV, K]
    v_h = v[:, 0].float()                                       # [B, HV, V]

    if state is None:
        S = torch.zeros(batch, num_v_heads, v.shape[3], head_k, dtype=torch.float32, device=q.device)
    else:
        S = state.float()

    S = g[..., None, None] * S
    u = torch.einsum("bhvk,bhk->bhv", S, k_h)
    S = S + (beta[..., None] * (v_h - u))[..., None] * k_h[..., None, :]
    o = scale * torch.einsum("bhvk,bhk->bhv", S, q_h)
    return o.unsqueeze(1).to(torch.bfloat16), S
