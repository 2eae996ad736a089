#!/usr/bin/env python3
"""plot_trace.py - draw where the time went, from feedbench --trace files.

  bench/plot_trace.py TRACE.json [TRACE2.json ...] -o timeline.png [--bin-ms 100]

For each trace (one line per file, labelled by its loader and device):
  1. busy fraction over time: the share of each --bin-ms bin covered by model
     steps (GPU step spans from CUDA events when there are any, else the
     consumer's host "step" spans);
  2. ring occupancy over time (the ring_ready counter: slots filled and
     waiting; 0 means the consumer is, or is about to be, waiting);
  3. worker load per stage (average number of workers reading, decoding,
     augmenting, converting; from the workers' cumulative stage timers).
The shaded part before the "measured window" marker is the warm-up.

Writes PNG (or PDF/SVG, by the extension) with matplotlib when it is
importable (Debian: python3-matplotlib, use /usr/bin/python3); otherwise a
plain SVG drawn by this script (the -o name gets a .svg extension).
Also prints a per-file summary (busy fraction in the measured window).
Standard library only, apart from the optional matplotlib.
"""
import argparse
import json
import os
import sys


def load(path):
    with open(path) as f:
        t = json.load(f)
    ev = t["traceEvents"] if isinstance(t, dict) else t
    other = t.get("otherData", {}) if isinstance(t, dict) else {}
    steps_gpu, steps_host, ring, stages = [], [], [], []
    win0 = other.get("window_start_us")
    end = other.get("window_end_us")
    for e in ev:
        ph = e.get("ph")
        if ph == "X" and e.get("cat") == "step":
            (steps_gpu if e["name"].startswith("step (GPU)") else steps_host).append(
                (e["ts"], e["ts"] + e["dur"]))
        elif ph == "C" and e["name"] == "ring_ready":
            ring.append((e["ts"], e["args"]["ready"]))
        elif ph == "C" and e["name"].startswith("stage load"):
            stages.append((e["ts"], e["args"]))
        elif ph == "i" and e["name"] == "measured window" and win0 is None:
            win0 = e["ts"]
        elif ph == "i" and e["name"] == "end" and end is None:
            end = e["ts"]
    steps = steps_gpu or steps_host
    if end is None:
        end = max([b for _, b in steps] + [t for t, _ in ring] + [0])
    label = "%s/%s" % (other.get("loader", "?"), other.get("device", "?"))
    if other.get("step_ms"):
        label += " step %.0f ms" % other["step_ms"]
    return {"path": path, "label": label, "steps": sorted(steps), "ring": ring, "stages": stages,
            "win0": win0 or 0.0, "end": end, "slots": other.get("ring_slots", 0)}


