"""ptxray from Python: NVIDIA PTX, CUDA and OpenCL kernels on a modeled GPU, exactly, with the
performance model's metrics, the sanitizers' reports and the advisor's findings.

A modeled GPU stays alive between calls, as a CUDA context does::

    import numpy as np
    import ptxray

    gpu = ptxray.Device("k20x")                      # any name `ptxray archs` lists
    saxpy = gpu.load("examples/saxpy.ptx")["saxpy"]  # .ptx, .cu (nvcc) or .cl (clang + libclc)
    x = gpu.asarray(np.arange(1 << 20, dtype=np.float32))  # a NumPy view of device memory
    y = gpu.zeros(1 << 20, np.float32)
    run = saxpy[4096, 256](1 << 20, 2.5, x, y)       # or saxpy.launch(4096, 256, ...)
    run.time                                         # the model's estimate, seconds
    run.metrics["gld_efficiency"]                    # the names of `ptxray run --metrics-json`
    run.analyze()                                    # findings; an HTML view in notebooks

Arrays from :meth:`Device.empty`, :meth:`Device.zeros` and :meth:`Device.asarray` are views of
the modeled GPU's memory: kernels and Python read and write the same bytes, with no copies. Any
other C-contiguous NumPy array passed to a kernel is copied to the device before the launch and
back after it (unless it is read-only).

Whole run specs (the JSON files of ``ptxray run``) run with :func:`run_spec`, :func:`analyze`,
:func:`compare` and :func:`timeline`; sweeps of them over GPUs and configurations with
:mod:`ptxray.sweep` (on Dask).

Errors in what Python passes are Python exceptions (``TypeError``, ``ValueError``, ``KeyError``)
naming the argument; a kernel that faults raises :class:`KernelFault` with the faults and their
CUDA source lines; a launch the driver would refuse raises :class:`LaunchRefused`.
"""

from __future__ import annotations

import html as _html
import os as _os
from typing import Any, Iterable, Sequence

import numpy as _np

from . import _core

__all__ = [
    "Device", "Module", "Kernel", "Local", "Launch", "Analysis", "Finding", "Report", "Timeline", "Comparison",
    "PtxrayError", "SpecError", "ModuleError", "LaunchError", "KernelFault", "LaunchRefused",
    "gpus", "arch", "occupancy", "run_spec", "analyze", "compare", "timeline",
]


# --- exceptions ----------------------------------------------------------------------------------------

class PtxrayError(Exception):
    """Base of ptxray's own exceptions."""


class SpecError(PtxrayError, ValueError):
    """A run spec that is malformed or does not fit its module; the message names the place in it."""


class ModuleError(PtxrayError, RuntimeError):
    """A module that does not load: PTX that does not parse or verify, a source that does not compile."""


class LaunchError(PtxrayError, RuntimeError):
    """A launch that did not complete. ``launch`` is the :class:`Launch` (its reports, its printf)."""

    launch: "Launch | None" = None


class KernelFault(LaunchError):
    """A kernel that faulted (an illegal address, a trap, a failed assert, a hang...).

    ``faults`` lists them as dicts with ``kind``, ``message``, ``file``, ``line`` (the CUDA or
    OpenCL source line, from the PTX's line information), ``block``, ``thread``, ``address`` and the
    compute-sanitizer style ``report``.
    """

    faults: list = []


class LaunchRefused(LaunchError):
    """A launch the driver would not start (too many threads, too much shared memory, ...)."""


# --- the architecture database -----------------------------------------------------------------------

def gpus() -> list[dict]:
    """Every GPU of the architecture database, as dicts (``name``, ``board``, ``cc``, ``sms``, ...)."""
    return _core.gpus()


def arch(gpu: str) -> dict:
    """The GPU or compute capability ``gpu`` names; ``ValueError`` listing the known names otherwise."""
    return _core.arch(gpu)


