"""Writes the Python API reference from the docstrings (pydoc's HTML), one page per module, into the
current folder: `python3 make_docs.py ptxray ptxray.sweep`. A module that cannot be imported here (its
optional packages, Dask say, missing) gets a page that says so rather than failing the build."""

import html
import importlib
import pydoc
import sys

# Not this script's folder, which holds the package's sources without the native part: the build
# tree's package, from PYTHONPATH.
sys.path.pop(0)

for name in sys.argv[1:]:
    try:
        module = importlib.import_module(name)
        page = pydoc.html.page(pydoc.describe(module), pydoc.html.document(module, name))
    except ImportError as error:
        page = f"<html><body><h1>{html.escape(name)}</h1><p>not importable where this was built: " \
               f"{html.escape(str(error))}</p></body></html>"
    with open(f"{name}.html", "w", encoding="utf-8") as out:
        out.write(page)
