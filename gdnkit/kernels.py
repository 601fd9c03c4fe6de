"""Import the solution kernels (solution/triton/<name>.py) as plain modules, for tests and
benchmarks that call `run` directly or change a module's tile constants, and parse a knob's value
from its text (the KNOB=value syntax of gpu_check's variants and of compile-check's --knob)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .paths import project_root

_MODULE_PREFIX = "gdnkit_solution_"


def load_kernel_module(name: str) -> ModuleType:
    """solution/triton/<name>.py, executed afresh as module `gdnkit_solution_<name>` (a new
    module object each call, so attribute changes made by one caller do not leak to another)."""
    module_name = f"{_MODULE_PREFIX}{name}"
    path = project_root() / "solution" / "triton" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def knob_value(name, current, text):
    """A knob's value from its text, in the type of its current value: a bool from 0/1/true/false, an int, a
    float, a tuple from '+'-separated items (e.g. WARP_ROLES_ARCHES=sm90+sm100; empty for none), a str.
    Anything else is an error: a boolean knob once took '2' as True and a run measured the wrong variant."""
    if isinstance(current, bool):
        flag = {"0": False, "1": True, "false": False, "true": True}.get(text.strip().lower())
        if flag is None:
            raise ValueError(f"knob {name} is a boolean: 0, 1, true or false, not {text!r}")
        return flag
    if isinstance(current, int):
        return int(text)
    if isinstance(current, float):
        return float(text)
    if isinstance(current, tuple):
        return tuple(item for item in text.split("+") if item)
    if isinstance(current, str):
        return text
    raise ValueError(f"knob {name} holds a {type(current).__name__}, which a variant cannot set")


def parse_knobs(texts, modules) -> dict:
    """['NAME=VALUE', ...] -> {NAME: value}, each value in the type of the knob's current value in the first
    of `modules` (loaded kernel files) that has it (knob_value). Raises ValueError for a malformed item, a name
    that is not an upper-case attribute of one of them (a typo would otherwise change nothing) or a value the
    knob's type refuses."""
    knobs = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"a knob is NAME=VALUE, got {text!r}")
        owner = next((m for m in modules if hasattr(m, name)), None) if name.isupper() else None
        if owner is None:
            files = " or ".join(m.__name__.removeprefix(_MODULE_PREFIX) for m in modules)
            raise ValueError(f"not a knob of {files}: {name}")
        knobs[name] = knob_value(name, getattr(owner, name), value)
    return knobs