def occupancy(gpu: str, block: int, registers: int = 0, shared_bytes: int = 0,
              dynamic_shared_bytes: int = 0) -> dict:
    """Theoretical occupancy of a block on ``gpu`` (``ptxray occupancy``): the fraction of the SM's
    warps, active blocks and warps per SM, and the resources that limit them."""
    return _core.occupancy(gpu, block, registers, shared_bytes, dynamic_shared_bytes)


# --- results as objects ------------------------------------------------------------------------------

def _esc(value: Any) -> str:
    return _html.escape(str(value))


class Finding:
    """One finding of the advisor: ``rule``, ``priority`` (high, medium, low), ``category``,
    ``title``, ``evidence``, ``fix``, ``guide`` (the guide sections), ``gain_seconds`` and
    ``gain_fraction`` (what the time model expects the fix to save) and ``lines`` (the source lines
    it is about: dicts with ``file``, ``line``, ``evidence``, ``ptx``)."""

    def __init__(self, document: dict):
        self.document = document
        self.rule: str = document.get("rule", "")
        self.priority: str = document.get("priority", "")
        self.category: str = document.get("category", "")
        self.title: str = document.get("title", "")
        self.evidence: str = document.get("evidence", "")
        self.fix: str = document.get("fix", "")
        self.guide: str = document.get("guide", "")
        self.gain_seconds: float = document.get("gain_seconds", 0.0)
        self.gain_fraction: float = document.get("gain_fraction", 0.0)
        self.lines: list = document.get("lines", [])

    def __repr__(self) -> str:
        where = ""
        if self.lines and self.lines[0].get("file"):
            where = f" at {_os.path.basename(self.lines[0]['file'])}:{self.lines[0].get('line', 0)}"
        return f"<Finding {self.priority} {self.rule}{where}: {self.title}>"

    def _repr_html_(self) -> str:
        lines = "".join(
            f"<li><code>{_esc(_os.path.basename(l.get('file', '')))}:{_esc(l.get('line', ''))}</code> "
            f"{_esc(l.get('evidence', ''))}</li>" for l in self.lines)
        gain = f" (expected gain {self.gain_fraction:.0%})" if self.gain_fraction else ""
        return (f"<div><b>[{_esc(self.priority)}] {_esc(self.title)}</b>{_esc(gain)}"
                f"<br><i>{_esc(self.evidence)}</i><br>Fix: {_esc(self.fix)} <small>{_esc(self.guide)}</small>"
                f"<ul>{lines}</ul></div>")


class Analysis:
    """The advisor's analysis of one or more launches: ``findings`` ranked by expected gain, the
    ``document`` (schema ptxray-analysis, as ``ptxray analyze --json`` writes it), ``text`` and the
    standalone HTML report (``html``; shown inline in notebooks)."""

    def __init__(self, document: dict, html: str, text: str):
        self.document = document
        self.html = html
        self.text = text
        self.findings = [Finding(f) for a in document.get("analyses", []) for f in a.get("findings", [])]

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str) -> None:
        """Writes the report: HTML for .html/.htm, JSON for .json, else text."""
        _save(path, self.html, self.document, self.text)


class Timeline:
    """A session's copies, launches and synchronizations placed in time on the modeled host and GPU
    (``ptxray timeline``): the ``document`` (JSON), ``text`` and ``html``."""

    def __init__(self, document: dict, html: str, text: str):
        self.document = document
        self.html = html
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str) -> None:
        """Writes the timeline: HTML for .html/.htm, JSON for .json, else text."""
        _save(path, self.html, self.document, self.text)


def _save(path: str, html: str, document: Any, text: str) -> None:
    import json
    lower = path.lower()
    with open(path, "w", encoding="utf-8") as f:
        if lower.endswith((".html", ".htm")):
            f.write(html)
        elif lower.endswith(".json"):
            json.dump(document, f, indent=1)
            f.write("\n")
        else:
            f.write(text)


