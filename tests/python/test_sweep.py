"""Tests of ptxray.sweep: sweep files and their errors, sweeps on an embedded Dask cluster and on a
real dask-scheduler with dask-worker processes (one of them killed mid-sweep), the outputs (JSON,
CSV, HTML), equality with `ptxray run --metrics-json`, and the speed-up of two workers over one.

The package comes from PTXRAY_PYTHONPATH (conftest.py); `ptxray run` from PTXRAY_CLI (conftest's
``cli`` fixture: the test of equality with the command line is skipped without it).
test_two_workers_speedup measures wall time: run it alone (CTest: RUN_SERIAL), e.g.
`pytest tests/python/test_sweep.py -k two_workers_speedup`, and the rest with
`-k "not test_two_workers_speedup"`.
"""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ptxray
from ptxray import _core
from ptxray.sweep import (
    LAUNCH_COLUMNS,
    POINT_COLUMNS,
    SweepError,
    SweepProgress,
    SweepResult,
    load_sweep,
    local_client,
    main,
    run_sweep,
)

# Debian's tornado and distributed: a deprecation inside distributed, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "python"
HYPOT_PTX = REPO / "examples" / "guide" / "hypot.ptx"
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(ptxray.__file__)))  # the workers' PYTHONPATH


# ---------------------------------------------------------------------------------------------------
# Helpers


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A temporary folder removed after the test (pytest's tmp_path keeps the last runs')."""
    with tempfile.TemporaryDirectory(prefix="ptxray-test-sweep-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """An embedded cluster of two single-threaded worker processes, for tests that need no more."""
    with local_client(workers=2) as connected:
        yield connected


def modern_gpus(count: int) -> list[str]:
    """The first ``count`` GPUs of the database from Fermi on (compute capability 2.0+: 1024
    threads per block), by the names the database gives them."""
    names = [str(gpu["name"]) for gpu in _core.gpus() if float(gpu["cc"]) >= 2.0]
    assert len(names) >= count, names
    return names[:count]


def hypot_spec(folder: Path, repeat: int) -> Path:
    """A spec of the guide's hypot kernel on 64K elements doing ``repeat`` rounds per element: the
    knob that makes a task as long as a test needs (1536: about 0.3 s)."""
    elements = 65536
    spec = {
        "module": str(HYPOT_PTX),
        "buffers": [
            {"name": "a", "bytes": 4 * elements, "init": {"random": {"dtype": "f32", "seed": 1, "min": -1, "max": 1}}},
            {"name": "b", "bytes": 4 * elements, "init": {"random": {"dtype": "f32", "seed": 2, "min": -1, "max": 1}}},
            {"name": "c", "bytes": 4 * elements},
        ],
        "launches": [
            {
                "grid": [elements // 256],
                "block": [256],
                "args": [
                    {"buffer": "a"},
                    {"buffer": "b"},
                    {"buffer": "c"},
                    {"type": "s32", "value": elements},
                    {"type": "s32", "value": repeat},
                    {"type": "f32", "value": 0},
                ],
            }
        ],
    }
    path = folder / f"hypot-{repeat}.json"
    path.write_text(json.dumps(spec))
    return path


def csv_value(cell: str, like: Any) -> Any:
    """A CSV cell back as the type of the JSON value ``like`` (the CSV output's documented forms)."""
    if like is None:
        assert cell == ""
        return None
    if isinstance(like, bool):
        return cell == "True"
    if isinstance(like, int):
        return int(cell)
    if isinstance(like, float):
        return float(cell)
    if isinstance(like, list):
        return [int(item) for item in cell.strip("()").split(", ")]
    return cell


# ---------------------------------------------------------------------------------------------------
# Sweep files and their errors: all found before any task runs


GOOD = {"specs": ["offset-copy.json"], "gpus": ["k20x", "h100"], "block_sizes": [64, 256]}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"block_size": [64]}, '<sweep>: block_size: unknown key (did you mean "block_sizes"?)'),
        ({"gpu": ["k20x"]}, '<sweep>: gpu: unknown key (did you mean "gpus"?)'),
        ({"gpus": ["k20x", "k2x"]}, '<sweep>: gpus[1]: unknown GPU "k2x" (did you mean "k20x"?)'),
        ({"gpus": ["sm_53"]}, '<sweep>: gpus[0]: unknown GPU "sm_53"'),
        ({"gpus": []}, '<sweep>: gpus: expected "all" or a non-empty list of GPU names'),
        ({"gpus": ["k20x", "K20X"]}, '<sweep>: gpus[1]: "K20X" is named twice'),
        ({"block_sizes": [64, 0]}, "<sweep>: block_sizes[1]: 0 is not a block size: expected an integer from 1 to"),
        ({"block_sizes": [2048]}, "<sweep>: block_sizes[0]: 2048 is not a block size"),
        ({"block_sizes": [32.5]}, "<sweep>: block_sizes[0]: 32.5 is not a block size"),
        ({"block_sizes": ["64"]}, '<sweep>: block_sizes[0]: "64" is not a block size'),
        ({"block_sizes": [True]}, "<sweep>: block_sizes[0]: true is not a block size"),
        ({"block_sizes": [64, 64]}, "<sweep>: block_sizes[1]: 64 is named twice"),
        ({"block_sizes": 64}, "<sweep>: block_sizes: expected a non-empty list of values"),
        ({"dynamic_shared_bytes": [-1]}, "<sweep>: dynamic_shared_bytes[0]: -1 is not a byte count"),
        ({"dlcm": ["ca", "cc"]}, '<sweep>: dlcm[1]: "cc": expected "ca" (loads cached in L1) or "cg" (L2 only)'),
        ({"bank_mode": [6]}, "<sweep>: bank_mode[0]: 6: expected 4 or 8"),
        ({"clock": ["turbo"]}, '<sweep>: clock[0]: "turbo": expected "default", "base", "boost" or a clock in MHz'),
        (
            {"record": ["achieved_ocupancy"]},
            '<sweep>: record[0]: unknown metric "achieved_ocupancy" (did you mean "achieved_occupancy"?)',
        ),
        ({"max_instructions": -5}, "<sweep>: max_instructions: -5: expected an integer from 0"),
        ({"specs": ["missing.json"]}, f"<sweep>: specs[0]: no such file: {EXAMPLES / 'missing.json'}"),
        ({"specs": []}, "<sweep>: specs: expected a non-empty list of run-spec paths"),
    ],
)
def test_sweep_errors_name_the_key(change: dict[str, Any], expected: str) -> None:
    document = {**GOOD, **change}
    with pytest.raises(SweepError) as caught:
        load_sweep(document, base_dir=EXAMPLES)
    assert str(caught.value).startswith(expected), str(caught.value)


