"""The HTML page of a sweep (``SweepResult.to_html``): self-contained, charts as inline SVG.

Per spec and launch, two charts against the block size (threads per block when the sweep keeps each
spec's own): the model's time (log scale) and the achieved occupancy, a line per GPU (a colour per
GPU, a dash pattern per combination of the sweep's other settings). The best configuration of each
GPU (``SweepResult.best()``: the least total time of the spec's launches) is ringed on every chart of
its spec, and listed in a table. Then the full table, best rows highlighted, failures in red.

Machine-readable marks, for tests and scripts: a best point's ring is
``<circle class="best" data-spec=S data-gpu=G data-block-size=N data-point=P>``, its row of a spec's
best table ``<tr class="best" data-spec=S data-gpu=G data-block-size=N data-point=P>`` and each row
of the full table ``<tr data-point=P>``. No script, no external resource.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxray.sweep import SweepResult

__all__ = ["render_html"]

# Occupancy metrics in order of preference, with the factor that makes each a percentage.
_OCCUPANCY = (
    ("achieved_occupancy", 100.0),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", 1.0),
    ("ptxray__theoretical_occupancy", 100.0),
)
_DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 5", "10 4 4 4")

_STYLE = """
.ptxray-sweep { font: 14px/1.4 system-ui, sans-serif; color: #222; }
.ptxray-sweep h1 { font-size: 1.4em; } .ptxray-sweep h2 { font-size: 1.2em; margin-top: 2em; }
.ptxray-sweep h3 { font-size: 1.05em; }
.ptxray-sweep .charts { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.ptxray-sweep svg.chart { background: #fff; border: 1px solid #ddd; }
.ptxray-sweep svg text { font: 11px system-ui, sans-serif; fill: #333; }
.ptxray-sweep svg .grid { stroke: #eee; } .ptxray-sweep svg .axis { stroke: #888; }
.ptxray-sweep ul.legend { list-style: none; padding: 0; margin: 0; columns: 3 12em; font-size: 12px; }
.ptxray-sweep ul.legend li { white-space: nowrap; }
.ptxray-sweep table { border-collapse: collapse; font-size: 12px; margin: 0.5em 0; }
.ptxray-sweep th, .ptxray-sweep td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
.ptxray-sweep th { background: #f3f3f3; position: sticky; top: 0; }
.ptxray-sweep td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ptxray-sweep tr.best td { background: #e8f5e9; font-weight: 600; }
.ptxray-sweep tr.failed td { background: #fdecea; } .ptxray-sweep tr.refused td { background: #fff8e1; }
.ptxray-sweep .note { color: #666; }
"""


def render_html(result: SweepResult, *, full_page: bool = True, max_rows: int | None = None) -> str:
    """The sweep's page: a whole HTML document, or (``full_page=False``) a fragment for a notebook.
    ``max_rows`` cuts the full table (None: every row)."""
    sweep = result.sweep
    best = result.best()
    parts = [f"<div class=\"ptxray-sweep\">\n<style>{_STYLE}</style>"]
    parts.append(f"<h1>ptxray sweep: {_e(sweep.source)}</h1>")
    parts.append(_summary(result))
    for spec, _ in sweep.specs:
        parts.append(_spec_section(result, spec, [entry for entry in best if entry["spec"] == spec]))
    parts.append(_full_table(result, max_rows))
    parts.append("</div>")
    body = "\n".join(parts)
    if not full_page:
        return body
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>ptxray sweep: {_e(sweep.source)}</title>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _summary(result: SweepResult) -> str:
    sweep = result.sweep
    failed = {row["point"] for row in result.failed_rows}
    refused = {row["point"] for row in result.rows if row["status"] == "refused"}
    settings = [f"{len(sweep.specs)} spec(s)", f"{len(sweep.gpus)} GPU(s)"]
    for key in ("block_sizes", "dynamic_shared_bytes", "dlcm", "bank_mode", "clock"):
        values = getattr(sweep, key)
        if values != (None,):
            settings.append(f"{key} {', '.join(str(value) for value in values)}")
    record = "every metric" if sweep.record is None else ", ".join(sweep.record)
    text = (
        f"<p>{len(result.points)} points ({_e(' x '.join(settings))}), {len(result.rows)} rows, "
        f"{result.elapsed:.1f} s. {len(failed)} point(s) failed, {len(refused)} with a refused launch. "
        f"Recorded: {_e(record)}.</p>"
    )
    return text


@dataclass
class _Series:
    """One line of a chart: a GPU with one combination of the sweep's other settings."""

    gpu: str
    label: str
    color: str
    dash: str
    points: dict[int, tuple[float, str]] = field(default_factory=dict)  # x -> (y, tooltip)


def _spec_section(result: SweepResult, spec: str, best: list[dict[str, Any]]) -> str:
    sweep = result.sweep
    rows = [row for row in result.rows if row["spec"] == spec]
    parts = [f"<h2>{_e(spec)}</h2>"]
    by_block = "block_size" in sweep.axes()
    others = [axis for axis in sweep.axes() if axis != "block_size"]
    gpu_colors = {gpu: _color(position) for position, (gpu, _) in enumerate(sweep.gpus)}
    combos: list[tuple[Any, ...]] = []
    for row in rows:
        combo = tuple(row[axis] for axis in others)
        if combo not in combos:
            combos.append(combo)
    launches = sorted({row["launch"] for row in rows if row["launch"] is not None})
    occupancy = next(((name, factor) for name, factor in _OCCUPANCY if name in result.columns), None)
    best_points = {entry["point"]: entry for entry in best}
    for launch in launches:
        launch_rows = [row for row in rows if row["launch"] == launch and row["status"] == "success"]
        kernel = next((row["kernel"] for row in rows if row["launch"] == launch), "")
        parts.append(f"<h3>launch {launch}: {_e(kernel)}</h3>")
        if not launch_rows:
            parts.append('<p class="note">No point ran this launch successfully.</p>')
            continue
        x_of: Callable[[dict[str, Any]], int]
        if by_block:
            x_of, x_label = (lambda row: row["block_size"]), "block size (threads per block along x)"
        else:
            x_of, x_label = (lambda row: math.prod(row["block"])), "threads per block"
        xs = sorted({x_of(row) for row in launch_rows})
        charts = [("time", "seconds", 1.0, _format_seconds, True)]
        if occupancy:
            name, factor = occupancy
            charts.append((f"occupancy ({name})", name, factor, _format_percent, False))
        svgs = []
        for title, column, factor, formatter, log in charts:
            series: dict[tuple[str, tuple[Any, ...]], _Series] = {}
            marks = []
            for row in launch_rows:
                value = row[column]
                if value is None:
                    continue
                combo = tuple(row[axis] for axis in others)
                key = (row["gpu"], combo)
                if key not in series:
                    dash = _DASHES[combos.index(combo) % len(_DASHES)]
                    series[key] = _Series(row["gpu"], _label(row["gpu"], others, combo), gpu_colors[row["gpu"]], dash)
                y = value * factor
                tooltip = f"{_label(row['gpu'], others, combo)}, {x_label.split(' (')[0]} {x_of(row)}: {formatter(y)}"
                series[key].points[x_of(row)] = (y, tooltip)
                if row["point"] in best_points:
                    marks.append((row, x_of(row), y, f"best on {row['gpu']}: {tooltip}"))
            svgs.append(_chart(title, list(series.values()), xs, x_label, formatter, log, marks, spec))
        parts.append('<div class="charts">' + "".join(svgs) + "</div>")
        parts.append(_legend(sweep, gpu_colors, others, combos))
    parts.append(_best_table(result, spec, best, others, by_block))
    return "\n".join(parts)


def _label(gpu: str, axes: Sequence[str], combo: tuple[Any, ...]) -> str:
    return " ".join([gpu] + [f"{axis}={value}" for axis, value in zip(axes, combo) if value is not None])


def _legend(sweep: Any, colors: dict[str, str], others: list[str], combos: list[tuple[Any, ...]]) -> str:
    items = []
    for gpu, board in sweep.gpus:
        items.append(
            f'<li><svg width="26" height="10"><line x1="1" y1="5" x2="25" y2="5" stroke="{colors[gpu]}" '
            f'stroke-width="2.5"/></svg> {_e(gpu)} <span class="note">{_e(board)}</span></li>'
        )
    if others and len(combos) > 1:
        for position, combo in enumerate(combos):
            dash = _DASHES[position % len(_DASHES)]
            label = " ".join(f"{axis}={value}" for axis, value in zip(others, combo))
            items.append(
                f'<li><svg width="26" height="10"><line x1="1" y1="5" x2="25" y2="5" stroke="#444" stroke-width="2" '
                f'stroke-dasharray="{dash}"/></svg> {_e(label)}</li>'
            )
    return (
        '<ul class="legend">' + "".join(items) + "</ul>"
        '<p class="note">Ringed: the best configuration per GPU (least total time of the spec\'s launches).</p>'
    )


def _chart(
    title: str,
    series: list[_Series],
    xs: list[int],
    x_label: str,
    formatter: Callable[[float], str],
    log: bool,
    marks: list[tuple[dict[str, Any], int, float, str]],
    spec: str,
) -> str:
    """An SVG line chart with categorical x positions (the block sizes, in order)."""
    width, height = 520, 320
    left, right, top, bottom = 64, 12, 28, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [y for s in series for y, _ in s.points.values()]
    if log:
        positive = [y for y in values if y > 0] or [1.0]
        low, high = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
        if high == low:
            high += 1
        ticks = [
            m * 10.0**d
            for d in range(low, high + 1)
            for m in ((1, 2, 5) if high - low <= 2 else (1,))
            if m * 10.0**d <= 10.0**high
        ]

        def to_y(value: float) -> float:
            value = max(value, 10.0**low)
            return top + plot_h - (math.log10(value) - low) / (high - low) * plot_h

    else:
        high_value = max(100.0, max(values, default=0.0))
        ticks = [high_value * step / 4 for step in range(5)]

        def to_y(value: float) -> float:
            return top + plot_h - value / high_value * plot_h

    step = plot_w / max(len(xs), 1)
    x_position = {x: left + (position + 0.5) * step for position, x in enumerate(xs)}
    out = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{_e(title)}">',
        f'<text x="{left}" y="16" style="font-weight:600">{_e(title)}</text>',
    ]
    for tick in ticks:
        y = to_y(tick)
        out.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_e(formatter(tick))}</text>')
    for x, position in x_position.items():
        out.append(f'<text x="{position:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{x}</text>')
    out.append(
        f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}"/>'
        f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>'
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">{_e(x_label)}</text>'
    )
    for s in series:
        ordered = [(x, s.points[x]) for x in xs if x in s.points]
        # A line joins neighbouring block sizes only; a missing one (refused, failed) breaks it.
        segment: list[str] = []
        for position, x in enumerate(xs):
            if x in s.points:
                segment.append(f"{x_position[x]:.1f},{to_y(s.points[x][0]):.1f}")
            if x not in s.points or position == len(xs) - 1:
                if len(segment) > 1:
                    dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
                    points = " ".join(segment)
                    out.append(f'<polyline fill="none" stroke="{s.color}" stroke-width="1.6"{dash} points="{points}"/>')
                segment = []
        for x, (y, tooltip) in ordered:
            out.append(
                f'<circle cx="{x_position[x]:.1f}" cy="{to_y(y):.1f}" r="2.6" fill="{s.color}">'
                f"<title>{_e(tooltip)}</title></circle>"
            )
    for row, x, y, tooltip in marks:
        color = next((s.color for s in series if s.gpu == row["gpu"]), "#000")
        block = "" if row["block_size"] is None else str(row["block_size"])
        out.append(
            f'<circle class="best" cx="{x_position[x]:.1f}" cy="{to_y(y):.1f}" r="6.5" fill="none" stroke="{color}" '
            f'stroke-width="2.4" data-spec="{_e(spec)}" data-gpu="{_e(row["gpu"])}" data-block-size="{block}" '
            f'data-point="{row["point"]}"><title>{_e(tooltip)}</title></circle>'
        )
    out.append("</svg>")
    return "".join(out)


def _best_table(result: SweepResult, spec: str, best: list[dict[str, Any]], others: list[str], by_block: bool) -> str:
    if not best:
        return '<p class="note">No point of this spec ran every launch successfully.</p>'
    axes = (["block_size"] if by_block else []) + others
    header = ["GPU", "board", *axes, "total time", "point"]
    lines = ["<table class=\"best\"><caption>Best configuration per GPU</caption><tr>"]
    lines.append("".join(f"<th>{_e(column)}</th>" for column in header) + "</tr>")
    for entry in best:
        block = "" if entry["block_size"] is None else str(entry["block_size"])
        cells = [_e(entry["gpu"]), _e(entry["board"])]
        cells += [_e("" if entry[axis] is None else str(entry[axis])) for axis in axes]
        cells += [_format_seconds(entry["seconds"]), str(entry["point"])]
        lines.append(
            f'<tr class="best" data-spec="{_e(spec)}" data-gpu="{_e(entry["gpu"])}" data-block-size="{block}" '
            f'data-point="{entry["point"]}">' + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"
        )
    lines.append("</table>")
    return "\n".join(lines)


def _full_table(result: SweepResult, max_rows: int | None) -> str:
    best_points = {entry["point"] for entry in result.best()}
    rows = result.rows if max_rows is None else result.rows[:max_rows]
    out = ["<h2>All rows</h2>", "<table class=\"rows\"><tr>"]
    out.append("".join(f"<th>{_e(column)}</th>" for column in result.columns) + "</tr>")
    for row in rows:
        if row["status"] == "refused":
            kind = "refused"
        elif row["status"] != "success":
            kind = "failed"
        else:
            kind = "best" if row["point"] in best_points else ""
        attributes = f' class="{kind}"' if kind else ""
        cells = []
        for column in result.columns:
            value = row[column]
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            cells.append(f'<td class="num">{_cell(value)}</td>' if numeric else f"<td>{_cell(value)}</td>")
        out.append(f'<tr{attributes} data-point="{row["point"]}">' + "".join(cells) + "</tr>")
    out.append("</table>")
    if len(rows) < len(result.rows):
        out.append(f'<p class="note">{len(result.rows) - len(rows)} more rows: to_html() or to_csv() has them all.</p>')
    return "\n".join(out)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "(" + ", ".join(str(item) for item in value) + ")"
    return _e(str(value))


def _format_seconds(value: float) -> str:
    """A time with its unit: "12.3 µs"."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def _format_percent(value: float) -> str:
    return f"{value:.3g}%"


def _color(position: int) -> str:
    """Well-separated colours for any number of lines: hues a golden angle apart."""
    hue = (position * 137.508) % 360
    lightness = (38, 50, 30)[position % 3]
    return f"hsl({hue:.0f}, 70%, {lightness}%)"


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)