class Report:
    """One report of a sanitizer (racecheck, synccheck, initcheck, leakcheck, or memcheck's fault):
    ``tool``, ``severity``, ``message``, ``details``, ``sites`` (dicts with ``file``, ``line``,
    ``ptx_location``...) and the compute-sanitizer style ``report`` text."""

    def __init__(self, document: dict):
        self.document = document
        self.tool: str = document["tool"]
        self.severity: str = document["severity"]
        self.message: str = document["message"]
        self.details: list = document.get("details", [])
        self.sites: list = document.get("sites", [])
        self.report: str = document.get("report", "")
        self.kernel: str = document.get("kernel", "")

    @property
    def file(self) -> str:
        """The source file of the reporting site ("" without line information)."""
        return self.sites[0].get("file", "") if self.sites else ""

    @property
    def line(self) -> int:
        """The source line of the reporting site (0 without line information)."""
        return self.sites[0].get("line", 0) if self.sites else 0

    def __repr__(self) -> str:
        where = f" at {_os.path.basename(self.file)}:{self.line}" if self.file else ""
        return f"<Report {self.tool} {self.severity}{where}: {self.message}>"


class Launch:
    """One launch on a :class:`Device` and what the tools made of it.

    ``status`` is "success", "faulted", "assert" or "refused" (the latter three also raise, with
    this object as the exception's ``launch``). ``metrics`` maps the performance model's metric
    names (those of ``ptxray run --metrics-json``; docs/metrics.md) to numbers; ``time`` is the
    estimated duration in seconds and ``bound`` what limits it. ``reports`` are the sanitizers'.
    """

    def __init__(self, outcome: Any):
        self._outcome = outcome
        self.kernel: str = outcome.kernel
        self.grid: tuple = outcome.grid
        self.block: tuple = outcome.block
        self.status: str = outcome.status
        self.error: str = outcome.error
        self.printf: str = outcome.printf
        self.faults: list = outcome.faults
        self.reports = [Report(r) for r in outcome.reports]
        self.tool_text: str = outcome.tool_text
        self._document: dict | None = None

    @property
    def ok(self) -> bool:
        return self.status == "success"

    @property
    def document(self) -> dict | None:
        """This launch's entry of the --metrics-json document: ``metrics``, ``time``, ``lines``
        (per source line) and ``instructions`` (per PTX instruction); None without the model."""
        if self._document is None and self._outcome.has_profile:
            self._document = self._outcome.metrics_document()
        return self._document

    @property
    def metrics(self) -> dict:
        """Metric name -> value (empty without the model)."""
        return dict(self.document["metrics"]) if self.document else {}

    @property
    def time(self) -> float | None:
        """The model's estimate of the launch's duration on the GPU, in seconds."""
        return self.document["time"]["seconds"] if self.document else None

    @property
    def bound(self) -> str | None:
        """What limits the estimate: "dram", "latency", "issue", ..."""
        return self.document["time"]["bound"] if self.document else None

    @property
    def lines(self) -> list:
        """Per source line: dicts with ``file``, ``line`` and ``metrics``."""
        return self.document["lines"] if self.document else []

    def analyze(self, only: Iterable[str] = (), ignore: Iterable[str] = (),
                thresholds: Iterable[str] = (), source_dirs: Iterable[str] = ()) -> Analysis:
        """The advisor's findings on this launch (``ptxray analyze``), with the sanitizers' reports
        as correctness findings. ``only``/``ignore`` take rule names, ``thresholds`` "NAME=VALUE"."""
        r = self._outcome.analyze(list(only), list(ignore), list(thresholds), list(source_dirs))
        return Analysis(r["document"], r["html"], r["text"])

    def __repr__(self) -> str:
        t = f", {self.time * 1e6:.2f} us estimated ({self.bound})" if self.time is not None else ""
        g = "x".join(map(str, self.grid))
        b = "x".join(map(str, self.block))
        return f"<Launch {self.kernel} grid {g} block {b}: {self.status}{t}>"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td><code>{_esc(k)}</code></td><td>{v:.6g}</td></tr>"
                       for k, v in sorted(self.metrics.items()) if not k.startswith("ptxray__"))
        return f"<p>{_esc(repr(self))}</p><details><summary>metrics</summary><table>{rows}</table></details>"


# --- the modeled GPU ---------------------------------------------------------------------------------

