"""The Python module's API: results against NumPy, metrics against `ptxray run --metrics-json`,
occupancy against hand-derived numbers, and every error a Python caller can make as a Python
exception (never a crash of the interpreter)."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ptxray

N = 1 << 16
GRID, BLOCK = N // 256, 256


@pytest.fixture(scope="module")
def k20x() -> ptxray.Device:
    return ptxray.Device("k20x", threads=1)


@pytest.fixture(scope="module")
def saxpy_module(k20x, source_dir):
    return k20x.load(source_dir / "examples" / "saxpy.ptx")


@pytest.fixture(scope="module")
def copy_module(k20x, source_dir):
    return k20x.load(source_dir / "examples" / "guide" / "copy.ptx")


def inputs():
    x = np.arange(N, dtype=np.float32)
    y = np.random.default_rng(7).integers(-100, 100, N).astype(np.float32)
    return x, y


def test_device_views_share_memory_with_kernels(k20x, saxpy_module):
    """Arrays from the device are its memory: the kernel's writes show without a copy, and the
    results are NumPy's (integer-valued inputs: a*x+y is exact with or without a fused multiply-add)."""
    x, y = inputs()
    dx, dy = k20x.asarray(x), k20x.asarray(y)
    assert isinstance(dy, np.ndarray) and dy.dtype == np.float32 and dy.shape == (N,)
    run = saxpy_module["saxpy"][GRID, BLOCK](N, 2.5, dx, dy)
    assert run.ok and run.status == "success"
    np.testing.assert_array_equal(dy, np.float32(2.5) * x + y)
    np.testing.assert_array_equal(dx, x)  # read only by the kernel
    # Python's writes reach the next launch.
    dy[:] = 1
    saxpy_module["saxpy"].launch(GRID, BLOCK, N, 2.0, dx, dy)
    np.testing.assert_array_equal(dy, 2 * x + 1)


def test_plain_arrays_are_copied_in_and_out(k20x, saxpy_module):
    x, y = inputs()
    expected = np.float32(2.5) * x + y
    frozen = x.copy()
    frozen.flags.writeable = False
    saxpy_module["saxpy"].launch(GRID, BLOCK, N, 2.5, frozen, y)
    np.testing.assert_array_equal(y, expected)
    # A view with an offset starts where it starts.
    z = np.zeros(N + 64, dtype=np.float32)
    saxpy_module["saxpy"].launch(GRID, BLOCK, N, 1.0, x, z[64:])
    np.testing.assert_array_equal(z[64:], x)
    assert not z[:64].any()


def test_metrics_equal_the_command_lines(k20x, saxpy_module, cli, source_dir, tmp_path):
    """The launch's metrics, time and lines are what `ptxray run --metrics-json` reports for the
    same launch on the same GPU: one pipeline."""
    x = k20x.asarray(np.arange(N, dtype=np.float32))
    y = k20x.zeros(N, np.float32)
    run = saxpy_module["saxpy"].launch(GRID, BLOCK, N, 2.5, x, y)
    out = tmp_path / "m.json"
    subprocess.run([cli, "run", str(source_dir / "examples" / "saxpy.ptx"), "--arch", "k20x", "--threads", "1",
                    "--kernel", "saxpy", "--grid", str(GRID), "--block", str(BLOCK),
                    "--buffer", f"x={4 * N}:iota:f32", "--buffer", f"y={4 * N}",
                    "--arg", f"u32:{N}", "--arg", "f32:2.5", "--arg", "buf:x", "--arg", "buf:y",
                    "--metrics-json", str(out)], check=True, capture_output=True)
    document = json.loads(out.read_text())["launches"][0]
    assert run.metrics == document["metrics"]
    assert run.time == document["time"]["seconds"] and run.bound == document["time"]["bound"]
    assert run.lines == document["lines"]
    assert run.metrics["gld_efficiency"] == 100.0
    assert run.metrics["gld_requests"] == 2 * N // 32  # x and y: a load request each per warp


def test_analysis_finds_the_strided_copy(k20x, copy_module):
    """strideCopy with a stride of 32 floats: every thread of a warp in its own 128-byte segment."""
    stride = 32
    idata = k20x.asarray(np.arange(N * stride, dtype=np.float32))
    odata = k20x.zeros(N * stride, np.float32)
    run = copy_module["strideCopy"].launch(GRID, BLOCK, odata, idata, stride)
    np.testing.assert_array_equal(odata[::stride], idata[::stride])
    assert run.metrics["gld_efficiency"] < 13  # 4 of 128 bytes per segment
    analysis = run.analyze()
    rules = [f.rule for f in analysis.findings]
    assert "uncoalesced-global" in rules
    finding = analysis.findings[rules.index("uncoalesced-global")]
    assert finding.lines and finding.lines[0]["line"] > 0 and finding.fix
    assert "<html" in analysis._repr_html_().lower()
    assert finding.title in analysis.text
    assert analysis.document["schema"] == "ptxray-analysis"
    assert "uncoalesced" in finding._repr_html_().lower() or finding.title in finding._repr_html_()
    only = run.analyze(only=["uncoalesced-global"])
    assert [f.rule for f in only.findings] == ["uncoalesced-global"]
    with pytest.raises(ValueError, match="no-such-rule"):
        run.analyze(only=["no-such-rule"])


