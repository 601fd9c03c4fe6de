"""Baseline: FlashInfer's k-last decode kernel, called as the contest's baseline wrapper calls
it (value-returning; the fp32 state is updated in place and returned as new_state)."""

import math

import torch
from flashinfer.gdn_decode import gated_delta_rule_decode_pretranspose


def run(q, k, v, state, A_log, a, dt_bias, b, scale):
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(q.shape[-1])
    batch, seq, num_v_heads, head_size = v.shape
    output = torch.empty(batch, seq, num_v_heads, head_size, dtype=q.dtype, device=q.device)
    return gated_delta_rule_decode_pretranspose(
        q=q, k=k, v=v, state=state, A_log=A_log, a=a, dt_bias=dt_bias, b=b,
        scale=scale, output=output, use_qk_l2norm=False,
    )
