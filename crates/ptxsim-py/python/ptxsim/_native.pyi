"""Type stubs of the Rust extension module (src/lib.rs); use it through `ptxsim`."""

from typing import Any, Optional, Sequence

__version__: str

class PtxsimError(Exception): ...
class PtxSyntaxError(PtxsimError):
    diagnostics: list[Diagnostic]
class PtxValidationError(PtxsimError):
    diagnostics: list[Diagnostic]
class UnsupportedError(PtxsimError): ...
class LaunchError(PtxsimError): ...
class ResourceError(PtxsimError): ...
class KernelFault(PtxsimError):
    kernel: str
    cta: tuple[int, int, int]
    thread: tuple[int, int, int]
    ptx_line: int
    source: Optional[str]
    instruction: str
    reason: str
    address: Optional[int]

class Diagnostic:
    file: str
    severity: str
    code: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    ptxas: str
    help: Optional[str]
    rendered: str
    def is_error(self) -> bool: ...

class Result:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    gpu: str
    persisting_l2: int
    seed: int
    warp_instructions: int
    thread_instructions: int
    cp_async_bytes: int
    threads: int
    threads_note: Optional[str]
    counters_only: Optional[str]
    registers_per_thread: int
    registers_source: str
    ctas_per_sm: int
    limited_by: list[str]
    elapsed: float
    stats: dict[str, Any]
    lines: list[dict[str, Any]]
    hazards: list[dict[str, Any]]
    def summary(self) -> str: ...
    def to_json(self) -> str: ...
    def report_json(self) -> str: ...
    def compare_ncu(self, path: Any, launch: int = 0) -> dict[str, Any]: ...
    def _repr_html_(self) -> str: ...

class Report:
    command: str
    variants: list[str]
    suggestions: list[dict[str, Any]]
    def to_json(self) -> str: ...
    def summary(self) -> str: ...
    def _repr_html_(self) -> str: ...

def compare(
    name: str,
    source: bytes,
    kernel: str,
    grid: Sequence[int],
    block: Sequence[int],
    args: Sequence[Any],
    variants: Sequence[str],
    shared: int = 0,
    gpu: str = "h100",
    seed: int = 0,
    persisting_l2: int = 0,
    registers_per_thread: Optional[int] = None,
    fmad: bool = True,
    counters_only: bool = False,
    threads: Optional[int] = None,
) -> Report: ...
def advise(
    name: str,
    source: bytes,
    kernel: str,
    grid: Sequence[int],
    block: Sequence[int],
    args: Sequence[Any],
    shared: int = 0,
    gpu: str = "h100",
    seed: int = 0,
    persisting_l2: int = 0,
    registers_per_thread: Optional[int] = None,
    fmad: bool = True,
    threads: Optional[int] = None,
) -> Report: ...

def launch(
    name: str,
    source: bytes,
    kernel: str,
    grid: Sequence[int],
    block: Sequence[int],
    args: Sequence[Any],
    shared: int = 0,
    gpu: str = "h100",
    hazards: bool = False,
    seed: int = 0,
    max_steps: Optional[int] = None,
    persisting_l2: int = 0,
    timeout: Optional[float] = None,
    threads: Optional[int] = None,
    registers_per_thread: Optional[int] = None,
    registers_source: str = "flag",
    fmad: bool = True,
    access_policy_window: Optional[str] = None,
    counters_only: bool = False,
) -> Result: ...
def check(name: str, source: bytes, target: Optional[str] = None, ptx_version: Optional[str] = None) -> list[Diagnostic]: ...
def gpu_presets() -> list[str]: ...
def kernel_params(name: str, source: bytes, kernel: str) -> list[tuple[str, str]]: ...

# Sweeps (ptxsim._sweep): a spec is JSON text plus the directory its paths are relative to.
def sweep_read_spec(path: str) -> str: ...
def sweep_plan(spec: str, dir: str, out: str, threads: int) -> tuple[int, list[int]]: ...
def sweep_describe(spec: str, dir: str, index: int) -> str: ...
def sweep_point(spec: str, dir: str, index: int) -> str: ...
def sweep_store(out: str, outcome: str) -> None: ...
def sweep_finish(spec: str, dir: str, out: str, outcomes: Sequence[Optional[str]], title: str) -> tuple[str, list[tuple[str, str]]]: ...
def sweep_local(spec: str, dir: str, out: str, jobs: int, threads: int, title: str, progress: bool) -> tuple[str, list[tuple[str, str]]]: ...