def test_occupancy_by_hand():
    # sm_35: 64 warps, 16 blocks, 64K registers per SM. 256 threads x 32 registers: 8 blocks, all warps.
    full = ptxray.occupancy("k20x", 256, registers=32)
    assert full["active_blocks_per_sm"] == 8 and full["occupancy"] == 1.0 and "warps" in full["limiters"]
    # 64 registers: 65536 / (64 x 256) = 4 blocks, 32 of 64 warps.
    half = ptxray.occupancy("k20x", 256, registers=64)
    assert half["active_blocks_per_sm"] == 4 and half["occupancy"] == 0.5 and half["limiters"] == ["registers"]
    # 32 threads a block: the 16-block limit leaves 16 of 64 warps.
    small = ptxray.occupancy("sm_35", 32)
    assert small["active_warps_per_sm"] == 16 and small["limiters"] == ["blocks"]
    assert not ptxray.occupancy("k20x", 2048)["launches"]
    with pytest.raises(ValueError):
        ptxray.occupancy("k20x", 0)


def test_kernel_signature_and_resources(saxpy_module):
    kernel = saxpy_module["saxpy"]
    assert [p[1] for p in kernel.params] == ["u32", "f32", "u64", "u64"]
    assert kernel.registers > 0 and kernel.static_shared_bytes == 0
    assert kernel.occupancy(256)["registers_per_thread"] == kernel.registers
    assert "saxpy" in repr(kernel)


def test_faults_raise_with_the_cuda_line(k20x, saxpy_module):
    x = k20x.zeros(N, np.float32)
    y = k20x.zeros(N, np.float32)
    with pytest.raises(ptxray.KernelFault) as caught:
        saxpy_module["saxpy"].launch(2 * GRID, BLOCK, 2 * N, 2.5, x, y)  # twice the arrays' size
    fault = caught.value.faults[0]
    assert fault["kind"] == "out-of-bounds"
    assert fault["file"].endswith("saxpy.cu") and fault["line"] > 0
    assert fault["block"][0] >= GRID  # the first block past the end
    assert caught.value.launch.status == "faulted"
    assert "saxpy.cu" in str(caught.value)
    with pytest.raises(ptxray.LaunchRefused, match="1024"):
        saxpy_module["saxpy"].launch(1, 2048, N, 2.5, x, y)
    # The device goes on after a fault, as a context that reports it would not: ptxray's devices do.
    saxpy_module["saxpy"].launch(GRID, BLOCK, N, 2.5, x, y)


def test_racecheck_reports_as_objects(source_dir):
    device = ptxray.Device("sm_75", tools=["racecheck"], threads=1)
    races = device.load(source_dir / "tests" / "kernels" / "sanitizers" / "ptx" / "races.ptx")
    data = device.asarray(np.arange(64, dtype=np.int32))
    out = device.zeros(128, np.int32)
    run = races["rawBetweenWarps"].launch(2, 64, data, out)
    assert run.ok
    assert len(run.reports) == 1
    report = run.reports[0]
    assert report.tool == "racecheck" and report.severity == "error"
    assert "Read-After-Write" in report.message
    assert report.file.endswith("races.cu") and report.line == 9
    assert "RACECHECK" not in run.tool_text and "Race reported" in run.tool_text
    assert device.summaries() == [{"tool": "racecheck", "errors": 1, "warnings": 0}]