Module = _core.Module
Kernel = _core.Kernel


class Local:
    """An OpenCL ``__local`` pointer argument: ``nbytes`` of the work-group's local memory, as
    ``clSetKernelArg(kernel, i, nbytes, NULL)`` gives (a run spec's ``{"local": nbytes}``)."""

    def __init__(self, nbytes: int):
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or not 0 < nbytes < 1 << 32:
            raise ValueError(f"Local: a positive number of bytes below 4 GiB, got {nbytes!r}")
        self._ptxray_local_bytes = nbytes

    @property
    def nbytes(self) -> int:
        return self._ptxray_local_bytes

    def __repr__(self) -> str:
        return f"ptxray.Local({self._ptxray_local_bytes})"


def _launch(self: Any, grid: Any, block: Any, *args: Any, shared: int = 0, cooperative: bool = False) -> Launch:
    """Launches the kernel on ``grid`` blocks of ``block`` threads (ints or tuples of 1 to 3) with
    ``args`` checked against its PTX parameters: Python and NumPy numbers for scalars (a NumPy
    scalar's kind and size must match), NumPy arrays (or device views) for pointers, ``bytes`` for
    structures passed by value, :class:`Local` for OpenCL ``__local`` pointers. ``shared``: dynamic
    shared memory per block, in bytes. Returns the :class:`Launch`; raises :class:`KernelFault` or :class:`LaunchRefused` when it did not complete."""
    launch = Launch(self._launch(grid, block, args, shared, cooperative))
    if launch.status == "refused":
        error = LaunchRefused(f"{launch.kernel}: launch refused: {launch.error}")
    elif launch.status != "success":
        first = launch.faults[0] if launch.faults else {}
        where = f" at {first['file']}:{first['line']}" if first.get("file") else ""
        error = KernelFault(f"{launch.kernel}: {launch.error}{where}")
        error.faults = launch.faults
    else:
        return launch
    error.launch = launch
    raise error


class _Configured:
    def __init__(self, kernel: Any, grid: Any, block: Any, shared: int):
        self.kernel, self.grid, self.block, self.shared = kernel, grid, block, shared

    def __call__(self, *args: Any) -> Launch:
        return self.kernel.launch(self.grid, self.block, *args, shared=self.shared)


def _configure(self: Any, config: tuple) -> _Configured:
    """``kernel[grid, block]`` or ``kernel[grid, block, shared]``: a launcher, as numba's."""
    if not isinstance(config, tuple) or len(config) not in (2, 3):
        raise TypeError("kernel[grid, block] or kernel[grid, block, shared_bytes]")
    return _Configured(self, config[0], config[1], config[2] if len(config) == 3 else 0)


Kernel.launch = _launch
Kernel.__getitem__ = _configure


