"""Where things are. gdnkit is the tooling of this repository and expects to run from a checkout
(an editable install): the definitions, solution sources and config.toml live beside it."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def project_root() -> Path:
    if not (PROJECT_ROOT / "definitions").is_dir():
        raise FileNotFoundError(
            f"gdnkit runs from a checkout of its repository; {PROJECT_ROOT}/definitions is missing "
            "(install with `pip install -e .` from the clone)"
        )
    return PROJECT_ROOT


def definitions_dir() -> Path:
    return project_root() / "definitions"


def datasets_dir() -> Path:
    """Generated datasets (synthetic mirror, embedded default, fetched copy); git-ignored."""
    return Path(os.environ.get("GDNKIT_DATASETS", project_root() / "datasets"))


def contest_dir() -> Path | None:
    """The contest reference material (../shared/contest beside the checkout, or
    $GDNKIT_CONTEST_DIR), used by tests that compare against it; None where absent."""
    env = os.environ.get("GDNKIT_CONTEST_DIR")
    path = Path(env) if env else PROJECT_ROOT.parent / "shared" / "contest"
    return path if (path / "definitions").is_dir() else None


@contextlib.contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """Yield an empty folder beside `out`; when the block succeeds it replaces `out`, when it
    fails it is removed and `out` stays as it was (so a refused or broken write leaves nothing)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        yield tmp
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
