"""Shared by the plot scripts: the caption line, saving a figure, and per-workload grouped bars."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def cuda_version(v):
    try:
        v = int(v)
        return f"{v // 1000}.{v % 1000 // 10}"
    except (TypeError, ValueError):
        return "?"


def subtitle(context):
    """GPU, commit, CUDA versions (when the run recorded them) and date of a benchmark run."""
    parts = [context.get("gpu", "unknown GPU"), f"scankit {context.get('scankit_commit', 'unknown commit')}"]
    if "cuda_runtime_version" in context:
        parts.append(f"CUDA runtime {cuda_version(context.get('cuda_runtime_version'))}, "
                     f"driver {cuda_version(context.get('cuda_driver_version'))}")
    parts.append(str(context.get("date", ""))[:10])
    return ", ".join(p for p in parts if p)


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def grouped_bars(ax, workloads, rows, counter, series, labelled_row):
    """One group of bars per workload (centred on its tick), one bar per (row, label, color) of
    `series` that has `counter`; the bars of `labelled_row` carry their value."""
    for j, w in enumerate(workloads):
        here = [s for s in series if counter in rows.get((w, s[0]), {})]
        for i, (row, label, color) in enumerate(here):
            y = rows[(w, row)][counter]
            x = j + (i - (len(here) - 1) / 2) * 0.27
            ax.bar(x, y, 0.27, color=color, label=label if label not in ax.get_legend_handles_labels()[1] else None)
            if row == labelled_row:
                ax.text(x, y + 0.01, f"{y:.2f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, rotation=30, ha="right", fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
