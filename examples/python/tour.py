# %% [markdown]
# # A tour of ptxray from Python
#
# Cells are marked `# %%`: Jupyter (with jupytext), VS Code and Spyder open this file as a notebook;
# `python3 examples/python/tour.py` runs it top to bottom. Run from the repository's root with the
# build tree's package on the path:
#
#     PYTHONPATH=build/release/python python3 examples/python/tour.py
#
# The OpenCL Best Practices Guide's coalescing experiments (its section 3.2.1), on two GPUs.

# %%
import os

import numpy as np

import ptxray

here = os.path.dirname(os.path.abspath(__file__))
examples = os.path.dirname(here)

# %% [markdown]
# ## A modeled GPU, a module, device arrays
# Arrays from the device are its memory: the kernel's writes are in `odata` without a copy.

# %%
k20x = ptxray.Device("k20x")
copy = k20x.load(os.path.join(examples, "guide", "copy.ptx"))
print(copy.kernels, copy["strideCopy"])

n = 1 << 20
idata = k20x.asarray(np.arange(2 * n, dtype=np.float32))
odata = k20x.zeros(2 * n, np.float32)
run = copy["offsetCopy"][n // 256, 256](odata, idata, 1)
assert (odata[1:n + 1] == idata[1:n + 1]).all()
print(run)

# %% [markdown]
# ## The guide's experiment: effective bandwidth against the offset
# Misaligned copies cost a second segment per warp on compute capability 1.2/1.3 (the GTX 280) but
# hardly anything with Kepler's caches (Figure 3.6 and 3.7 of the guide).

# %%
for gpu in ("gtx280", "k20x"):
    device = ptxray.Device(gpu)
    kernel = device.load(os.path.join(examples, "guide", "copy.ptx"))["offsetCopy"]
    src = device.asarray(np.arange(2 * n, dtype=np.float32))
    dst = device.zeros(2 * n, np.float32)
    row = []
    for offset in (0, 1, 16, 32):
        launch = kernel[n // 256, 256](dst, src, offset)
        row.append(f"{offset:>2}: {launch.metrics['ptxray__effective_bandwidth_gb_s']:6.1f} GB/s")
    print(f"{gpu:>7}  " + "  ".join(row))

# %% [markdown]
# ## What to change: the advisor
# A stride of 16 floats puts each thread of a warp in its own segment.

# %%
wide = k20x.zeros(16 * n, np.float32)
src16 = k20x.asarray(np.arange(16 * n, dtype=np.float32))
strided = copy["strideCopy"][n // 256, 256](wide, src16, 16)
analysis = strided.analyze()
for finding in analysis.findings:
    print(finding)
# In a notebook, `analysis` alone shows the HTML report.

# %% [markdown]
# ## Errors are Python exceptions, with the CUDA line

# %%
try:
    copy["offsetCopy"][2 * n // 256, 256](odata, idata, 1)  # one element past the end
except ptxray.KernelFault as fault:
    first = fault.faults[0]
    print(f"{first['kind']} at {os.path.basename(first['file'])}:{first['line']}, block {first['block']}")

try:
    copy["offsetCopy"][1, 256](odata, idata, 1.5)
except TypeError as error:
    print(error)

# %% [markdown]
# ## Occupancy, comparisons
# %%
print(ptxray.occupancy("k20x", 256, registers=64))
comparison = ptxray.compare(os.path.join(examples, "guide", "aat.json"), ["gtx280", "k20x", "h100"])
print(comparison)
