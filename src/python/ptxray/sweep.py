"""Sweeps: run specs over GPUs and launch configurations, as independent tasks on Dask.

A sweep file (JSON) names run specs, GPUs and launch configurations; every point of their cartesian
product (spec x GPU x block size x dynamic shared memory x dlcm x bank mode x clock) is one task that
runs the spec on the virtual GPU through ``ptxray._core.run_spec`` and returns the metrics the sweep
records, per launch. The results are merged on the client into one table: a row per point per
launch, written as JSON, CSV or an HTML page with charts (docs/sweep.md)::

    {"_": "comment",
     "specs": ["offset-copy.json", "stride-copy.json"],    # run specs, relative to this file
     "gpus": ["k20x", "gtx480", "h100"] | "all",
     "block_sizes": [32, 64, 128, 256, 512, 1024],          # threads per block along x
     "dynamic_shared_bytes": [0, 16384],
     "dlcm": ["ca", "cg"],
     "bank_mode": [4, 8],
     "clock": ["default", "base", "boost", 705],
     "record": ["gpu__time_duration.sum", "achieved_occupancy"] | "all",
     "max_instructions": 0}

Only ``specs`` and ``gpus`` are required; an axis left out keeps each spec's own value (the row's
field is then empty). Keys starting with ``_`` are comments; any other unknown key is an error, and
the whole file is checked (GPU names and metric names against the core) before any task runs.

From the command line (``ptxray sweep`` runs ``python3 -m ptxray.sweep`` with the same arguments)::

    ptxray sweep SWEEP.json [-o OUT.json|OUT.csv|OUT.html]... [--workers N]
                 [--scheduler tcp://HOST:PORT] [--retries N] [--dry-run] [--quiet]

From Python::

    from ptxray.sweep import run_sweep
    result = run_sweep("examples/python/guide-sweep.json", workers=2)
    result.best()            # the fastest configuration per spec and GPU
    result.to_html("sweep.html")

By default the tasks run on an embedded ``distributed.LocalCluster`` of single-threaded worker
processes, one per core; ``scheduler=`` (``--scheduler``) or ``client=`` runs them on an existing
Dask cluster whose workers can import ptxray and read the spec files at the same paths.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import difflib
import io
import itertools
import json
import logging
import math
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

__all__ = [
    "CLUSTER_CONFIG",
    "DEFAULT_RECORD",
    "FAILED_STATUSES",
    "LAUNCH_COLUMNS",
    "POINT_COLUMNS",
    "WORKER_ENVIRONMENT_DROPPED",
    "Point",
    "Sweep",
    "SweepError",
    "SweepProgress",
    "SweepResult",
    "WorkerSetupError",
    "csv_cell",
    "load_sweep",
    "local_client",
    "main",
    "run_point",
    "run_sweep",
]

#: The metrics a sweep records when its file has no "record" key (names as ``--metrics-json``).
DEFAULT_RECORD: tuple[str, ...] = (
    "gpu__time_duration.sum",
    "achieved_occupancy",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "ptxray__theoretical_occupancy",
    "ptxray__effective_bandwidth_gb_s",
    "ptxray__dram_bandwidth_gb_s",
    "gld_efficiency",
    "gst_efficiency",
    "warp_execution_efficiency",
)

#: The columns that describe a point, first in every row.
POINT_COLUMNS: tuple[str, ...] = (
    "point",
    "spec",
    "gpu",
    "board",
    "block_size",
    "dynamic_shared_bytes",
    "dlcm",
    "bank_mode",
    "clock",
)

#: The columns that describe a launch of a point, after the point's; the recorded metrics follow.
LAUNCH_COLUMNS: tuple[str, ...] = ("launch", "kernel", "grid", "block", "status", "error", "seconds", "bound")

#: Row statuses that make a sweep fail (exit status 1). A launch's own status is one of "success",
#: "refused" (the configuration does not fit the GPU: part of the answer, not a failure), "faulted"
#: or "assert"; "failed" is a run that failed outside its launches, "error" a task whose run raised
#: (a spec or module error, a bad setting for that GPU) and "lost" a task whose workers died beyond
#: Dask's retries.
FAILED_STATUSES: frozenset[str] = frozenset({"faulted", "assert", "failed", "error", "lost"})

# The sweep file's keys; the axes map a key to the point field it sets.
_AXES: dict[str, str] = {
    "block_sizes": "block_size",
    "dynamic_shared_bytes": "dynamic_shared_bytes",
    "dlcm": "dlcm",
    "bank_mode": "bank_mode",
    "clock": "clock",
}
_KEYS: tuple[str, ...] = ("specs", "gpus", *_AXES, "record", "max_instructions")

_MAX_BLOCK_SIZE = 1024  # no modeled GPU runs more threads per block
_MAX_INSTRUCTIONS = 10**15  # as `ptxray run --max-instructions`


class SweepError(ValueError):
    """A malformed sweep: ``str()`` is "SOURCE: KEY: MESSAGE" (the key path may be empty)."""

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source  #: the sweep file, or "<sweep>" for a dict
        self.path = path  #: the key path in the sweep, "gpus[2]"; empty for the document
        self.message = message  #: what is wrong
        super().__init__(": ".join(part for part in (source, path, message) if part))


class WorkerSetupError(RuntimeError):
    """A Dask worker of the cluster cannot import ptxray: no task was submitted."""


@dataclass(frozen=True)
class Point:
    """One task of a sweep: a spec on a GPU with one launch configuration.

    A configuration field of None keeps what the spec says (block_size, dynamic_shared_bytes) or the
    model's default (dlcm, bank_mode, clock).
    """

    index: int  #: the point's place in the sweep's product, from 0
    spec: str  #: the spec as the sweep names it
    spec_path: str  #: the spec's absolute path, which the worker opens
    gpu: str  #: the GPU as the sweep names it (any name ``ptxray arch`` accepts)
    board: str  #: the board that name stands for ("Tesla K20X")
    block_size: int | None = None
    dynamic_shared_bytes: int | None = None
    dlcm: str | None = None
    bank_mode: int | None = None
    clock: str | None = None

    def fields(self) -> dict[str, Any]:
        """The point's columns of the table (POINT_COLUMNS), in order."""
        return {
            "point": self.index,
            "spec": self.spec,
            "gpu": self.gpu,
            "board": self.board,
            "block_size": self.block_size,
            "dynamic_shared_bytes": self.dynamic_shared_bytes,
            "dlcm": self.dlcm,
            "bank_mode": self.bank_mode,
            "clock": self.clock,
        }

    def settings(self) -> dict[str, Any]:
        """The keyword arguments of ``_core.run_spec`` this point sets."""
        names = ("block_size", "dynamic_shared_bytes", "dlcm", "bank_mode", "clock")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}

    def describe(self) -> str:
        """A short label: "offset-copy.json on k20x, block 256"."""
        parts = [f"{self.spec} on {self.gpu}"]
        if self.block_size is not None:
            parts.append(f"block {self.block_size}")
        if self.dynamic_shared_bytes is not None:
            parts.append(f"shared {self.dynamic_shared_bytes}")
        for name in ("dlcm", "bank_mode", "clock"):
            if getattr(self, name) is not None:
                parts.append(f"{name} {getattr(self, name)}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: what ``load_sweep`` makes of a sweep file or dict."""

    source: str  #: the file, or "<sweep>"
    specs: tuple[tuple[str, str], ...]  #: (the name as written, the absolute path)
    gpus: tuple[tuple[str, str], ...]  #: (the name as written, its board)
    block_sizes: tuple[int | None, ...] = (None,)
    dynamic_shared_bytes: tuple[int | None, ...] = (None,)
    dlcm: tuple[str | None, ...] = (None,)
    bank_mode: tuple[int | None, ...] = (None,)
    clock: tuple[str | None, ...] = (None,)
    record: tuple[str, ...] | None = DEFAULT_RECORD  #: None: every metric ("all")
    max_instructions: int = 0  #: the thread-instruction budget per launch (0: the core's default)

    def axes(self) -> list[str]:
        """The point fields the sweep varies or sets (e.g. ["block_size", "dlcm"])."""
        return [point_field for key, point_field in _AXES.items() if getattr(self, key) != (None,)]

    def points(self) -> list[Point]:
        """Every point of the product, specs outermost, then GPUs, then the axes in file order."""
        product = itertools.product(
            self.specs, self.gpus, self.block_sizes, self.dynamic_shared_bytes, self.dlcm, self.bank_mode, self.clock
        )
        return [
            Point(index, spec, path, gpu, board, block, shared, dlcm, bank, clock)
            for index, ((spec, path), (gpu, board), block, shared, dlcm, bank, clock) in enumerate(product)
        ]

    def describe(self) -> dict[str, Any]:
        """The sweep as JSON data, with its axes expanded ("all" GPUs listed)."""
        described: dict[str, Any] = {
            "source": self.source,
            "specs": [name for name, _ in self.specs],
            "gpus": [name for name, _ in self.gpus],
        }
        for key in _AXES:
            if getattr(self, key) != (None,):
                described[key] = list(getattr(self, key))
        described["record"] = "all" if self.record is None else list(self.record)
        described["max_instructions"] = self.max_instructions
        return described


@dataclass(frozen=True)
class SweepProgress:
    """Where a running sweep stands, as given to a progress callback."""

    done: int  #: tasks finished (whatever their outcome)
    total: int  #: tasks in the sweep
    failed: int  #: finished tasks with a row of a FAILED_STATUSES status
    refused: int  #: finished tasks with a refused launch
    elapsed: float  #: seconds since the tasks were submitted


# ---------------------------------------------------------------------------------------------------
# Loading and validating a sweep


def load_sweep(
    sweep: str | os.PathLike[str] | Mapping[str, Any], *, base_dir: str | os.PathLike[str] | None = None
) -> Sweep:
    """Reads and validates a sweep: a JSON file's path, or the same document as a dict.

    Spec paths are relative to the sweep file's folder (for a dict: to ``base_dir``, by default the
    current directory). GPU names are checked by the core itself, with a probe kernel that also
    lists the metric names "record" may use. Raises SweepError naming the key at fault.
    """
    if isinstance(sweep, Mapping):
        source, document = "<sweep>", dict(sweep)
        folder = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        path = Path(sweep)
        source = str(sweep)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SweepError(source, "", "no such file") from None
        except IsADirectoryError:
            raise SweepError(source, "", "is a folder, not a sweep file") from None
        except (OSError, UnicodeDecodeError) as error:
            raise SweepError(source, "", f"cannot be read: {error}") from None
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            where = f"line {error.lineno} column {error.colno}"
            raise SweepError(source, "", f"not valid JSON: {error.msg} at {where}") from None
        if not isinstance(document, dict):
            raise SweepError(source, "", "a sweep is a JSON object")
        folder = Path(base_dir) if base_dir is not None else path.parent
    return _Validator(source, folder.resolve()).sweep(document)


class _Validator:
    """Turns a sweep document into a Sweep, raising SweepError at the first problem."""

    def __init__(self, source: str, folder: Path) -> None:
        self.source = source
        self.folder = folder

    def fail(self, path: str, message: str) -> SweepError:
        return SweepError(self.source, path, message)

    def sweep(self, document: dict[str, Any]) -> Sweep:
        for key in document:
            if not isinstance(key, str) or key.startswith("_") or key in _KEYS:
                continue
            raise self.fail(key, f"unknown key{_did_you_mean(key, _KEYS)}; a sweep has {', '.join(_KEYS)}")
        for key in ("specs", "gpus"):
            if key not in document:
                raise self.fail(key, "missing: a sweep names its specs and gpus")
        specs = self.specs(document["specs"])
        axes = {key: self.axis(key, document[key]) for key in _AXES if key in document}
        max_instructions = self.max_instructions(document.get("max_instructions", 0))
        with _Probe() as probe:
            gpus = self.gpus(document["gpus"], probe)
            record = self.record(document.get("record"), probe, gpus[0][0])
        return Sweep(self.source, specs, gpus, **axes, record=record, max_instructions=max_instructions)

    def specs(self, value: Any) -> tuple[tuple[str, str], ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.fail("specs", "expected a non-empty list of run-spec paths")
        specs: list[tuple[str, str]] = []
        for position, name in enumerate(value):
            where = f"specs[{position}]"
            if not isinstance(name, str) or not name:
                raise self.fail(where, f"expected a run spec's path, not {json.dumps(name)}")
            path = (self.folder / name).resolve()
            if not path.exists():
                raise self.fail(where, f"no such file: {path}")
            if not path.is_file():
                raise self.fail(where, f"not a file: {path}")
            try:
                spec = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                raise self.fail(where, f"{path} cannot be read: {error}") from None
            except json.JSONDecodeError as error:
                raise self.fail(where, f"{path} is not valid JSON: {error.msg} at line {error.lineno}") from None
            if not isinstance(spec, dict):
                raise self.fail(where, f"{path} is not a run spec (a JSON object)")
            if any(str(path) == known for _, known in specs):
                raise self.fail(where, f"{name} is named twice")
            specs.append((name, str(path)))
        return tuple(specs)

    def gpus(self, value: Any, probe: _Probe) -> tuple[tuple[str, str], ...]:
        if value == "all":
            gpus: list[tuple[str, str]] = []
            for entry in probe.core.gpus():
                name, board = str(entry["name"]), str(entry.get("board") or entry["name"])
                if all(board != known for _, known in gpus):
                    gpus.append((name, board))
            return tuple(gpus)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.fail("gpus", 'expected "all" or a non-empty list of GPU names (k20x, gtx480, sm_35...)')
        gpus = []
        for position, name in enumerate(value):
            where = f"gpus[{position}]"
            if not isinstance(name, str) or not name:
                raise self.fail(where, f"expected a GPU name, not {json.dumps(name)}")
            try:
                board = probe.board(name)
            except ValueError as error:
                message = str(error).split("; known:")[0]
                known = [str(entry[key]) for entry in probe.core.gpus() for key in ("name", "board") if entry.get(key)]
                suggestion = _did_you_mean(name, known)
                raise self.fail(
                    where, f'unknown GPU "{name}"{suggestion}: {message} (`ptxray archs` lists the GPUs)'
                ) from None
            key = _spelling(name)
            if any(_spelling(known) == key for known, _ in gpus):
                raise self.fail(where, f'"{name}" is named twice')
            gpus.append((name, board))
        return tuple(gpus)

    def axis(self, key: str, value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(key, "expected a non-empty list of values")
        check = {
            "block_sizes": self.block_size,
            "dynamic_shared_bytes": self.shared_bytes,
            "dlcm": self.dlcm,
            "bank_mode": self.bank_mode,
            "clock": self.clock,
        }[key]
        values: list[Any] = []
        for position, item in enumerate(value):
            where = f"{key}[{position}]"
            checked = check(where, item)
            if checked in values:
                raise self.fail(where, f"{json.dumps(item)} is named twice")
            values.append(checked)
        return tuple(values)

    def block_size(self, where: str, value: Any) -> int:
        if not _is_int(value) or not 1 <= value <= _MAX_BLOCK_SIZE:
            raise self.fail(
                where,
                f"{json.dumps(value)} is not a block size: expected an integer from 1 to {_MAX_BLOCK_SIZE} "
                "(threads per block along x)",
            )
        return value

    def shared_bytes(self, where: str, value: Any) -> int:
        if not _is_int(value) or not 0 <= value < 2**32:
            raise self.fail(where, f"{json.dumps(value)} is not a byte count: expected an integer from 0 to 2^32-1")
        return value

    def dlcm(self, where: str, value: Any) -> str:
        if value not in ("ca", "cg"):
            raise self.fail(where, f'{json.dumps(value)}: expected "ca" (loads cached in L1) or "cg" (L2 only)')
        return value

    def bank_mode(self, where: str, value: Any) -> int:
        if not _is_int(value) or value not in (4, 8):
            raise self.fail(where, f"{json.dumps(value)}: expected 4 or 8 (Kepler's shared-memory bank width in bytes)")
        return value

    def clock(self, where: str, value: Any) -> str:
        if value in ("default", "base", "boost"):
            return value
        if _is_int(value) and value > 0:
            return str(value)
        if isinstance(value, str) and value.isdigit() and int(value) > 0:
            return str(int(value))
        raise self.fail(where, f'{json.dumps(value)}: expected "default", "base", "boost" or a clock in MHz')

    def record(self, value: Any, probe: _Probe, gpu: str) -> tuple[str, ...] | None:
        if value is None:
            value = list(DEFAULT_RECORD)
        if value == "all":
            return None
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.fail("record", 'expected "all" or a non-empty list of metric names')
        names = probe.metric_names(gpu)
        record: list[str] = []
        for position, name in enumerate(value):
            where = f"record[{position}]"
            if not isinstance(name, str) or name not in names:
                raise self.fail(
                    where,
                    f"unknown metric {json.dumps(name)}{_did_you_mean(str(name), names)}; "
                    "the names are those of `ptxray run --metrics-json` (docs/metrics.md)",
                )
            if name in record:
                raise self.fail(where, f'"{name}" is named twice')
            record.append(name)
        return tuple(record)

    def max_instructions(self, value: Any) -> int:
        if not _is_int(value) or not 0 <= value <= _MAX_INSTRUCTIONS:
            raise self.fail(
                "max_instructions", f"{json.dumps(value)}: expected an integer from 0 (the default budget) to 10^15"
            )
        return value


def _spelling(name: str) -> str:
    """A GPU name as ``--arch`` compares them: case, spaces, '-' and '_' ignored."""
    return "".join(character for character in name.lower() if character not in " -_")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _did_you_mean(word: str, choices: Sequence[str] | set[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


# An empty kernel: enough for the core to resolve a GPU name and list the model's metric names.
_PROBE_PTX = ".version 6.0\n.target sm_30\n.address_size 64\n\n.visible .entry ptxray_sweep_probe()\n{\n\tret;\n}\n"
_PROBE_SPEC = {"module": "probe.ptx", "launches": [{"grid": [1], "block": [32]}]}


class _Probe:
    """Runs an empty kernel through the core to check GPU names and learn the metric names."""

    def __init__(self) -> None:
        from ptxray import _core  # the compiled module; imported here so that --help needs none

        self.core = _core
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._runs: dict[str, dict[str, Any]] = {}

    def __enter__(self) -> _Probe:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._folder is not None:
            self._folder.cleanup()

    def run(self, gpu: str) -> dict[str, Any]:
        """The probe's launch document on ``gpu``; ValueError when the core does not know the GPU."""
        if gpu not in self._runs:
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(prefix="ptxray-sweep-")
                folder = Path(self._folder.name)
                (folder / "probe.ptx").write_text(_PROBE_PTX)
                (folder / "probe.json").write_text(json.dumps(_PROBE_SPEC))
            spec = str(Path(self._folder.name) / "probe.json")
            result = self.core.run_spec(spec, gpu, threads=1, metrics=True)
            launches = (result.get("metrics") or {}).get("launches") or []
            if not result.get("ok") or not launches:
                raise RuntimeError(f"the core could not run an empty kernel on {gpu}: {result.get('error')}")
            self._runs[gpu] = launches[0]
        return self._runs[gpu]

    def board(self, gpu: str) -> str:
        """The board a GPU name stands for (the time estimate's GPU)."""
        return str(self.run(gpu).get("time", {}).get("gpu") or gpu)

    def metric_names(self, gpu: str) -> set[str]:
        """Every metric name of a launch's document."""
        return set(self.run(gpu).get("metrics", {}))


# ---------------------------------------------------------------------------------------------------
# The task a worker runs


def run_point(
    point: Point, record: tuple[str, ...] | None = DEFAULT_RECORD, max_instructions: int = 0
) -> dict[str, Any]:
    """Runs one point on this process's VM, one thread; the task of a sweep.

    Returns {"ok", "error", "launches": [{"launch", "kernel", "grid", "block", "status", "error",
    "seconds", "bound", "board", "metrics": {NAME: value}}]} with only the ``record`` metrics
    (every one when None). A spec, module or setting error is returned as {"ok": False, "error":
    "SpecError: ..."} without launches; other exceptions (the core not importable on this worker)
    propagate, so that Dask retries the task elsewhere.
    """
    from ptxray import _core

    try:
        result = _core.run_spec(
            point.spec_path, point.gpu, **point.settings(), threads=1, metrics=True, max_instructions=max_instructions
        )
    except (ValueError, RuntimeError) as error:  # SpecError, ModuleError, a bad setting for this GPU
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "exception": True, "launches": []}
    launches = list(result.get("launches") or [])
    documents = list((result.get("metrics") or {}).get("launches") or [])
    # The document has a launch per launch that ran to the end: pair them in order.
    if len(documents) == len(launches):
        paired = list(zip(launches, documents))
    else:
        remaining = iter(documents)
        paired = [(launch, next(remaining, None) if launch.get("status") == "success" else None) for launch in launches]
    records = []
    for launch, document in paired:
        metrics = (document or {}).get("metrics") or {}
        estimate = (document or {}).get("time") or {}
        kept = metrics if record is None else {name: metrics.get(name) for name in record}
        records.append(
            {
                "launch": launch.get("index"),
                "kernel": launch.get("kernel", ""),
                "grid": list(launch.get("grid") or []),
                "block": list(launch.get("block") or []),
                "status": launch.get("status", ""),
                "error": launch.get("error", ""),
                "seconds": _finite(estimate.get("seconds")),
                "bound": estimate.get("bound"),
                "board": estimate.get("gpu"),
                "metrics": {name: _finite(value) for name, value in kept.items()},
            }
        )
    return {"ok": bool(result.get("ok")), "error": result.get("error", ""), "launches": records}


def _finite(value: Any) -> Any:
    """A metric value for the table: NaN and infinities (which JSON lacks) become None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# ---------------------------------------------------------------------------------------------------
# Running a sweep on Dask


def run_sweep(
    sweep: str | os.PathLike[str] | Mapping[str, Any] | Sweep,
    client: Any = None,
    workers: int | None = None,
    progress: bool | Callable[[SweepProgress], None] = True,
    *,
    scheduler: str | None = None,
    retries: int = 2,
    base_dir: str | os.PathLike[str] | None = None,
) -> SweepResult:
    """Runs every point of a sweep as an independent Dask task and merges the results.

    ``sweep``: a sweep file's path, its document as a dict (spec paths relative to ``base_dir``) or
    a Sweep from ``load_sweep``. Where the tasks run: ``client`` (a ``distributed.Client``, left
    open), else the cluster at ``scheduler`` ("tcp://HOST:PORT"), else an embedded LocalCluster of
    ``workers`` single-threaded worker processes (default: one per core), closed at the end.
    ``retries``: how many times Dask re-runs a task that raised on a worker (a worker that dies
    has its tasks re-run by the scheduler; a task whose workers keep dying becomes a "lost" row).
    ``progress``: True prints "sweep: 37/120 done, 1 failed" on stderr, False nothing, a callable
    gets a SweepProgress after every task (and once before the first).

    Raises SweepError for a malformed sweep and WorkerSetupError for a cluster whose workers
    cannot import ptxray, before any task runs.
    """
    plan = sweep if isinstance(sweep, Sweep) else load_sweep(sweep, base_dir=base_dir)
    if workers is not None and workers < 1:
        raise ValueError(f"workers: {workers}: expected at least 1")
    if retries < 0:
        raise ValueError(f"retries: {retries}: expected 0 or more")
    report: Callable[[SweepProgress], None] | None
    if callable(progress):
        report = progress
    else:
        report = _ProgressPrinter(sys.stderr) if progress else None
    points = plan.points()
    start = time.perf_counter()
    with _dask_client(client, scheduler, workers) as dask_client:
        outcomes = _execute(dask_client, plan, points, retries, report)
    return SweepResult(plan, points, outcomes, time.perf_counter() - start)


#: Dask settings of the embedded cluster (its scheduler and nannies, in this process, and its
#: workers). Its workers' cores belong to the tasks: the statistical profiler, which samples each
#: worker's threads every 10 ms (for profiles of one C++ call), is off, and the event loops' ticks
#: and the system and memory monitors run less often than Dask's defaults (20 ms, 500 ms, 100 ms).
#: On two cores, two workers ran a sweep of equal tasks 1.6-1.8x as fast as one with Dask's
#: settings, 1.9x with these and WORKER_ENVIRONMENT_DROPPED.
CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "500ms",
}

#: Variables of Dask's "distributed.nanny.pre-spawn-environ" the embedded cluster's workers go
#: without. MALLOC_TRIM_THRESHOLD_=65536 (Dask's default, against fragmentation in long-lived
#: pandas workers) makes glibc return a task's memory to the system as soon as it is freed, and a
#: VM run on a worker's task thread then takes a quarter longer, faulting it back in.
WORKER_ENVIRONMENT_DROPPED: tuple[str, ...] = ("MALLOC_TRIM_THRESHOLD_",)


@contextlib.contextmanager
def local_client(workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` of a new LocalCluster made for sweeps, closed on the way out.

    ``workers`` single-threaded worker processes (default: one per core), CLUSTER_CONFIG applied to
    the cluster and its workers and WORKER_ENVIRONMENT_DROPPED left out of their environment (set
    in Dask's configuration while the block runs, so that ``client.cluster.scale(N)`` starts workers
    the same way), no dashboard, and the workers' scratch folders in a temporary folder removed at
    the end.
    """
    import dask
    import distributed

    environment = dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {}
    kept = {name: value for name, value in environment.items() if name not in WORKER_ENVIRONMENT_DROPPED}
    settings = {**CLUSTER_CONFIG, "distributed.nanny.pre-spawn-environ": kept}
    with dask.config.set(settings), tempfile.TemporaryDirectory(
        prefix="ptxray-sweep-dask-"
    ) as scratch, distributed.LocalCluster(
        n_workers=workers or _cpu_count(),
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},  # its HTTP routes (health, metrics) on any free port
        silence_logs=logging.ERROR,
        local_directory=scratch,
        config=CLUSTER_CONFIG,  # the nannies pass it to every worker they start, restarts included
    ) as cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client


@contextlib.contextmanager
def _dask_client(client: Any, scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """The client to submit to: the caller's, one connected to ``scheduler``, or an embedded cluster's."""
    if client is not None:
        yield client
    elif scheduler is not None:
        import distributed

        with distributed.Client(scheduler, set_as_default=False) as connected:
            yield connected
    else:
        with local_client(workers) as local:
            yield local


def _cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _execute(
    client: Any, plan: Sweep, points: list[Point], retries: int, report: Callable[[SweepProgress], None] | None
) -> dict[int, dict[str, Any]]:
    """Submits a task per point and collects their outcomes, as run_point returns them, by point."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    _check_workers(client)
    token = uuid.uuid4().hex[:12]
    keys = [f"ptxray-sweep-{token}-{point.index}" for point in points]
    index_of = dict(zip(keys, (point.index for point in points)))
    start = time.perf_counter()
    outcomes: dict[int, dict[str, Any]] = {}
    failed = refused = 0
    if report:
        report(SweepProgress(0, len(points), 0, 0, 0.0))
    futures = client.map(
        run_point,
        points,
        record=plan.record,
        max_instructions=plan.max_instructions,
        key=keys,
        retries=retries,
        pure=False,
    )
    try:
        for future in as_completed(futures, loop=client.loop):
            index = index_of[future.key]
            if future.status == "finished":
                outcome = future.result()
            else:
                try:
                    error: BaseException | None = future.exception()
                except BaseException as cancelled:  # CancelledError: the scheduler forgot the task
                    error = cancelled
                lost = isinstance(error, KilledWorker) or future.status == "cancelled"
                outcome = {
                    "ok": False,
                    "status": "lost" if lost else "error",
                    "error": f"{type(error).__name__}: {error}" if error is not None else "the task was lost",
                    "launches": [],
                }
            future.release()
            outcomes[index] = outcome
            statuses = {status for status in _statuses(outcome)}
            failed += bool(statuses & FAILED_STATUSES)
            refused += "refused" in statuses
            if report:
                report(SweepProgress(len(outcomes), len(points), failed, refused, time.perf_counter() - start))
    finally:
        pending = [future for future in futures if not future.done()]
        if pending:
            client.cancel(pending)
    return outcomes


def _check_workers(client: Any) -> None:
    """Raises WorkerSetupError when a worker of the cluster cannot import ptxray.sweep.

    A Dask worker that receives a task it cannot unpickle dies, so a cluster without ptxray would
    lose every worker and wait for new ones forever. The check runs a standard-library function on
    every worker (nothing of ptxray is sent): ``importlib.util.find_spec("ptxray.sweep")``, which
    imports the package and its compiled core. Workers that join later are not checked.
    """
    import importlib.util

    found = client.run(importlib.util.find_spec, "ptxray.sweep", on_error="return")
    problems = []
    for worker, spec in sorted(found.items()):
        if isinstance(spec, BaseException):
            problems.append(f"{worker}: {type(spec).__name__}: {spec}")
        elif spec is None:
            problems.append(f"{worker}: no module ptxray.sweep")
    if problems:
        raise WorkerSetupError(
            "workers cannot import ptxray (give them PYTHONPATH=BUILD/python or an installed ptxray): "
            + "; ".join(problems)
        )


def _statuses(outcome: dict[str, Any]) -> list[str]:
    """The statuses of the rows an outcome becomes."""
    if "status" in outcome:
        return [outcome["status"]]
    if outcome.get("exception"):
        return ["error"]
    statuses = [launch["status"] for launch in outcome["launches"]]
    if not outcome.get("ok") and not any(status != "success" for status in statuses):
        statuses.append("failed")  # the run failed outside its launches (a buffer, an output)
    return statuses or ["success"]  # a spec without launches is one row


class _ProgressPrinter:
    """Progress on a stream: one line updated in place on a terminal, else a line per tenth done."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.terminal = stream.isatty()
        self.tenth = 0
        self.printed = time.monotonic()

    def __call__(self, progress: SweepProgress) -> None:
        text = f"sweep: {progress.done}/{progress.total} done, {progress.failed} failed"
        if progress.refused:
            text += f", {progress.refused} with refused launches"
        finished = progress.done == progress.total
        if self.terminal:
            self.stream.write("\r" + text + "\x1b[K" + ("\n" if finished else ""))
        else:
            tenth = progress.done * 10 // max(progress.total, 1)
            now = time.monotonic()
            if progress.done and (tenth > self.tenth or finished or now - self.printed >= 30):
                self.stream.write(text + "\n")
                self.tenth, self.printed = tenth, now
        self.stream.flush()


# ---------------------------------------------------------------------------------------------------
# The result


@dataclass
class SweepResult:
    """A finished sweep: one table, a row per point per launch (a failed task is one row).

    ``rows`` are dicts with the keys of ``columns``: POINT_COLUMNS, LAUNCH_COLUMNS, then the
    recorded metrics (None where a launch has no value). ``grid`` and ``block`` are [x, y, z].
    """

    sweep: Sweep  #: the sweep that ran
    points: list[Point]  #: its points, by index
    outcomes: dict[int, dict[str, Any]] = field(repr=False)  #: what each task returned, by point
    elapsed: float = 0.0  #: seconds from submitting the first task to the last result
    columns: list[str] = field(init=False)
    rows: list[dict[str, Any]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        metric_names: list[str] = list(self.sweep.record or ())
        if self.sweep.record is None:  # "all": every name any launch reported, in first-seen order
            seen: dict[str, None] = {}
            for outcome in self.outcomes.values():
                for launch in outcome.get("launches", []):
                    seen.update(dict.fromkeys(launch["metrics"]))
            metric_names = list(seen)
        self.columns = [*POINT_COLUMNS, *LAUNCH_COLUMNS, *metric_names]
        self.rows = []
        for point in self.points:
            outcome = self.outcomes.get(point.index) or {
                "ok": False,
                "status": "lost",
                "error": "no result came back",
                "launches": [],
            }
            self.rows.extend(self._rows(point, outcome, metric_names))

    @staticmethod
    def _rows(point: Point, outcome: dict[str, Any], metric_names: list[str]) -> list[dict[str, Any]]:
        blank_launch = dict.fromkeys(LAUNCH_COLUMNS)
        rows = []
        for launch in outcome.get("launches", []):
            row = point.fields()
            row["board"] = launch.get("board") or point.board
            row.update({name: launch.get(name) for name in LAUNCH_COLUMNS})
            row.update({name: launch["metrics"].get(name) for name in metric_names})
            rows.append(row)
        statuses = _statuses(outcome)
        if len(statuses) > len(rows):  # the task or the run failed outside any launch
            row = point.fields()
            row.update(blank_launch, kernel="", status=statuses[-1], error=outcome.get("error") or "the run failed")
            row.update(dict.fromkeys(metric_names))
            rows.append(row)
        return rows

    def __repr__(self) -> str:
        failed = len({row["point"] for row in self.failed_rows})
        return (
            f"<SweepResult {self.sweep.source}: {len(self.points)} points, {len(self.rows)} rows, "
            f"{failed} failed, {self.elapsed:.1f} s>"
        )

    @property
    def failed_rows(self) -> list[dict[str, Any]]:
        """The rows whose status is one of FAILED_STATUSES."""
        return [row for row in self.rows if row["status"] in FAILED_STATUSES]

    @property
    def exit_status(self) -> int:
        """0 when every task ran and no launch faulted (refusals included), else 1."""
        return 1 if self.failed_rows else 0

    def best(self) -> list[dict[str, Any]]:
        """The fastest point per spec and GPU: the one with the least total time of its launches,
        among points whose launches all succeeded (ties: the earlier point).

        A dict per spec and GPU with the point's fields (POINT_COLUMNS), "seconds" (the total) and
        "launches" (how many); specs and GPUs in sweep order, absent where no point succeeded.
        """
        by_point: dict[int, list[dict[str, Any]]] = {}
        for row in self.rows:
            by_point.setdefault(row["point"], []).append(row)
        winners: dict[tuple[str, str], tuple[float, Point, int]] = {}
        for point in self.points:
            rows = by_point.get(point.index, [])
            if not rows or any(row["status"] != "success" or row["seconds"] is None for row in rows):
                continue
            total = math.fsum(row["seconds"] for row in rows)
            key = (point.spec, point.gpu)
            if key not in winners or total < winners[key][0]:
                winners[key] = (total, point, len(rows))
        best = []
        for spec, _ in self.sweep.specs:
            for gpu, _ in self.sweep.gpus:
                if (spec, gpu) in winners:
                    total, point, launches = winners[(spec, gpu)]
                    board = by_point[point.index][0]["board"]
                    best.append({**point.fields(), "board": board, "seconds": total, "launches": launches})
        return best

    # Outputs ---------------------------------------------------------------------------------------

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The table as JSON ({"schema": "ptxray-sweep", "version": 1, "sweep", "columns", "rows",
        "best", "elapsed_seconds"}); written to ``path`` when given. Returns the text."""
        document = {
            "schema": "ptxray-sweep",
            "version": 1,
            "sweep": self.sweep.describe(),
            "columns": self.columns,
            "rows": self.rows,
            "best": self.best(),
            "elapsed_seconds": self.elapsed,
        }
        text = json.dumps(document, indent=1, allow_nan=False) + "\n"
        return _written(path, text)

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """The table as CSV (Python's csv module, a header of the columns): an empty cell for None,
        "(x, y, z)" for a grid or block, floats exactly (repr). Written to ``path`` when given."""
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow([csv_cell(row[column]) for column in self.columns])
        return _written(path, buffer.getvalue())

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """A self-contained HTML page: per spec, time and occupancy per block size with a line per
        GPU and the best configuration per GPU marked, then the full table. Written to ``path``
        when given."""
        from ptxray._sweep_html import render_html

        return _written(path, render_html(self, full_page=True))

    def to_text(self) -> str:
        """A text table: the point fields the sweep varies, each launch's status, time and
        recorded metrics; then the best configuration per spec and GPU and every failure."""
        axes = self.sweep.axes()
        metric_names = self.columns[len(POINT_COLUMNS) + len(LAUNCH_COLUMNS) :]
        columns = ["point", "spec", "gpu", *axes, "launch", "kernel", "status", "seconds", *metric_names]
        lines = _aligned([columns] + [[_text_cell(row.get(column)) for column in columns] for row in self.rows])
        best = self.best()
        if best:
            lines += ["", "best per spec and GPU:"]
            best_columns = ["spec", "gpu", *axes, "point", "seconds"]
            lines += _aligned([best_columns] + [[_text_cell(entry[c]) for c in best_columns] for entry in best])
        problems = [row for row in self.rows if row["status"] not in ("success",)]
        if problems:
            lines += ["", "not successful:"]
            for row in problems:
                launch = f" launch {row['launch']} ({row['kernel']})" if row["launch"] is not None else ""
                error = " ".join(str(row["error"] or "").split())
                lines.append(f"  point {row['point']}{launch}: {row['status']}: {error}")
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        """The page without its <html> frame, for notebooks (the table cut at 500 rows)."""
        from ptxray._sweep_html import render_html

        return render_html(self, full_page=False, max_rows=500)


def csv_cell(value: Any) -> str:
    """How the CSV output writes a value: "" for None, "(x, y, z)" for a list, repr for a float."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "(" + ", ".join(str(item) for item in value) + ")"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _text_cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "x".join(str(item) for item in value)
    return str(value)


def _aligned(table: list[list[str]]) -> list[str]:
    """Rows of cells as lines, each column as wide as its widest cell."""
    widths = [max(len(row[column]) for row in table) for column in range(len(table[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in table]


def _written(path: str | os.PathLike[str] | None, text: str) -> str:
    if path is not None:
        with open(path, "w", encoding="utf-8", newline="") as output:
            output.write(text)
    return text


# ---------------------------------------------------------------------------------------------------
# The command line

_OUTPUT_TYPES = {".json": "to_json", ".csv": "to_csv", ".html": "to_html", ".htm": "to_html"}


def _output_problem(path: str) -> str | None:
    """Why ``path`` cannot be an output (its type, its folder), or None."""
    target = Path(path)
    if target.suffix.lower() not in _OUTPUT_TYPES:
        return f"{path}: unknown output type {target.suffix or '(none)'!r}: expected .json, .csv or .html"
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"{path}: is a folder"
    if not folder.is_dir():
        return f"{path}: no such folder {folder}"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"{path}: not writable"
    return None


def _points_table(plan: Sweep) -> str:
    columns = ["point", "spec", "gpu", "board", *plan.axes()]
    points = plan.points()
    cells = [[_text_cell(point.fields()[column]) for column in columns] for point in points]
    return "\n".join(_aligned([columns] + cells)) + f"\n{len(points)} points\n"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, ``python3 -m ptxray.sweep``: returns the exit status (0: the sweep ran
    and no task failed; 1: a task failed, its rows are in the outputs; 2: a malformed sweep file or
    command line)."""
    parser = argparse.ArgumentParser(
        prog="ptxray sweep",
        description="Run a sweep of run specs over GPUs and launch configurations on Dask (docs/sweep.md).",
        epilog="Exit status: 0 when every task ran and no launch faulted (refused launches are results), "
        "1 when a task or launch failed (its rows carry the error), 2 for a malformed sweep or command line.",
    )
    parser.add_argument("sweep", help="the sweep file (JSON)")
    parser.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        metavar="FILE",
        help="write the table to FILE: .json, .csv or .html (repeatable; default: a text table on stdout)",
    )
    parser.add_argument(
        "--workers",
        type=_positive,
        metavar="N",
        help="worker processes of the embedded cluster (default: one per core)",
    )
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (tcp://HOST:PORT)")
    parser.add_argument(
        "--retries",
        type=_non_negative,
        default=2,
        metavar="N",
        help="re-runs of a task that raised on a worker for a reason other than its point (default 2)",
    )
    parser.add_argument("--dry-run", action="store_true", help="list the points without running them")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.workers is not None and args.scheduler is not None:
        parser.error("--workers and --scheduler exclude each other (a scheduler's cluster has its own workers)")
    for output in args.output:
        if problem := _output_problem(output):
            parser.error(problem)
    try:
        plan = load_sweep(args.sweep)
    except SweepError as error:
        print(f"sweep: error: {error}", file=sys.stderr)
        return 2
    if args.dry_run:
        sys.stdout.write(_points_table(plan))
        return 0
    try:
        result = run_sweep(
            plan, workers=args.workers, progress=not args.quiet, scheduler=args.scheduler, retries=args.retries
        )
    except (OSError, TimeoutError, WorkerSetupError) as error:
        print(f"sweep: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nsweep: interrupted; no output written", file=sys.stderr)
        return 130
    for output in args.output:
        getattr(result, _OUTPUT_TYPES[Path(output).suffix.lower()])(output)
    if not args.output:
        sys.stdout.write(result.to_text())
    if not args.quiet:
        failed = len({row["point"] for row in result.failed_rows})
        print(
            f"sweep: {len(result.points)} points, {len(result.rows)} rows in {result.elapsed:.1f} s"
            + (f"; {failed} failed" if failed else ""),
            file=sys.stderr,
        )
    return result.exit_status


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: expected at least 1")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: expected 0 or more")
    return value


if __name__ == "__main__":
    sys.exit(main())