@pytest.mark.parametrize("call, error, message", [
    (lambda k, x, y: k.launch(GRID, BLOCK, N, 2.5, x), TypeError, "takes 4 arguments"),
    (lambda k, x, y: k.launch(GRID, BLOCK, -(1 << 31) - 1, 2.5, x, y), ValueError, "out of range for .u32"),
    (lambda k, x, y: k.launch(GRID, BLOCK, 1 << 32, 2.5, x, y), ValueError, "out of range"),
    (lambda k, x, y: k.launch(GRID, BLOCK, 2.5, 2.5, x, y), TypeError, "a float for an integer parameter"),
    (lambda k, x, y: k.launch(GRID, BLOCK, N, np.float64(2.5), x, y), TypeError, "numpy.float64 for a .f32"),
    (lambda k, x, y: k.launch(GRID, BLOCK, N, "2.5", x, y), TypeError, "a number"),
    (lambda k, x, y: k.launch(GRID, BLOCK, N, 2.5, x, None), TypeError, "NoneType"),
    (lambda k, x, y: k.launch(GRID, BLOCK, x, 2.5, x, y), TypeError, "not a pointer"),
    (lambda k, x, y: k.launch(GRID, BLOCK, N, 2.5, x, np.zeros((N, 2), np.float32)[:, 0]), ValueError,
     "not C-contiguous"),
    (lambda k, x, y: k.launch(0, BLOCK, N, 2.5, x, y), ValueError, "grid: extent x is 0"),
    (lambda k, x, y: k.launch((1, 1, 1, 1), BLOCK, N, 2.5, x, y), ValueError, "1 to 3 extents"),
    (lambda k, x, y: k.launch("4", BLOCK, N, 2.5, x, y), TypeError, "grid"),
    (lambda k, x, y: k.launch(GRID, BLOCK, N, 2.5, x, y, shared=1 << 40), ValueError, "shared"),
    (lambda k, x, y: k[GRID](N, 2.5, x, y), TypeError, r"kernel\[grid, block\]"),
])
def test_argument_errors(k20x, saxpy_module, call, error, message):
    x, y = k20x.zeros(N, np.float32), k20x.zeros(N, np.float32)
    with pytest.raises(error, match=message):
        call(saxpy_module["saxpy"], x, y)


def test_int_parameters_take_negative_values(k20x, saxpy_module):
    """nvcc declares C's `int` parameters .u32: -1 is a valid n (no element is below it)."""
    x, y = k20x.zeros(N, np.float32), k20x.full(N, 7, np.float32)
    saxpy_module["saxpy"].launch(GRID, BLOCK, -1, 2.5, x, y)
    assert (y == 7).all()


def test_module_and_device_errors(k20x, saxpy_module, tmp_path):
    with pytest.raises(KeyError, match="no kernel \"nope\""):
        saxpy_module["nope"]
    with pytest.raises(ValueError, match="unknown architecture 'k99'"):
        ptxray.Device("k99")
    with pytest.raises(ValueError, match="unknown tool"):
        ptxray.Device("k20x", tools=["memcheck", "bogus"])
    with pytest.raises(ValueError, match="bank"):
        ptxray.Device("h100", bank_mode=3)
    with pytest.raises(FileNotFoundError):
        k20x.load(tmp_path / "missing.ptx")
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k() { bogus.op; }\n")
    with pytest.raises(ptxray.ModuleError, match=r"bad\.ptx:4"):
        k20x.load(bad)
    with pytest.raises(MemoryError):
        k20x.empty(1 << 50, np.float32)
    with pytest.raises(ValueError, match="negative"):
        k20x.empty(-1)
    with pytest.raises(TypeError):
        k20x.empty(4, dtype="not a dtype")


def test_memory_is_freed_with_the_last_view(k20x):
    before = k20x.memory_in_use
    a = k20x.zeros(1 << 20, np.float32)
    assert k20x.memory_in_use == before + (4 << 20)
    view = a[10:20]
    del a
    view[:] = 3  # the allocation lives while a view does
    assert (view == 3).all() and k20x.memory_in_use == before + (4 << 20)
    del view
    assert k20x.memory_in_use == before


def test_leakcheck_at_the_end(source_dir):
    """keepBlocks: thread 0 of each of 4 blocks mallocs 256 bytes that nothing frees."""
    device = ptxray.Device("sm_75", tools=["leakcheck"], threads=1)
    leaks = device.load(source_dir / "tests" / "kernels" / "sanitizers" / "ptx" / "leaks.ptx")
    blocks = device.zeros(4, np.uint64)
    leaks["keepBlocks"][4, 32](blocks)
    assert (blocks != 0).all()
    reports = device.leaks()
    assert len(reports) == 1
    assert reports[0].tool == "leakcheck" and "Leaked 1024 bytes in 4 device-heap blocks" in reports[0].message
    assert reports[0].file.endswith("leaks.cu") and reports[0].line == 18
    leaks["releaseBlocks"][4, 32](blocks)
    assert device.leaks() == []