class Device:
    """A modeled GPU, alive until the object goes: modules, memory and the tools' state persist
    across launches, as in a CUDA context.

    ``gpu``: any GPU or compute capability ``ptxray archs`` lists. ``tools``: compute-sanitizer's
    tools to run on every launch ("memcheck", "racecheck", "synccheck", "initcheck", "leakcheck").
    ``metrics``: run the performance model (the default). ``dlcm`` ("ca"/"cg"), ``bank_mode`` (4/8)
    and ``clock`` ("base", "boost" or MHz) are its settings, as on the command line. ``threads``:
    worker threads of the VM (0: every core).
    """

    def __init__(self, gpu: str = "sm_90", *, tools: Sequence[str] = (), racecheck_global: bool = False,
                 metrics: bool = True, dlcm: str = "", bank_mode: int = 0, clock: str | int = "",
                 threads: int = 0, max_instructions: int = 0):
        self._device = _core.Device(gpu, tools=list(tools), racecheck_global=racecheck_global, metrics=metrics,
                                    dlcm=dlcm, bank_mode=bank_mode, clock=str(clock), threads=threads,
                                    max_instructions=max_instructions)

    @property
    def gpu(self) -> str:
        return self._device.gpu

    def __repr__(self) -> str:
        return f"<ptxray.Device {self.gpu}>"

    def load(self, path: str | _os.PathLike, build_options: Sequence[str] | str = ()) -> Module:
        """Loads a module: a .ptx file, a .cu file (compiled with nvcc for this GPU), or a .cl file
        (OpenCL C, compiled with clang and libclc with ``build_options`` as clBuildProgram's).
        Raises :class:`ModuleError` with the diagnostics when it does not parse, verify or compile."""
        path = _os.fspath(path)
        if not _os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such file")
        if isinstance(build_options, str):
            build_options = build_options.split()
        try:
            return self._device._load(path, list(build_options))
        except (RuntimeError, ValueError) as e:
            raise ModuleError(str(e)) from None

    def load_ptx(self, text: str, name: str = "module.ptx") -> Module:
        """Loads PTX given as text (``name`` is how reports call it)."""
        try:
            return self._device._load_ptx(text, name)
        except (RuntimeError, ValueError) as e:
            raise ModuleError(str(e)) from None

    def empty(self, shape: int | Sequence[int], dtype: Any = _np.float32) -> _np.ndarray:
        """A NumPy array in device memory (a view: kernels see its writes and it sees theirs). Its
        bytes start as zero, but count as never written for initcheck until a kernel writes them
        (initcheck does not see writes from Python: fill an array with :meth:`full` or
        :meth:`asarray` when a kernel is to read what Python put there)."""
        return self._device._allocate(shape, dtype, False)

    def zeros(self, shape: int | Sequence[int], dtype: Any = _np.float32) -> _np.ndarray:
        """A zero-filled NumPy array in device memory (cudaMalloc + cudaMemset)."""
        return self._device._allocate(shape, dtype, True)

    def full(self, shape: int | Sequence[int], value: Any, dtype: Any = _np.float32) -> _np.ndarray:
        """An array in device memory filled with ``value``."""
        a = self._device._allocate(shape, dtype, True)
        a[...] = value
        return a

    def asarray(self, array: Any, dtype: Any = None) -> _np.ndarray:
        """A copy of ``array`` in device memory (cudaMemcpy to the device), as a NumPy view."""
        source = _np.ascontiguousarray(array, dtype=dtype)
        if not source.dtype.isnative:  # a kernel reads the machine's byte order
            source = source.astype(source.dtype.newbyteorder("="))
        a = self._device._allocate(source.shape, source.dtype, True)
        a[...] = source
        return a

    @property
    def memory_in_use(self) -> int:
        """Bytes of device memory allocated now (arrays, modules' variables, the device heap)."""
        return self._device.memory_in_use

    def leaks(self) -> list[Report]:
        """leakcheck's reports (``tools=["leakcheck"]``): device-heap blocks that kernels allocated
        with malloc and nothing freed, as compute-sanitizer reports them at the end of a program."""
        return [Report(r) for r in self._device._leaks()]

    def summaries(self) -> list[dict]:
        """Every tool's totals so far: dicts with ``tool``, ``errors`` and ``warnings``."""
        return self._device._summaries()


# --- run specs -----------------------------------------------------------------------------------------

def run_spec(spec: str | _os.PathLike, gpu: str = "sm_90", *, block_size: int | None = None,
             dynamic_shared_bytes: int | None = None, dlcm: str = "", bank_mode: int = 0,
             clock: str | int = "", threads: int = 0, metrics: bool = True, max_instructions: int = 0,
             tools: Sequence[str] = ()) -> dict:
    """Runs a run spec (``ptxray run SPEC.json``) on ``gpu``; returns a dict: ``ok``, ``status``
    (the command's exit status), ``error``, ``printf``, ``stderr``, ``launches`` (kernel, grid,
    block, status, error of each) and ``metrics``, the document ``--metrics-json`` writes.

    ``block_size`` and ``dynamic_shared_bytes`` change every launch as ``--block-size`` and
    ``--dynamic-shared`` do (the grid is resized to cover the same threads)."""
    return _core.run_spec(_os.fspath(spec), gpu, block_size=block_size, dynamic_shared_bytes=dynamic_shared_bytes,
                          dlcm=dlcm or "", bank_mode=bank_mode or 0, clock=str(clock or ""), threads=threads,
                          metrics=metrics, max_instructions=max_instructions, tools=list(tools))


