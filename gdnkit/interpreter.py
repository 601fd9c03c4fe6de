"""Running the Triton kernels on the CPU (TRITON_INTERPRET=1), as CI and the CPU path of the
command line do.

Triton's interpreter stores bfloat16 tensors as their raw 16-bit patterns (numpy uint16) and
its `tl.dot` hands those arrays straight to `np.matmul`, so a dot on bfloat16 operands multiplies
bit patterns instead of numbers (triton-lang/triton#11584; still so in Triton 3.6). float16
and float32 operands are right. `bf16_dot_fix()` patches the interpreter's dot to widen
bfloat16 operands to float32 first, which is exact (every bfloat16 is a float32) and is what the
GPU's tensor cores compute with float32 accumulation. It changes nothing the GPU runs: it
touches only the interpreter's builder, and only while active.

The interpreter is also slow where a kernel calls `@triton.jit` helpers: every helper call
re-patches `triton.language` for interpretation (`inspect.getmembers` over the language, its
tensor class and its math module), although the launch in progress patched those very modules
before its first program and keeps them patched until its last. Our prefill kernels call
helpers in every chunk step: one fused-kernel launch of four sequences (25 tokens) took 35 s on
this 2-core machine without the fix and 16 s with it, with bit-identical results.
`install_helper_call_fix()` skips the repeated patching inside a launch whose patches already
cover the helper's modules; a helper called outside such a launch is patched as before.
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


_MODULES_OF = {}   # function -> its language modules (a module's imports do not change)


def _language_modules(fn) -> frozenset:
    """The language modules the interpreter patches for `fn`: triton.language and
    triton.language.core where the function's module names them (as _patch_lang finds them)."""
    if fn not in _MODULES_OF:
        import inspect

        import triton.language as tl

        _MODULES_OF[fn] = frozenset(id(value) for value in fn.__globals__.values()
                                    if inspect.ismodule(value) and value in (tl, tl.core))
    return _MODULES_OF[fn]


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
def _fix_set(installed, install, uninstall, enabled: bool):
    """A fix installed (or, with enabled=False, not installed) inside; as it was after."""
    was = installed()
    (install if enabled else uninstall)()
    try:
        yield
    finally:
        (install if was else uninstall)()


def bf16_dot_fix(enabled: bool = True):
    """Context manager: the fix is active inside (or, with enabled=False, inactive inside)."""
    return _fix_set(bf16_dot_fix_installed, install_bf16_dot_fix, uninstall_bf16_dot_fix, enabled)


# Language modules patched by the grid launch in progress (innermost last).
_LAUNCH_PATCHES: list = []


def helper_call_fix_installed() -> bool:
    from triton.runtime import interpreter

    return getattr(interpreter.InterpretedFunction.__call__, "_gdnkit_helper_fix", False)


def install_helper_call_fix() -> None:
    """Patch the interpreter so that a helper called inside a launch reuses the launch's patches
    of triton.language (idempotent). Results are the same: the skipped patching would set the
    same members to the same interpreted forms."""
    from triton.runtime import interpreter

    if helper_call_fix_installed():
        return
    grid_call = interpreter.GridExecutor.__call__
    helper_call = interpreter.InterpretedFunction.__call__

    def launch(self, *args, **kwargs):
        # GridExecutor.__call__ patches the modules of self.fn before its first program and
        # restores them after its last
        _LAUNCH_PATCHES.append(_language_modules(self.fn))
        try:
            return grid_call(self, *args, **kwargs)
        finally:
            _LAUNCH_PATCHES.pop()

    def call(self, *args, **kwargs):
        modules = _language_modules(self.fn)
        if not (_LAUNCH_PATCHES and modules <= _LAUNCH_PATCHES[-1]):
            if _LAUNCH_PATCHES:
                # (Triton's own helpers name triton.language.core, which a kernel that names only
                # triton.language leaves unpatched.) The interpreter never restores a helper
                # call's patches, so they hold for the rest of the launch too.
                _LAUNCH_PATCHES[-1] = _LAUNCH_PATCHES[-1] | modules
            return helper_call(self, *args, **kwargs)
        fn = self.rewrite()       # as InterpretedFunction.__call__, less its _patch_lang
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise interpreter.InterpreterError(repr(e)) from e

    launch._gdnkit_original = grid_call
    call._gdnkit_original = helper_call
    call._gdnkit_helper_fix = True
    interpreter.GridExecutor.__call__ = launch
    interpreter.InterpretedFunction.__call__ = call


def uninstall_helper_call_fix() -> None:
    from triton.runtime import interpreter

    if helper_call_fix_installed():
        interpreter.GridExecutor.__call__ = interpreter.GridExecutor.__call__._gdnkit_original
        interpreter.InterpretedFunction.__call__ = interpreter.InterpretedFunction.__call__._gdnkit_original


def helper_call_fix(enabled: bool = True):
    """Context manager: the helper-call fix is active inside (or, with enabled=False, inactive)."""
    return _fix_set(helper_call_fix_installed, install_helper_call_fix, uninstall_helper_call_fix, enabled)


def install_interpreter_fixes() -> None:
    """Both fixes, for good: what the CPU test suite and the command line's CPU path use."""
    install_bf16_dot_fix()
    install_helper_call_fix()