def busy_series(steps, t0, t1, bin_us):
    n = max(1, int((t1 - t0) / bin_us + 0.999))
    cov = [0.0] * n
    for a, b in steps:
        a, b = max(a, t0), min(b, t1)
        k = int((a - t0) // bin_us)
        while a < b and k < n:
            hi = min(b, t0 + (k + 1) * bin_us)
            cov[k] += hi - a
            a = hi
            k += 1
    xs = [(t0 + (k + 0.5) * bin_us) * 1e-6 for k in range(n)]
    widths = [min(bin_us, t1 - (t0 + k * bin_us)) for k in range(n)]
    return xs, [c / w if w > 0 else 0 for c, w in zip(cov, widths)]


def window_busy(d):
    a, b = d["win0"], d["end"]
    if b <= a:
        return 0.0
    cov = sum(max(0.0, min(e, b) - max(s, a)) for s, e in d["steps"])
    return cov / (b - a)


def stage_bins(stages, end, bin_us, names):
    """Stage load counters (rates over uneven intervals) averaged over bins."""
    n = max(1, int(end / bin_us + 0.999))
    acc = [[0.0] * n for _ in names]
    for i, (t, a) in enumerate(stages):
        t1 = stages[i + 1][0] if i + 1 < len(stages) else end
        k = int(t // bin_us)
        while t < t1 and k < n:
            hi = min(t1, (k + 1) * bin_us)
            for j, name in enumerate(names):
                acc[j][k] += a.get(name, 0) * (hi - t)
            t = hi
            k += 1
    xs = [(k + 0.5) * bin_us * 1e-6 for k in range(n)]
    ys = [[v / min(bin_us, max(1e-9, end - k * bin_us)) for k, v in enumerate(row)] for row in acc]
    return xs, ys


def step_xy(points, end):
    """A counter as a step function: (x, y) lists in seconds."""
    xs, ys = [], []
    for i, (t, v) in enumerate(points):
        nxt = points[i + 1][0] if i + 1 < len(points) else end
        xs += [t * 1e-6, nxt * 1e-6]
        ys += [v, v]
    return xs, ys


def plot_mpl(ds, out, bin_us):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    has_stages = any(d["stages"] for d in ds)
    nrows = 3 if has_stages else 2
    fig, ax = plt.subplots(nrows, 1, figsize=(11, 2.6 * nrows + 0.6), sharex=True)
    for d in ds:
        xs, ys = busy_series(d["steps"], 0.0, d["end"], bin_us)
        ax[0].plot(xs, ys, drawstyle="steps-mid", label="%s (busy %.4f)" % (d["label"], window_busy(d)))
        if d["ring"]:
            rx, ry = step_xy(d["ring"], d["end"])
            ax[1].plot(rx, ry, label="%s (%d slots)" % (d["label"], d["slots"]))
    win0 = min(d["win0"] for d in ds) * 1e-6
    for a in ax:
        a.axvspan(0, win0, color="0.9", zorder=0)
        a.grid(alpha=0.3)
    ax[0].set_ylabel("busy fraction\n(per %.0f ms)" % (bin_us / 1000))
    ax[0].set_ylim(-0.02, 1.05)
    ax[0].legend(loc="lower right", fontsize=8)
    ax[0].set_title("feedbench timeline: model-step busy fraction, ring occupancy, worker stage load")
    ax[1].set_ylabel("ring slots ready")
    if any(d["ring"] for d in ds):
        ax[1].legend(loc="upper right", fontsize=8)
    else:
        ax[1].text(0.5, 0.5, "no ring (sync loader)", transform=ax[1].transAxes, ha="center")
    if has_stages:
        d = next(x for x in ds if x["stages"])
        names = ["read", "decode", "augment", "convert"]
        xs, ys = stage_bins(d["stages"], d["end"], bin_us, names)
        ax[2].stackplot(xs, ys, labels=names, step="mid")
        ax[2].set_ylabel("busy workers\n(%s)" % d["label"])
        ax[2].legend(loc="upper right", fontsize=8, ncol=4)
    ax[-1].set_xlabel("time (s); grey: warm-up, not measured")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return out


def plot_svg(ds, out, bin_us):
    """A dependency-free fallback: two panels, polylines, axes, labels."""
    W, H, L, R, T, PH, GAP = 960, 460, 70, 20, 30, 170, 40
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
    tmax = max(d["end"] for d in ds) * 1e-6 or 1.0
    slots = max([d["slots"] for d in ds] + [1])

    def X(t):
        return L + (W - L - R) * t / tmax

    def panel(y0, ymax, title, series):
        s = ['<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (L, y0, W - L - R, PH)]
        s.append('<text x="%d" y="%d" font-size="12">%s</text>' % (L, y0 - 6, title))
        for k in range(5):
            v = ymax * k / 4
            y = y0 + PH - PH * k / 4
            s.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end">%.2g</text>' % (L - 4, y + 3, v))
            s.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>' % (L, W - R, y, y))
        for i, (xs, ys, lab) in enumerate(series):
            pts = " ".join("%.1f,%.1f" % (X(x), y0 + PH - PH * min(y, ymax) / ymax) for x, y in zip(xs, ys))
            c = colors[i % len(colors)]
            s.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (c, pts))
            s.append('<text x="%d" y="%d" font-size="11" fill="%s">%s</text>' % (W - R - 330, y0 + 14 + 13 * i, c, lab))
        return s

    win0 = min(d["win0"] for d in ds) * 1e-6
    body = ['<rect x="%d" y="%d" width="%.1f" height="%d" fill="#f0f0f0"/>' % (L, T, X(win0) - L, 2 * PH + GAP)]
    bs = []
    for d in ds:
        xs, ys = busy_series(d["steps"], 0.0, d["end"], bin_us)
        bs.append((xs, ys, "%s (busy %.4f)" % (d["label"], window_busy(d))))
    body += panel(T, 1.0, "busy fraction per %.0f ms bin (grey: warm-up)" % (bin_us / 1000), bs)
    rs = []
    for d in ds:
        if d["ring"]:
            rx, ry = step_xy(d["ring"], d["end"])
            rs.append((rx, ry, "%s ring_ready (%d slots)" % (d["label"], d["slots"])))
    body += panel(T + PH + GAP, float(slots), "ring occupancy (slots ready)", rs)
    for k in range(6):
        t = tmax * k / 5
        body.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">%.2f s</text>'
                    % (X(t), T + 2 * PH + GAP + 14, t))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">'
           '<rect width="100%%" height="100%%" fill="white"/>%s</svg>\n' % (W, H, "".join(body)))
    with open(out, "w") as f:
        f.write(svg)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+", help="feedbench --trace files")
    ap.add_argument("-o", "--out", default="feedbench-timeline.png")
    ap.add_argument("--bin-ms", type=float, default=0.0,
                    help="busy-fraction bin (default: max(50 ms, the longest step), fine enough to show the "
                         "sync loop's swings)")
    ap.add_argument("--svg", action="store_true", help="always use the built-in SVG writer")
    a = ap.parse_args()
    ds = [load(p) for p in a.traces]
    for d in ds:
        print("%s: %s, busy fraction %.4f over the measured window (%.2f s), %d steps"
              % (d["path"], d["label"], window_busy(d), (d["end"] - d["win0"]) * 1e-6, len(d["steps"])))
    bin_us = a.bin_ms * 1000.0
    if bin_us <= 0:
        longest = max([e - s for d in ds for s, e in d["steps"]] + [0.0])
        bin_us = max(50e3, longest)
    out = a.out
    try:
        if a.svg:
            raise ImportError("--svg")
        import matplotlib  # noqa: F401
        out = plot_mpl(ds, out, bin_us)
    except ImportError as e:
        if not out.endswith(".svg"):
            out = os.path.splitext(out)[0] + ".svg"
        if str(e) != "--svg":
            print("plot_trace: matplotlib not importable by %s; writing SVG instead" % sys.executable)
        out = plot_svg(ds, out, bin_us)
    print("wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