def analyze(spec: str | _os.PathLike, gpu: str = "sm_90", **settings: Any) -> Analysis:
    """``ptxray analyze SPEC.json``: the advisor's findings on every launch of a spec, as an
    :class:`Analysis` (HTML in notebooks). ``settings`` as :func:`run_spec`'s."""
    r = _core.run_spec(_os.fspath(spec), gpu, advice=True, **_settings(settings))
    _raise_for_launches(r)
    return Analysis(r["analyses"], r["html"], r["text"])


def timeline(spec: str | _os.PathLike, gpu: str = "sm_90", **settings: Any) -> Timeline:
    """``ptxray timeline SPEC.json``: the spec's session placed in time on the modeled system."""
    r = _core.run_spec(_os.fspath(spec), gpu, timeline=True, **_settings(settings))
    _raise_for_launches(r)
    if "timeline" not in r:
        raise LaunchError(f"{spec}: no session to place in time: {r['error'] or r['stderr']}")
    return Timeline(r["timeline"], r["timeline_html"], r["timeline_text"])


class Comparison:
    """The same spec on several GPUs (``ptxray compare``): ``times`` maps each GPU to its launches'
    estimated seconds, ``analyses`` to its :class:`Analysis`; ``fastest`` is the GPU with the
    least total time."""

    def __init__(self, analyses: dict[str, Analysis], times: dict[str, list[float]]):
        self.analyses = analyses
        self.times = times
        self.fastest = min(times, key=lambda g: sum(times[g])) if times else None

    def __repr__(self) -> str:
        rows = [f"{g:>12}: {sum(t) * 1e6:10.2f} us" for g, t in self.times.items()]
        return "\n".join(rows + [f"fastest: {self.fastest}"])

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{_esc(g)}</th>" for g in self.times)
        cells = "".join(f"<td>{sum(t) * 1e6:.2f} us</td>" for t in self.times.values())
        findings = "".join(
            f"<td style='vertical-align:top'><ul>{''.join(f'<li>{_esc(f.title)}</li>' for f in a.findings)}</ul></td>"
            for a in self.analyses.values())
        return (f"<table><tr><th></th>{head}</tr><tr><th>time</th>{cells}</tr>"
                f"<tr><th>findings</th>{findings}</tr></table>")


def compare(spec: str | _os.PathLike, gpus: Sequence[str], **settings: Any) -> Comparison:
    """``ptxray compare``: the spec on each of ``gpus``, its times and findings side by side."""
    analyses, times = {}, {}
    for gpu in gpus:
        r = _core.run_spec(_os.fspath(spec), gpu, advice=True, **_settings(settings))
        _raise_for_launches(r)
        analyses[gpu] = Analysis(r["analyses"], r["html"], r["text"])
        times[gpu] = [l["time"]["seconds"] for l in r["metrics"]["launches"]]
    return Comparison(analyses, times)


def _settings(settings: dict) -> dict:
    allowed = {"block_size", "dynamic_shared_bytes", "dlcm", "bank_mode", "clock", "threads", "max_instructions",
               "tools"}
    unknown = set(settings) - allowed
    if unknown:
        raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))} (known: {', '.join(sorted(allowed))})")
    out = dict(settings)
    if "clock" in out:
        out["clock"] = str(out["clock"])
    if "tools" in out:
        out["tools"] = list(out["tools"])
    return out


def _raise_for_launches(result: dict) -> None:
    """A spec's failed launch as the exception a Device's launch raises (without a ``launch`` object:
    the report of the fault is the message, as ``ptxray run`` prints it)."""
    for l in result["launches"]:
        if l["status"] == "refused":
            raise LaunchRefused(f"{l['kernel']}: launch refused: {l['error']}")
        if l["status"] != "success":
            raise KernelFault(f"{l['kernel']}: {l['error']}\n{result['stderr']}")
