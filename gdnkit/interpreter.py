"""Running the Triton kernels on the CPU (TRITON_INTERPRET=1), as CI and the CPU path of the
command line do.

Triton's interpreter stores bfloat16 tensors as their raw 16-bit patterns (numpy uint16) and
its `tl.dot` hands those arrays straight to `np.matmul`, so a dot on bfloat16 operands multiplies
bit patterns instead of numbers (triton-lang/triton#11584; still so in Triton 3.6). float16
and float32 operands are right. `bf16_dot_fix()` patches the interpreter's dot to widen
bfloat16 operands to float32 first, which is exact (every bfloat16 is a float32) and is what the
GPU's tensor cores compute with float32 accumulation. It changes nothing the GPU runs: it
touches only the interpreter's builder, and only while active.
"""

from __future__ import annotations

import contextlib
import os


def enable_interpreter() -> None:
    """Make `@triton.jit` kernels defined from now on run in the interpreter. Triton reads the
    variable when a kernel is decorated, so call this before importing kernel modules."""
    os.environ["TRITON_INTERPRET"] = "1"


def interpreter_enabled() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def _builder_class():
    from triton.runtime import interpreter

    return interpreter, interpreter.InterpreterBuilder


def _widen_bf16(interpreter, handle):
    import numpy as np
    import triton.language as tl

    if handle.dtype.scalar == tl.bfloat16:
        data = interpreter._convert_float(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
        return interpreter.TensorHandle(data, tl.float32)
    return handle


def bf16_dot_fix_installed() -> bool:
    _, builder = _builder_class()
    return getattr(builder.create_dot, "_gdnkit_bf16_fix", False)


def install_bf16_dot_fix() -> None:
    """Patch the interpreter's dot for good (idempotent)."""
    interpreter, builder = _builder_class()
    if bf16_dot_fix_installed():
        return
    original = builder.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        a = _widen_bf16(interpreter, a)
        b = _widen_bf16(interpreter, b)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot._gdnkit_bf16_fix = True
    create_dot._gdnkit_original = original
    builder.create_dot = create_dot


def uninstall_bf16_dot_fix() -> None:
    _, builder = _builder_class()
    if bf16_dot_fix_installed():
        builder.create_dot = builder.create_dot._gdnkit_original


@contextlib.contextmanager
def bf16_dot_fix(enabled: bool = True):
    """Context manager: the fix is active inside (or, with enabled=False, inactive inside)."""
    was = bf16_dot_fix_installed()
    (install_bf16_dot_fix if enabled else uninstall_bf16_dot_fix)()
    try:
        yield
    finally:
        (install_bf16_dot_fix if was else uninstall_bf16_dot_fix)()
