import math

import torch
import torch.nn.functional as F


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale):
    """Gated delta rule over packed variable-length sequences, float32, token by token.

    Shapes: q, k [T, HQ, K]; v [T, HV, V]; state [N, HV, V, K] ("k-last"); A_log, dt_bias [HV];
    a, b [T, HV]; cu_seqlens [N + 1] int64. Sequence n owns tokens cu_seqlens[n]:cu_seqlens[n+1]
    and starts from state[n] (zeros when state is None). Value head h reads q/k head
    h // (HV // HQ).

    Gates:  g_t = exp(-exp(A_log) * softplus(a_t + dt_bias)),  beta_t = sigmoid(b_t)
    Step for each token t, per value head, on the rows of S:
        S     <- g_t * S
        u     =  S @ k_t
        S     <- S + outer(beta_t * (v_t - u), k_t)
        o_t   =  scale * (S @ q_t)
    Returns output [T, HV, V] bfloat16 and new_state [N, HV, V, K] float32. A sequence with no
    tokens keeps new_state[n] = 0 (it is skipped, like the contest's reference does).
    """
    total, num_qk_heads, head_k = q.shape
    num_v_heads, head_v = v.shape[1], v.shape[2]
    num_seqs = cu_seqlens.shape[0] - 1
    if scale is None or scale == 0.0:
        scale = 1.0 / math.sqrt(head_k)
    group = num_v_heads // num_qk_heads

    g = torch.exp(-torch.exp(A_log.float()) * F.softplus(a.float() + dt_bias.float()))
    beta = torch.sigmoid(b.float())                             # [T, HV]
    q_h = q.float().repeat_interleave(group, dim=1)             # [T, HV, K]
    k_h = k.float().repeat_interleave(group, dim=1)             # [T, HV, K]
    v_h = v.float()                                             # [T, HV, V]

    output = torch.zeros(total, num_v_heads, head_v, dtype=torch.bfloat16, device=q.device)
    new_state = torch.zeros(num_seqs, num_v_heads, head_v, head_k, dtype=torch.float32, device=q.device)
    bounds = cu_seqlens.tolist()
    for n in range(num_seqs):
        start, end = bounds[n], bounds[n + 1]
        if end <= start:
            continue
        if state is None:
            S = torch.zeros(num_v_heads, head_v, head_k, dtype=torch.float32, device=q.device)
        else:
            S = state[n].float()
        for t in range(start, end):
            S = g[t, :, None, None] * S
            u = torch.einsum("hvk,hk->hv", S, k_h[t])
            S = S + (beta[t, :, None] * (v_h[t] - u))[..., None] * k_h[t, :, None, :]
            output[t] = (scale * torch.einsum("hvk,hk->hv", S, q_h[t])).to(torch.bfloat16)
        new_state[n] = S
    return output, new_state
