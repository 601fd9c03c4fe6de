"""gdnkit: tooling around the Track C (Gated Delta Net) Triton solutions.

Modules: `definitions` (the two definitions and their references), `inputs` (synthetic inputs),
`oracle` (float64 recurrence), `dataset` (fetch, synth, embedded default), `packing`
(config.toml -> dist/), `evaluate` (correctness and timing of solutions), `timing` (CUPTI),
`runner` (side-by-side runs -> traces), `report` (score, win rate, tables, plots), `compare`
(two runs), `peers` (other teams' published results beside ours),
`interpreter` (running the kernels on the CPU), `kernels` (importing solution modules),
`paths`, `cli` (the `gdnkit` command).
"""

DECODE = "gdn_decode_qk4_v8_d128_k_last"
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"
DEFINITION_NAMES = (DECODE, PREFILL)

__version__ = "0.1.0"