def test_missing_keys_and_malformed_files(workdir: Path) -> None:
    with pytest.raises(SweepError, match=r"^<sweep>: gpus: missing"):
        load_sweep({"specs": ["offset-copy.json"]}, base_dir=EXAMPLES)
    bad_json = workdir / "bad.json"
    bad_json.write_text('{"specs": ["a.json"],}')
    with pytest.raises(SweepError, match=rf"^{re.escape(str(bad_json))}: not valid JSON: .* line 1 column 22"):
        load_sweep(bad_json)
    array = workdir / "array.json"
    array.write_text("[]")
    with pytest.raises(SweepError, match=r"a sweep is a JSON object"):
        load_sweep(array)
    with pytest.raises(SweepError, match=r"no such file"):
        load_sweep(workdir / "absent.json")


def test_a_valid_sweep_file(workdir: Path) -> None:
    (workdir / "specs").mkdir()
    spec = json.loads((EXAMPLES / "offset-copy.json").read_text())
    spec["module"] = str(REPO / "examples" / "guide" / "copy.ptx")
    (workdir / "specs" / "copy.json").write_text(json.dumps(spec))
    path = workdir / "sweep.json"
    path.write_text(
        json.dumps(
            {
                "_": "comments are ignored",
                "_also": 1,
                "specs": ["specs/copy.json"],  # relative to the sweep file
                "gpus": ["k20x", "sm_35", "GTX 480"],
                "block_sizes": [128, 32],
                "dlcm": ["cg"],
                "clock": ["base", 705, "800"],
                "record": ["achieved_occupancy"],
            }
        )
    )
    plan = load_sweep(path)
    assert plan.specs == (("specs/copy.json", str(workdir / "specs" / "copy.json")),)
    assert [board for _, board in plan.gpus] == ["Tesla K20X", "Tesla K20", "GeForce GTX 480"]
    assert plan.clock == ("base", "705", "800")
    assert plan.record == ("achieved_occupancy",)
    points = plan.points()
    assert len(points) == 3 * 2 * 3
    assert points[0].settings() == {"block_size": 128, "dlcm": "cg", "clock": "base"}
    assert points[-1].fields()["gpu"] == "GTX 480" and points[-1].block_size == 32
    everything = load_sweep({"specs": ["offset-copy.json"], "gpus": "all", "record": "all"}, base_dir=EXAMPLES)
    assert len(everything.gpus) >= 20 and everything.record is None


