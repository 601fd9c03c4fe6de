"""Import the solution kernels (solution/triton/<name>.py) as plain modules, for tests and
benchmarks that call `run` directly or change a module's tile constants."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .paths import project_root

def load_kernel_module(name: str) -> ModuleType:
    """solution/triton/<name>.py, executed afresh as module `gdnkit_solution_<name>` (a new
    module object each call, so attribute changes made by one caller do not leak to another)."""
    module_name = f"gdnkit_solution_{name}"
    path = project_root() / "solution" / "triton" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
