"""Prolog source shared by every built-in engine.

``zpm_proofs.pl`` holds the meta-interpreters behind ``explain_why`` and
``trace_dependency``.  The python engine compiles it into its hidden library
namespace; the SWI engines include it in their support module.  Each engine
supplies the few primitives the file lists at its top.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

PROOFS_FILE = "zpm_proofs.pl"


def source(name: str) -> str:
    """The text of the Prolog file ``name`` of this package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def path(name: str) -> Path:
    """The file ``name`` of this package on disk (the SWI engines consult it)."""
    return Path(__file__).with_name(name)