def test_errors_come_before_any_task() -> None:
    class NoClient:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the client was used ({name}) for a malformed sweep")

    with pytest.raises(SweepError, match="unknown GPU"):
        run_sweep({**GOOD, "gpus": ["k20x", "nope"]}, client=NoClient(), base_dir=EXAMPLES, progress=False)


def test_command_line_errors_and_dry_run(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = workdir / "sweep.json"
    sweep.write_text(json.dumps({**GOOD, "specs": [str(EXAMPLES / "offset-copy.json")], "block_size": [1]}))
    assert main([str(sweep)]) == 2
    assert 'block_size: unknown key (did you mean "block_sizes"?)' in capsys.readouterr().err
    sweep.write_text(json.dumps({**GOOD, "specs": [str(EXAMPLES / "offset-copy.json")]}))
    with pytest.raises(SystemExit) as exited:
        main([str(sweep), "-o", str(workdir / "table.xlsx")])
    assert exited.value.code == 2
    assert "unknown output type '.xlsx'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main([str(sweep), "--workers", "0"])
    assert exited.value.code == 2
    assert main([str(sweep), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["point", "spec", "gpu", "board", "block_size"]
    assert out.rstrip().endswith("4 points")
    assert not list(workdir.glob("*.xlsx"))


# ---------------------------------------------------------------------------------------------------
# The guide's examples on the embedded cluster


def test_guide_sweep_on_the_embedded_cluster(workdir: Path) -> None:
    document = json.loads((EXAMPLES / "guide-sweep.json").read_text())
    gpus = modern_gpus(20)
    document["gpus"] = gpus
    seen: list[SweepProgress] = []
    result = run_sweep(document, workers=2, progress=seen.append, base_dir=EXAMPLES)

    specs, blocks = document["specs"], document["block_sizes"]
    assert len(blocks) == 6 and len(specs) == 3
    assert len(result.points) == len(specs) * len(gpus) * len(blocks)
    assert [(row["spec"], row["gpu"], row["block_size"]) for row in result.rows] == [
        (spec, gpu, block) for spec in specs for gpu in gpus for block in blocks
    ]
    assert [row["point"] for row in result.rows] == list(range(len(result.points)))
    for row in result.rows:
        assert row["status"] == "success", row
        assert row["error"] == "" and row["launch"] == 0
        assert row["block"] == [row["block_size"], 1, 1]
        assert row["grid"][0] * row["block_size"] == 65536
        assert row["seconds"] > 0 and row["gpu__time_duration.sum"] == pytest.approx(row["seconds"] * 1e9)
        assert 0 < row["achieved_occupancy"] <= 1
    assert result.exit_status == 0
    assert seen[0].done == 0 and seen[-1].done == seen[-1].total == len(result.points)
    assert [progress.done for progress in seen] == sorted(progress.done for progress in seen)

    # The best configuration per spec and GPU: the least time, marked in the page.
    best = result.best()
    assert [(entry["spec"], entry["gpu"]) for entry in best] == [(spec, gpu) for spec in specs for gpu in gpus]
    for entry in best:
        times = [row["seconds"] for row in result.rows if (row["spec"], row["gpu"]) == (entry["spec"], entry["gpu"])]
        assert entry["seconds"] == min(times)
    page = result.to_html(workdir / "guide.html")
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    marks = r'data-spec="([^"]*)" data-gpu="([^"]*)" data-block-size="(\d+)"'
    rings = re.findall(r'<circle class="best" [^>]*' + marks, page)
    expected = {(entry["spec"], entry["gpu"], str(entry["block_size"])) for entry in best}
    assert set(rings) == expected
    assert len(rings) == 2 * len(best)  # on the time chart and the occupancy chart
    best_rows = re.findall(r'<tr class="best" ' + marks, page)
    assert set(best_rows) == expected and len(best_rows) == len(best)
    assert len(re.findall(r'<tr(?: class="[a-z]+")? data-point="\d+">', page)) == len(result.rows)  # the full table
    assert page.count("<svg") >= 2 * len(specs)

    # JSON and CSV: the same table; the CSV read back with the csv module.
    result.to_json(workdir / "guide.json")
    result.to_csv(workdir / "guide.csv")
    document_out = json.loads((workdir / "guide.json").read_text())
    assert document_out["schema"] == "ptxray-sweep" and document_out["version"] == 1
    assert document_out["columns"] == result.columns and document_out["rows"] == result.rows
    assert document_out["best"] == best
    with open(workdir / "guide.csv", newline="", encoding="utf-8") as table:
        reader = csv.DictReader(table)
        assert reader.fieldnames == document_out["columns"]
        csv_rows = list(reader)
    assert len(csv_rows) == len(document_out["rows"])
    for json_row, csv_row in zip(document_out["rows"], csv_rows):
        assert {column: csv_value(csv_row[column], value) for column, value in json_row.items()} == json_row
    text = result.to_text()
    assert text.count("\n") > len(result.rows) and "best per spec and GPU:" in text
    fragment = result._repr_html_()  # notebooks: the page without its frame
    assert fragment.startswith('<div class="ptxray-sweep">') and fragment.count("<svg") == page.count("<svg")
    assert repr(result).startswith(f"<SweepResult <sweep>: {len(result.points)} points, {len(result.rows)} rows, 0 ")


def test_progress_lines() -> None:
    import io

    from ptxray.sweep import _ProgressPrinter

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal, log = Terminal(), io.StringIO()
    for stream in (terminal, log):
        show = _ProgressPrinter(stream)
        for done in range(21):
            show(SweepProgress(done, 20, done // 10, 0, 0.1 * done))
    assert terminal.getvalue().startswith("\rsweep: 0/20 done, 0 failed\x1b[K\rsweep: 1/20 done, 0 failed")
    assert terminal.getvalue().endswith("\rsweep: 20/20 done, 2 failed\x1b[K\n")
    lines = log.getvalue().splitlines()  # not a terminal: a line per tenth
    assert lines[0] == "sweep: 2/20 done, 0 failed" and lines[-1] == "sweep: 20/20 done, 2 failed"
    assert len(lines) == 10


# ---------------------------------------------------------------------------------------------------
# Failures are rows; the command line and its outputs


def test_failures_are_rows(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = json.loads((EXAMPLES / "offset-copy.json").read_text())
    broken["module"] = str(REPO / "examples" / "guide" / "copy.ptx")
    broken["launches"][0]["kernel"] = "noSuchKernel"
    (workdir / "broken.json").write_text(json.dumps(broken))
    sweep = workdir / "sweep.json"
    sweep.write_text(
        json.dumps(
            {
                "specs": [str(EXAMPLES / "offset-copy.json"), "broken.json"],
                "gpus": ["gtx280", "k20x"],
                "block_sizes": [256, 1024],
                "record": ["achieved_occupancy"],
            }
        )
    )
    outputs = [workdir / "out.json", workdir / "out.csv", workdir / "out.html"]
    status = main([str(sweep), "--workers", "1", "--quiet", *(arg for path in outputs for arg in ("-o", str(path)))])
    assert status == 1  # a task failed (the broken spec)
    assert capsys.readouterr().err == ""  # --quiet
    rows = json.loads(outputs[0].read_text())["rows"]
    assert len(rows) == 8 and [row["point"] for row in rows] == list(range(8))
    by_point = {(Path(row["spec"]).name, row["gpu"], row["block_size"]): row for row in rows}
    refused = by_point[("offset-copy.json", "gtx280", 1024)]
    assert refused["status"] == "refused" and "1024" in refused["error"] and refused["achieved_occupancy"] is None
    assert by_point[("offset-copy.json", "k20x", 1024)]["status"] == "success"
    for gpu in ("gtx280", "k20x"):
        for block in (256, 1024):
            failed = by_point[("broken.json", gpu, block)]
            assert failed["status"] == "error" and failed["launch"] is None
            assert failed["error"].startswith("SpecError: ") and "noSuchKernel" in failed["error"]
    with open(outputs[1], newline="", encoding="utf-8") as table:
        assert [row["status"] for row in csv.DictReader(table)] == [row["status"] for row in rows]
    page = outputs[2].read_text()
    assert page.count('<tr class="failed"') == 4 and page.count('<tr class="refused"') == 1

    # Without -o: the text table on stdout, a refusal alone is not a failure.
    refused_only = {"specs": [str(EXAMPLES / "offset-copy.json")], "gpus": ["gtx280"], "block_sizes": [1024]}
    sweep.write_text(json.dumps(refused_only))
    assert main([str(sweep), "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "refused" in captured.out and "not successful:" in captured.out
    assert "sweep: 1/1 done, 0 failed, 1 with refused launches" in captured.err


# ---------------------------------------------------------------------------------------------------
# The sweep's table equals `ptxray run --metrics-json` point by point


def test_equal_to_ptxray_run(client: Any, cli: str, workdir: Path) -> None:
    document = {
        "specs": ["offset-copy.json", "hypot.json"],
        "gpus": ["gtx480", "k20x", "h100"],
        "block_sizes": [64, 1024],
        "dlcm": ["ca", "cg"],
        "record": "all",
    }
    result = run_sweep(document, client=client, progress=False, base_dir=EXAMPLES)
    assert len(result.rows) == 2 * 3 * 2 * 2
    for row, point in zip(result.rows, result.points):
        assert row["status"] == "success", row
        output = workdir / f"point-{point.index}.json"
        command = [cli, "run", point.spec_path, "--arch", point.gpu, "--block-size", str(point.block_size)]
        command += ["--dlcm", point.dlcm, "--metrics-json", str(output)]
        subprocess.run(command, check=True, capture_output=True, timeout=60)
        (launch,) = json.loads(output.read_text())["launches"]
        assert row["kernel"] == launch["kernel"] and row["grid"] == launch["grid"] and row["block"] == launch["block"]
        assert row["seconds"] == launch["time"]["seconds"] and row["bound"] == launch["time"]["bound"]
        assert row["board"] == launch["time"]["gpu"]
        metrics = {name: row[name] for name in result.columns[len(POINT_COLUMNS) + len(LAUNCH_COLUMNS) :]}
        assert metrics == launch["metrics"], point.describe()


def test_a_task_whose_workers_die_is_a_lost_row(workdir: Path) -> None:
    """With no failures allowed, the task running on a worker that dies is not re-run: its row says
    "lost", and every other point's result is there."""
    import dask
    import distributed

    # distributed's defaults are in Dask's configuration before the change below, whose undoing
    # would take them away otherwise.
    assert distributed.__version__ and "distributed" in dask.config.config

    spec = hypot_spec(workdir, repeat=512)
    document = {"specs": [str(spec)], "gpus": ["k20x"], "block_sizes": [32, 64, 96, 128, 160, 192, 224, 256]}
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), local_client(workers=2) as connected:
        pid_of = connected.run(os.getpid)
        killed: list[str] = []

        def kill_a_busy_worker(progress: SweepProgress) -> None:
            if killed or progress.done < 1:
                return
            for worker, keys in connected.processing().items():
                if keys:
                    os.kill(pid_of[worker], signal.SIGKILL)  # its nanny starts another
                    killed.append(worker)
                    return

        result = in_thread(lambda: run_sweep(document, client=connected, progress=kill_a_busy_worker), 120)
    assert killed
    statuses = [row["status"] for row in result.rows]
    assert len(statuses) == 8 and set(statuses) == {"success", "lost"}, statuses
    lost = [row for row in result.rows if row["status"] == "lost"]
    assert 1 <= len(lost) <= 2  # the task it ran, and one it may have been given to run next
    assert all(row["error"].startswith("KilledWorker: ") and row["launch"] is None for row in lost)
    assert result.exit_status == 1


# ---------------------------------------------------------------------------------------------------
# A real dask-scheduler and two dask-worker processes; one worker killed mid-sweep


class DaskProcesses:
    """A dask-scheduler on a free port of localhost and dask-worker processes (no nanny: a worker is
    one process), their output in ``folder/dask.log``; ``stop`` ends and waits for every one."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        self.log = open(folder / "dask.log", "wb")
        self.address = ""

    def start_scheduler(self) -> str:
        scheduler_file = self.folder / "scheduler.json"
        command = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0"]
        command += ["--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(scheduler_file)]
        scheduler = self.spawn(command, os.environ.get("PYTHONPATH", ""))
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert scheduler.poll() is None, (self.folder / "dask.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        self.address = json.loads(scheduler_file.read_text())["address"]
        return self.address

    def start_worker(self, name: str, pythonpath: str) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nthreads", "1"]
        command += ["--no-nanny", "--no-dashboard", "--host", "127.0.0.1", "--name", name]
        command += ["--local-directory", str(self.folder / name)]
        return self.spawn(command, pythonpath)

    def spawn(self, command: list[str], pythonpath: str) -> subprocess.Popen[bytes]:
        environment = {**os.environ, "PYTHONPATH": pythonpath}
        process = subprocess.Popen(command, env=environment, stdout=self.log, stderr=self.log, cwd=self.folder)
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.log.close()


@pytest.fixture
def dask_processes(workdir: Path) -> Iterator[DaskProcesses]:
    """Dask processes started by the test, stopped whatever happened."""
    processes = DaskProcesses(workdir)
    try:
        yield processes
    finally:
        processes.stop()


def in_thread(function: Any, timeout: float) -> Any:
    """``function()`` in a daemon thread, waited for at most ``timeout`` seconds: a sweep whose
    cluster lost every worker would wait for new ones forever, and the test must end (and stop its
    processes) even then."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"no result in {timeout} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_scheduler_with_a_worker_killed_mid_sweep(
    workdir: Path, dask_processes: DaskProcesses, capsys: pytest.CaptureFixture[str]
) -> None:
    import distributed

    spec = hypot_spec(workdir, repeat=1024)
    blocks = [32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512]
    address = dask_processes.start_scheduler()
    workers = [dask_processes.start_worker(f"worker-{number}", PACKAGE_PARENT) for number in range(2)]
    with distributed.Client(address, set_as_default=False) as connected:
        connected.wait_for_workers(2, timeout=60)
        pid_of = connected.run(os.getpid)  # worker address -> process id
        assert set(pid_of.values()) == {worker.pid for worker in workers}
        killed: list[int] = []

        def kill_a_busy_worker(progress: SweepProgress) -> None:
            if killed or progress.done < 2:
                return
            for worker, keys in connected.processing().items():
                if keys:  # a worker with a task running: kill it there
                    os.kill(pid_of[worker], signal.SIGKILL)
                    killed.append(pid_of[worker])
                    return

        document = {"specs": [str(spec)], "gpus": ["k20x"], "block_sizes": blocks}
        result = in_thread(lambda: run_sweep(document, client=connected, progress=kill_a_busy_worker), 120)
        assert killed, "no worker was busy when the sweep was two tasks in"
        victim = next(worker for worker in workers if worker.pid == killed[0])
        assert victim.wait(timeout=10) == -signal.SIGKILL
        assert [(row["block_size"], row["status"]) for row in result.rows] == [(block, "success") for block in blocks]
        assert result.exit_status == 0
        assert len(connected.scheduler_info()["workers"]) == 1

    # --scheduler: the same cluster by its address, from the command line (one worker left).
    sweep = workdir / "sweep.json"
    sweep.write_text(json.dumps({"specs": [str(spec)], "gpus": ["h100", "k20x"], "block_sizes": [128]}))
    output = workdir / "out.json"
    assert in_thread(lambda: main([str(sweep), "--scheduler", address, "--quiet", "-o", str(output)]), 60) == 0
    rows = json.loads(output.read_text())["rows"]
    assert [(row["gpu"], row["status"]) for row in rows] == [("h100", "success"), ("k20x", "success")]

    # A worker without ptxray: the sweep stops before submitting anything (a task it could not
    # unpickle would kill it), naming the worker.
    output.unlink()
    stranger = dask_processes.start_worker("stranger", "")
    with distributed.Client(address, set_as_default=False) as connected:
        connected.wait_for_workers(2, timeout=60)
    capsys.readouterr()
    assert in_thread(lambda: main([str(sweep), "--scheduler", address, "--quiet", "-o", str(output)]), 60) == 1
    error = capsys.readouterr().err
    assert "sweep: error: workers cannot import ptxray" in error and "ModuleNotFoundError" in error, error
    assert not output.exists()
    assert stranger.poll() is None  # alive: the check sends it nothing of ptxray
    dask_processes.stop()
    assert all(process.poll() is not None for process in dask_processes.processes)


# ---------------------------------------------------------------------------------------------------
# Two workers against one: run alone (CTest RUN_SERIAL), it measures wall time


def _run_task(arguments: tuple[str, int]) -> float:
    """One sweep task's work without Dask (for the machine's own two-process speed-up)."""
    spec, shared = arguments
    start = time.perf_counter()
    _core.run_spec(spec, "k20x", dynamic_shared_bytes=shared, threads=1)
    return time.perf_counter() - start


def _parallelism(task_stream: list[dict[str, Any]]) -> float:
    """The time the tasks computed, summed, over the time from the first start to the last end:
    how many workers were busy on average (Dask's task stream, measured on the workers)."""
    spans = [(ss["start"], ss["stop"]) for task in task_stream for ss in task["startstops"] if ss["action"] == "compute"]
    busy = sum(stop - start for start, stop in spans)
    return busy / (max(stop for _, stop in spans) - min(start for start, _ in spans))


def test_two_workers_speedup(workdir: Path) -> None:
    """Two workers against one on 16 equal tasks of about 0.2 s, on clusters started beforehand
    (their startup is not counted).

    What Dask controls is measured on the workers: in the two-worker sweep, both must be computing
    nearly all the time (the tasks' compute time over the sweep's span, from Dask's task stream:
    at least 1.8). The wall-clock speed-up is also measured, but it is only as good as the machine's
    two cores, and the virtual machines this runs on have spells where two busy processes get much
    less than two cores (two plain C loops measured at 1.1x; the same sweep at 1.5x). So the same
    16 tasks also run in one and in two plain processes (multiprocessing, no Dask), timed in
    alternation with the sweeps, up to three rounds, the fastest run of each kind counting. When the
    plain processes show a quiet machine (1.9x to 2.1x), the sweep's speed-up must be 1.8x; when
    they do not (less, or an impossible 2.4x from a one-process run slowed by the host: seen in CI),
    it must be 80% of what the plain processes reached, at most 2x.
    """
    import multiprocessing

    from distributed import get_task_stream

    spec = hypot_spec(workdir, repeat=1024)
    shared = [64 * n for n in range(16)]
    # 16 equal tasks: the same VM work, 16 dynamic shared memory sizes the kernel never touches.
    sweep = load_sweep({"specs": [str(spec)], "gpus": ["k20x"], "dynamic_shared_bytes": shared})
    warm_up = load_sweep({"specs": [str(spec)], "gpus": ["k20x"], "dynamic_shared_bytes": [0, 64]})
    dask_times: dict[int, list[float]] = {2: [], 1: []}
    plain_times: dict[int, list[float]] = {2: [], 1: []}
    parallelism: list[float] = []
    results: list[SweepResult] = []
    context = multiprocessing.get_context("spawn")
    with local_client(workers=2) as two, local_client(workers=1) as one, context.Pool(2) as pool2, context.Pool(
        1
    ) as pool1:
        clients = {2: two, 1: one}
        pools = {2: pool2, 1: pool1}
        for client in clients.values():
            run_sweep(warm_up, client=client, progress=False)  # every worker has run the VM
        for pool in pools.values():
            pool.map(_run_task, [(str(spec), 0)] * 2, chunksize=1)
        for attempt in range(3):
            for workers in (2, 1):
                with get_task_stream(client=clients[workers]) as stream:
                    start = time.perf_counter()
                    results.append(run_sweep(sweep, client=clients[workers], progress=False))
                    dask_times[workers].append(time.perf_counter() - start)
                if workers == 2:
                    parallelism.append(_parallelism(stream.data))
                start = time.perf_counter()
                pools[workers].map(_run_task, [(str(spec), b) for b in shared], chunksize=1)
                plain_times[workers].append(time.perf_counter() - start)
            if attempt >= 1 and min(dask_times[1]) / min(dask_times[2]) >= 1.8:
                break
    for result in results:
        assert [row["status"] for row in result.rows] == ["success"] * 16
        assert [row["seconds"] for row in result.rows] == [row["seconds"] for row in results[0].rows]
    per_task = min(dask_times[1]) / 16
    dask = min(dask_times[1]) / min(dask_times[2])
    plain = min(plain_times[1]) / min(plain_times[2])
    rounded = {w: [round(v, 2) for v in values] for w, values in dask_times.items()}
    print(f"Dask: two workers {rounded[2]} s, one worker {rounded[1]} s: {dask:.2f}x ({per_task:.2f} s a task), "
          f"workers busy {[round(p, 2) for p in parallelism]}; plain processes: {plain:.2f}x")
    assert 0.2 <= per_task <= 1.0, "the tasks are not the size this test is made for"
    assert max(parallelism) >= 1.8
    quiet = 1.9 <= plain <= 2.1
    assert dask >= (1.8 if quiet else 0.8 * min(plain, 2.0))
