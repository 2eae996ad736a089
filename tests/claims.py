#!/usr/bin/env python3
"""claims.py - every test docs/claims.md names exists.

    claims.py SOURCE_DIR BUILD_DIR

Reads the last column of each table row of docs/claims.md: `ctest_name`,
`ctest_name: cmocka_case` or `python/tests/file.py::test`. A ctest name must be
registered (ctest -N in BUILD_DIR); a cmocka case must be a TU_TEST or cmocka_unit_test*
entry of tests/ctest_name.c; a pytest must be a `def test` of its file. Fails
naming each one that is not, and when a row names no test at all.
"""
import os
import re
import subprocess
import sys


def source_of(src, prog):
    """The C file a ctest program is built from (tests/CMakeLists.txt: a
    program may be built from another name's source, as test_loader_cuda_fake
    from test_loader_cuda.c); PROG.c when it says nothing."""
    with open(os.path.join(src, "tests", "CMakeLists.txt")) as f:
        m = re.search(r"(?:add_executable|feed_add_test)\(\s*%s\s+(\S+\.c)\b" % re.escape(prog), f.read())
    return m.group(1) if m else prog + ".c"


def main():
    src, build = sys.argv[1], sys.argv[2]
    listed = subprocess.run(["ctest", "-N"], cwd=build, stdout=subprocess.PIPE, text=True, check=True).stdout
    ctests = set(re.findall(r"Test\s+#\d+: (\S+)", listed))
    errors, rows, names = [], 0, 0
    with open(os.path.join(src, "docs", "claims.md")) as f:
        for line in f:
            if not line.startswith("|") or line.startswith("|---") or "README claim" in line:
                continue
            rows += 1
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            found = re.findall(r"`([^`]+)`", cells[-1])
            if not found:
                errors.append("a claim without a test: %s" % cells[0])
            for name in found:
                names += 1
                if "::" in name:
                    path, func = name.split("::", 1)
                    p = os.path.join(src, path)
                    if not os.path.exists(p) or not re.search(r"^def %s\(" % re.escape(func), open(p).read(), re.M):
                        errors.append("no pytest %s" % name)
                    continue
                prog, _, case = name.partition(": ")
                if prog not in ctests:
                    errors.append("no ctest named %s" % prog)
                    continue
                if case:
                    p = os.path.join(src, "tests", source_of(src, prog))
                    text = open(p).read() if os.path.exists(p) else ""
                    if not re.search(r"(?:cmocka_unit_test\w*|TU_TEST)\(\s*%s\b" % re.escape(case), text):
                        errors.append("no cmocka case %s in tests/%s.c" % (case, prog))
    for e in errors:
        print("claims.md: " + e)
    print("claims.md: %d claims, %d test names, %d missing" % (rows, names, len(errors)))
    return 1 if errors or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
