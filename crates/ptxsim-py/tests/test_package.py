"""The package under test is the one built into this virtual environment, not the source tree."""

import sys
import tomllib
from pathlib import Path

import ptxsim
from ptxsim import _native

from _util import REPO


def test_imported_from_the_installed_wheel():
    installed = Path(ptxsim.__file__).resolve()
    assert Path(sys.prefix).resolve() in installed.parents, (installed, sys.prefix)
    assert REPO / "crates" not in installed.parents, f"ptxsim imported from the source tree: {installed}"
    # The Rust extension, compiled for this interpreter.
    assert Path(_native.__file__).suffix == ".so"


def test_exceptions_share_one_base():
    for e in (ptxsim.PtxSyntaxError, ptxsim.PtxValidationError, ptxsim.UnsupportedError,
              ptxsim.LaunchError, ptxsim.ResourceError, ptxsim.KernelFault):
        assert issubclass(e, ptxsim.PtxsimError)
        assert e.__module__ == "ptxsim"
    assert issubclass(ptxsim.PtxsimError, Exception)


def test_version_and_presets():
    workspace = tomllib.loads((REPO / "Cargo.toml").read_text())
    assert ptxsim.__version__ == workspace["workspace"]["package"]["version"]
    assert ptxsim.GPU_PRESETS == ("a100", "h100", "b200")
