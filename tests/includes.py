#!/usr/bin/env python3
"""includes.py SRC_ROOT: the include rules of src/README.md, checked on the sources.

Reads the table between the include-rules markers of src/README.md (a folder, then
what it may include: folders, or single headers as folder/name.h) and fails on:
  - a quoted include that is not path-qualified ("ring.h" instead of "arena/ring.h");
    "feed.h", the public header, is the one exception;
  - an include of a folder, or a header, that the including folder may not use;
  - a test hook ("hooks/...", tests/hooks/) included outside #if FEED_TEST_HOOKS;
  - a CUDA header outside src/device/cuda/, a codec header outside its decoder;
  - a circle between files: x.c and x.h count as one node, and an include is an
    edge from the including node to the included one;
  - a file of src/ over MAX_LINES lines;
  - a circle between the modules of the Python package (python/libfeed: an import
    of a sibling module, at the top or inside a function, is an edge).
Prints each fault on a line of its own and exits 1, or prints a summary and exits 0.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]')
# Codec headers and who alone may include them (paths relative to src/).
CODECS = [
    (re.compile(r'^(jpeglib|jpegint|jerror)\.h$'), re.compile(r'^decode/jpeg[a-z_]*\.c$')),
    (re.compile(r'^spng\.h$'), re.compile(r'^decode/png\.c$')),
    (re.compile(r'^webp/'), re.compile(r'^decode/webp\.c$')),
    (re.compile(r'^curl/'), re.compile(r'^remote/fetch_[a-z_]*\.c$')),
    (re.compile(r'^(cuda|cuda_runtime|cuda_runtime_api|cuda_fp16|cuda_bf16)\.h$|^nvtx3/'),
     re.compile(r'^device/cuda/')),
]


MAX_LINES = 600


def cycles(edges):
    """The circles of a graph {node: {node, ...}}, each reported once."""
    state, stack, seen, found = {}, [], set(), []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                cyc = stack[stack.index(m):] + [m]
                key = frozenset(cyc)
                if key not in seen:
                    seen.add(key)
                    found.append(" -> ".join(cyc))
            elif not state.get(m):
                visit(m)
        stack.pop()
        state[n] = 2

    sys.setrecursionlimit(10000)
    for n in sorted(edges):
        if not state.get(n):
            visit(n)
    return found


def python_edges(pkg):
    """Imports between the modules of the package in folder pkg."""
    mods = {os.path.splitext(n)[0] for n in os.listdir(pkg) if n.endswith(".py")}
    name = os.path.basename(pkg)
    rel = re.compile(r"^\s*from\s+\.(\w*)\s+import\s+(.+)$")
    absolute = re.compile(r"^\s*(?:from|import)\s+" + name + r"\.(\w+)")
    edges = {}
    for m in sorted(mods):
        for line in open(os.path.join(pkg, m + ".py"), encoding="utf-8"):
            got = set()
            r = rel.match(line)
            if r:
                if r.group(1):
                    got.add(r.group(1))
                else:  # from . import a, b as c
                    for part in r.group(2).strip("()\n ").split(","):
                        got.add(part.strip().split(" ")[0])
            a = absolute.match(line)
            if a:
                got.add(a.group(1))
            for g in got:
                if g in mods and g != m:
                    edges.setdefault(m, set()).add(g)
    return edges


def rules(readme):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"<!-- include-rules -->(.*?)<!-- /include-rules -->", text, re.S)
    if not m:
        sys.exit("includes: no include-rules table in " + readme)
    allowed = {}
    for line in m.group(1).splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0] or cells[0].startswith("-") or cells[0] == "folder":
            continue
        may = {x.strip().strip("`") for x in cells[1].split(",")} - {"", "nothing", "—"}
        allowed[cells[0].rstrip("/")] = may
    return allowed


def sources(src):
    for dirpath, _, names in os.walk(src):
        for n in sorted(names):
            if n.endswith((".c", ".h", ".cu")):
                p = os.path.join(dirpath, n)
                yield os.path.relpath(p, src)


def folder(rel):
    return rel.split("/", 1)[0] if "/" in rel else ""


def node(rel):
    base, _ = os.path.splitext(rel)
    return base


def main():
    src = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "src")
    allowed = rules(os.path.join(src, "README.md"))
    faults = []
    edges = {}
    nfiles = nincs = 0
    for rel in sources(src):
        nfiles += 1
        own = folder(rel)
        if own not in allowed:
            faults.append(f"src/{rel}: folder '{own or '.'}' is not in src/README.md's include rules")
            continue
        lines = open(os.path.join(src, rel), encoding="utf-8").read().splitlines()
        guard = []
        for i, line in enumerate(lines, 1):
            s = line.strip()
            if re.match(r"#\s*if", s):
                guard.append(s)
            elif re.match(r"#\s*endif", s) and guard:
                guard.pop()
            m = INCLUDE.match(line)
            if not m:
                continue
            nincs += 1
            kind, inc = m.groups()
            where = f"src/{rel}:{i}"
            if kind == "<":
                for pat, who in CODECS:
                    if pat.search(inc) and not who.search(rel):
                        faults.append(f"{where}: <{inc}> outside its one place")
                continue
            if inc == "feed.h":
                continue
            if "/" not in inc:
                faults.append(f'{where}: "{inc}" is not path-qualified (folder/{inc})')
                continue
            if inc.startswith("hooks/"):
                if not any("FEED_TEST_HOOKS" in g for g in guard):
                    faults.append(f'{where}: test hook "{inc}" outside #if FEED_TEST_HOOKS')
                continue
            target = folder(inc)
            if not os.path.exists(os.path.join(src, inc)):
                faults.append(f'{where}: "{inc}" does not exist under src/')
                continue
            if target != own and target not in allowed[own] and inc not in allowed[own]:
                faults.append(f'{where}: {own}/ may not include "{inc}" (src/README.md)')
            a, b = node(rel), node(inc)
            if a != b:
                edges.setdefault(a, set()).add(b)
    for c in cycles(edges):
        faults.append("circle: " + c)
    for rel in sources(src):
        n = sum(1 for _ in open(os.path.join(src, rel), encoding="utf-8"))
        if n > MAX_LINES:
            faults.append(f"src/{rel}: {n} lines (at most {MAX_LINES}: one idea per file)")
    pkg = os.path.join(os.path.dirname(src), "python", "libfeed")
    if os.path.isdir(pkg):
        for c in cycles(python_edges(pkg)):
            faults.append("circle in python/libfeed: " + c)
    for f in faults:
        print("includes:", f)
    if faults:
        return 1
    print(f"includes: ok ({nfiles} files, {nincs} includes, {len(allowed)} folders, none over {MAX_LINES} lines, no circle)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