def test_numpy_inputs_of_every_kind(k20x, saxpy_module):
    saxpy = saxpy_module["saxpy"]
    x, y = k20x.zeros(N, np.float32), k20x.zeros(N, np.float32)
    # NumPy integers for extents, shapes and integer parameters (checked by value).
    saxpy.launch(np.int64(GRID), (np.uint16(BLOCK),), np.int64(N), 2.5, x, y)
    assert k20x.zeros((np.int32(2), 3)).shape == (2, 3)
    with pytest.raises(ValueError, match="out of range"):
        saxpy.launch(GRID, BLOCK, np.int64(1 << 40), 2.5, x, y)
    # Floats beyond the parameter's type.
    with pytest.raises(ValueError, match="out of range for .f32"):
        saxpy.launch(GRID, BLOCK, N, 1e300, x, y)
    with pytest.raises(ValueError, match="out of range"):
        saxpy.launch(GRID, BLOCK, N, 10 ** 400, x, y)
    # A 0-d array is its scalar, with the scalar's rules.
    saxpy.launch(GRID, BLOCK, N, np.array(2.5, np.float32), x, y)
    with pytest.raises(TypeError, match="numpy.float64"):
        saxpy.launch(GRID, BLOCK, N, np.array(2.5), x, y)
    # Arrays of Python objects and arrays in the other byte order are refused.
    with pytest.raises(TypeError, match="Python objects"):
        saxpy.launch(GRID, BLOCK, N, 2.5, x, np.array([object()] * N))
    with pytest.raises(TypeError, match="not Python objects"):
        k20x.empty(4, object)
    with pytest.raises(ValueError, match="byte order"):
        saxpy.launch(GRID, BLOCK, N, 2.5, x, np.zeros(N, ">f4"))
    swapped = k20x.asarray(np.arange(4, dtype=">f4"))
    assert swapped.dtype.isnative and list(swapped) == [0, 1, 2, 3]


def test_run_spec_is_ptxray_run(cli, source_dir, tmp_path):
    spec = source_dir / "examples" / "saxpy.json"
    result = ptxray.run_spec(spec, "gtx680", threads=1)
    out = tmp_path / "m.json"
    subprocess.run([cli, "run", str(spec), "--arch", "gtx680", "--threads", "1", "--metrics-json", str(out)],
                   check=True, capture_output=True)
    assert result["ok"] and result["status"] == 0
    assert result["metrics"] == json.loads(out.read_text())
    assert [l["kernel"] for l in result["launches"]] == ["saxpy", "block_sum"]
    with pytest.raises(ptxray.SpecError, match="nope.json"):
        ptxray.run_spec(tmp_path / "nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"module": "x.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [0]}]}')
    with pytest.raises(ptxray.SpecError, match=r"launches\[0\]\.block"):
        ptxray.run_spec(broken)


def test_analyze_compare_and_timeline(source_dir):
    aat = source_dir / "examples" / "guide" / "aat.json"
    comparison = ptxray.compare(aat, ["gtx280", "k20x"], threads=1)
    assert set(comparison.times) == {"gtx280", "k20x"}
    assert comparison.fastest == "k20x"  # 14 Kepler SMs against 30 of the GT200's 8-wide ones
    assert all(t > 0 for times in comparison.times.values() for t in times)
    assert "<table>" in comparison._repr_html_()
    analysis = ptxray.analyze(aat, "k20x", threads=1)
    assert analysis.findings and analysis.findings[0].priority in ("high", "medium", "low")
    overlap = source_dir / "examples" / "guide" / "overlap.json"
    timeline = ptxray.timeline(overlap, "k20x", threads=1)
    assert timeline.document and "<svg" in timeline.html
    with pytest.raises(TypeError, match="unknown setting"):
        ptxray.analyze(aat, "k20x", blocksize=3)


def test_gpu_database():
    names = [g["name"] for g in ptxray.gpus()]
    assert len(names) >= 20 and "k20x" in names
    assert ptxray.arch("k20x")["cc"] == "3.5"


def test_threads_share_a_device(k20x, saxpy_module):
    """Launches from several threads on one device, with views dropped as they go: each thread's
    results are its own, and nothing waits forever (the GIL is released while the VM runs)."""
    import threading
    errors = []

    def work(value):
        try:
            for _ in range(4):
                x = k20x.asarray(np.full(N, value, np.float32))
                y = k20x.zeros(N, np.float32)
                saxpy_module["saxpy"].launch(GRID, BLOCK, N, 1.0, x, y)
                assert (y == value).all()
                del x, y
        except Exception as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(v,)) for v in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not errors


def test_opencl_kernel_with_local_memory(source_dir):
    """An OpenCL C kernel (clang + libclc) with a build option and a __local buffer argument:
    ids reversed within each work-group through local memory."""
    device = ptxray.Device("k20x", threads=1)
    module = device.load(source_dir / "tests" / "opencl" / "kernels" / "ndrange.cl", build_options="-D SCALE=1000")
    out = device.zeros(256, np.uint32)
    module["reverseIds"][4, 64](out, ptxray.Local(64 * 4))
    ids = np.arange(256, dtype=np.uint32).reshape(4, 64)
    np.testing.assert_array_equal(out.reshape(4, 64), ids[:, ::-1] + 1000)
    # Too little local memory for the group: the kernel writes past it.
    with pytest.raises(ptxray.KernelFault) as caught:
        module["reverseIds"][4, 64](out, ptxray.Local(16))
    assert caught.value.faults[0]["kind"] == "out-of-bounds"
    with pytest.raises(ValueError, match="positive"):
        ptxray.Local(0)
