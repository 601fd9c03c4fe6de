"""config.toml -> dist/: the submission, one folder per kernel in the contest's layout

    dist/<kernel>/config.toml             [solution] name/definition/author, [build] language/entry_point/...
    dist/<kernel>/solution/<language>/... the sources
    dist/<kernel>/packed_solution.json    the flashinfer-bench Solution
    dist/gdnkit-submission.tar.gz         all of the above

Everything is checked before anything is written: a config naming a missing source, a
definition we do not have, or an entry point whose file or function does not exist is refused
with a clear error. Output is deterministic (sorted, fixed timestamps, no gzip mtime).
"""

from __future__ import annotations

import ast
import gzip
import io
import json
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from flashinfer_bench import BuildSpec, Solution, SourceFile

from .definitions import load_definition
from .paths import project_root, staged_folder

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ARCHIVE = "gdnkit-submission.tar.gz"
LANGUAGES = ("triton", "python", "cuda", "cpp", "tilelang")


class PackError(ValueError):
    """The config cannot be packed; nothing was written."""


@dataclass(frozen=True)
class Kernel:
    folder: str                 # dist/<folder>/
    solution: Solution
    source_dir: str             # solution/<language>
    timing: str = "call"        # evaluation only: "split" times the module's split_for_timing
    modifies_inputs: bool = False  # evaluation only: allowed to update inputs in place


def _require(table: dict, key: str, where: str, kind=str):
    if key not in table:
        raise PackError(f"{where}: missing `{key}`")
    value = table[key]
    if not isinstance(value, kind):
        raise PackError(f"{where}: `{key}` must be {kind.__name__}, got {type(value).__name__}")
    return value


def _entry_function(source: str, filename: str, function: str, where: str) -> ast.FunctionDef:
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise PackError(f"{where}: {filename} does not parse: {exc}") from exc
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return node
    raise PackError(f"{where}: entry point function `{function}` is not defined at the top level of {filename}")


def load_kernels(config: Path) -> List[Kernel]:
    """Read and check config.toml; returns one Kernel per [kernels.<folder>] table."""
    config = Path(config)
    if not config.is_file():
        raise PackError(f"config file {config} does not exist")
    try:
        data = tomllib.loads(config.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise PackError(f"{config}: not valid TOML: {exc}") from exc
    base = config.parent
    author = _require(data, "author", str(config))
    tables = _require(data, "kernels", str(config), dict)
    if not tables:
        raise PackError(f"{config}: no [kernels.<name>] tables")
    kernels, seen_names = [], set()
    for folder, table in tables.items():
        where = f"{config} [kernels.{folder}]"
        if not folder.replace("_", "").replace("-", "").isalnum():
            raise PackError(f"{where}: folder name must be letters, digits, '_' or '-'")
        name = _require(table, "name", where)
        if name in seen_names:
            raise PackError(f"{where}: solution name {name!r} is used twice")
        seen_names.add(name)
        definition = _require(table, "definition", where)
        try:
            defn = load_definition(definition)
        except (ValueError, OSError) as exc:
            raise PackError(f"{where}: definition {definition!r} is not one of ours ({exc})") from exc
        language = _require(table, "language", where)
        if language not in LANGUAGES:
            raise PackError(f"{where}: language {language!r} is not one of {', '.join(LANGUAGES)}")
        source_dir = f"solution/{language}"
        entry_point = _require(table, "entry_point", where)
        if entry_point.count("::") != 1:
            raise PackError(f"{where}: entry_point must be '<file>::<function>', got {entry_point!r}")
        entry_file, entry_fn = entry_point.split("::")
        dps = table.get("destination_passing_style", True)
        sources = []
        for rel in _require(table, "sources", where, list):
            path = (base / rel).resolve()
            try:
                inner = path.relative_to((base / source_dir).resolve())
            except ValueError:
                raise PackError(f"{where}: source {rel!r} is not under {source_dir}/") from None
            if not path.is_file():
                raise PackError(f"{where}: source {rel!r} does not exist ({path})")
            sources.append(SourceFile(path=inner.as_posix(), content=path.read_text()))
        by_path = {s.path: s for s in sources}
        if entry_file not in by_path:
            raise PackError(f"{where}: entry point file {entry_file!r} is not among the sources "
                            f"({', '.join(sorted(by_path)) or 'none'}; paths relative to {source_dir}/)")
        if entry_file.endswith(".py"):
            fn = _entry_function(by_path[entry_file].content, entry_file, entry_fn, where)
            expected = len(defn.inputs) + (len(defn.outputs) if dps else 0)
            got = len(fn.args.posonlyargs) + len(fn.args.args)
            if got != expected:
                raise PackError(f"{where}: {entry_point} takes {got} arguments; definition "
                                f"{definition} needs {expected} ({'inputs then outputs' if dps else 'inputs'})")
        try:
            solution = Solution(
                name=name, definition=definition, author=author,
                spec=BuildSpec(language=language, target_hardware=table.get("target_hardware", ["cuda"]),
                               entry_point=entry_point, dependencies=table.get("dependencies", []),
                               destination_passing_style=dps),
                sources=sources, description=table.get("description"),
            )
        except ValueError as exc:
            raise PackError(f"{where}: {exc}") from exc
        timing = table.get("timing", "call")
        if timing not in ("call", "split"):
            raise PackError(f"{where}: timing must be 'call' or 'split', got {timing!r}")
        kernels.append(Kernel(folder=folder, solution=solution, source_dir=source_dir, timing=timing,
                              modifies_inputs=bool(table.get("modifies_inputs", False))))
    return kernels


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string literal is a valid TOML basic string
    raise TypeError(value)


def kernel_config_toml(kernel: Kernel) -> str:
    """The per-kernel config.toml the contest pipeline reads."""
    s = kernel.solution
    lines = ["[solution]",
             f"name = {_toml_value(s.name)}",
             f"definition = {_toml_value(s.definition)}",
             f"author = {_toml_value(s.author)}",
             "",
             "[build]",
             f"language = {_toml_value(s.spec.language.value)}",
             f"entry_point = {_toml_value(s.spec.entry_point)}",
             f"destination_passing_style = {_toml_value(s.spec.destination_passing_style)}"]
    return "\n".join(lines) + "\n"


def _write_tree(kernels: List[Kernel], root: Path) -> List[Path]:
    files = []
    for kernel in kernels:
        folder = root / kernel.folder
        for src in kernel.solution.sources:
            dst = folder / kernel.source_dir / src.path
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(src.content)
            files.append(dst)
        (folder / "config.toml").write_text(kernel_config_toml(kernel))
        (folder / "packed_solution.json").write_text(kernel.solution.model_dump_json(indent=2) + "\n")
        files += [folder / "config.toml", folder / "packed_solution.json"]
    return sorted(files)


def _write_archive(files: List[Path], root: Path, archive: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in files:
            data = path.read_bytes()
            info = tarfile.TarInfo(path.relative_to(root).as_posix())
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    with open(archive, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0) as gz:
        gz.write(buf.getvalue())


def pack(config: Optional[Path] = None, out: Optional[Path] = None) -> Path:
    """Check `config` and write dist/ (replacing it); returns the archive path."""
    config = Path(config) if config else project_root() / "config.toml"
    out = Path(out) if out else config.parent / "dist"
    kernels = load_kernels(config)
    with staged_folder(out) as tmp:
        _write_archive(_write_tree(kernels, tmp), tmp, tmp / ARCHIVE)
    return out / ARCHIVE


