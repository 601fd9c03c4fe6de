"""Import the solution kernels (solution/triton/<name>.py) as plain modules, for tests and
benchmarks that call `run` directly or change a module's tile constants."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .paths import project_root

DECODE_MODULE = "gdn_decode"
PREFILL_MODULE = "gdn_prefill"


def load_kernel_module(name: str, fresh: bool = True) -> ModuleType:
    """solution/triton/<name>.py as module `gdnkit_solution_<name>`; fresh=True re-executes it
    (new module object, so attribute changes made by one caller do not leak to another)."""
    module_name = f"gdnkit_solution_{name}"
    if not fresh and module_name in sys.modules:
        return sys.modules[module_name]
    path = project_root() / "solution" / "triton" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
