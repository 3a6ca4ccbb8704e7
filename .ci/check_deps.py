#!/usr/bin/env python3
"""check_deps.py: which folders each module may include, checked (after
CBMC's module_dependencies.txt).

A module is a folder holding a file module_dependencies.txt; its files are
the .c, .h and .def files in it and in its subfolders that have no
module_dependencies.txt of their own (those are modules of their own). The
file lists, one a line, the folders (paths from the top of the tree, as
"reduce" or "tools/report") whose headers the module's files may include;
'#' starts a comment. A module may always include its own headers.

Every #include "..." of every module's files is resolved as the compiler
finds it: next to the including file first, else the one file of the tree
whose path ends with the name (the include directories are the module
folders). Its folder is the module that holds the header (or, outside every
module, the header's own folder). An include from a folder the module does
not list is an error:

    FILE:LINE: includes X from folder F, not allowed by M/module_dependencies.txt

and so is a header that is found nowhere in the tree or in several places,
a listed folder that does not exist, and lists that allow a circle (A lists
B, B lists A: then the circle could come back). System headers and the
libraries' (#include <...>: cJSON, Judy, xxHash, MPI) are not checked.
Exit status 0: none; 1: some (each printed); 2: bad usage.

usage: check_deps.py [ROOT]            check the tree at ROOT (default: this
                                       script's parent folder's parent)
       check_deps.py --self-test [ROOT] first check that the checker fails
                                       on a small tree with a bad include,
                                       then check ROOT
ctest runs the second (tests/CMakeLists.txt, test `deps`).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

DEPS_FILE = "module_dependencies.txt"
SOURCE_EXT = (".c", ".h", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def skipped_dir(path, name):
    """Folders that are not source: hidden ones (.git), caches, and build
    trees (a CMakeCache.txt in them: rel/, build/)."""
    return (name.startswith(".") or name == "__pycache__" or
            os.path.exists(os.path.join(path, "CMakeCache.txt")))


def walk(root):
    """Every file of the tree (paths relative to root, '/'-separated), and
    the module folders."""
    files, modules = [], set()
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(n for n in dirs if not skipped_dir(os.path.join(d, n), n))
        rel = os.path.relpath(d, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        if DEPS_FILE in names:
            modules.add(rel)
        for n in sorted(names):
            files.append(f"{rel}/{n}" if rel else n)
    return files, modules


def module_of(path, modules):
    """The module a file belongs to: the nearest folder above it with a
    module_dependencies.txt; None outside every module."""
    d = os.path.dirname(path)
    while True:
        if d in modules:
            return d
        if not d:
            return None
        d = os.path.dirname(d)


def read_deps(root, module, errors):
    """The folders module_dependencies.txt lets the module include."""
    allowed = []
    name = f"{module}/{DEPS_FILE}" if module else DEPS_FILE
    with open(os.path.join(root, name)) as f:
        for no, line in enumerate(f, 1):
            entry = line.split("#", 1)[0].strip().rstrip("/")
            if not entry:
                continue
            if not os.path.isdir(os.path.join(root, entry)):
                errors.append(f"{name}:{no}: no folder '{entry}'")
                continue
            allowed.append(entry)
    return allowed


def find_circle(graph):
    """A list of modules forming a circle in graph (module -> listed
    folders), or None."""
    state = {}

    def visit(m, path):
        state[m] = 1
        for n in graph.get(m, ()):
            if n == m or n not in graph:
                continue
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state:
                c = visit(n, path + [n])
                if c:
                    return c
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            c = visit(m, [m])
            if c:
                return c
    return None


def check(root):
    """The errors of the tree at root, as lines to print."""
    errors = []
    files, modules = walk(root)
    if not modules:
        return [f"{root}: no {DEPS_FILE} anywhere"]
    fileset = set(files)
    by_name = {}  # every file under each of its path suffixes: "a/b/c.h", "b/c.h", "c.h"
    for f in files:
        parts = f.split("/")
        for i in range(len(parts)):
            by_name.setdefault("/".join(parts[i:]), []).append(f)
    graph = {m: read_deps(root, m, errors) for m in sorted(modules)}
    circle = find_circle(graph)
    if circle:
        errors.append(f"the {DEPS_FILE} files allow a circle: " + " -> ".join(circle))
    nincludes = 0
    for f in files:
        owner = module_of(f, modules)
        if owner is None or not f.endswith(SOURCE_EXT):
            continue
        with open(os.path.join(root, f), errors="replace") as src:
            lines = src.readlines()
        for no, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            nincludes += 1
            name = m.group(1)
            here = os.path.normpath(os.path.join(os.path.dirname(f), name)).replace(os.sep, "/")
            if here in fileset:
                header = here
            else:
                found = by_name.get(os.path.normpath(name).replace(os.sep, "/"), [])
                if len(found) != 1:
                    errors.append(f"{f}:{no}: includes {name}, " +
                                  ("found nowhere in the tree" if not found else
                                   "found in several places: " + ", ".join(found)))
                    continue
                header = found[0]
            folder = module_of(header, modules)
            if folder is None:
                folder = os.path.dirname(header)
            if folder == owner or folder in graph[owner]:
                continue
            deps = f"{owner}/{DEPS_FILE}" if owner else DEPS_FILE
            errors.append(f"{f}:{no}: includes {name} from folder {folder or '.'}, "
                          f"not allowed by {deps}")
    if not errors:
        print(f"check_deps: {len(modules)} modules, {nincludes} includes: each one allowed")
    return errors


def write(root, path, text):
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w") as f:
        f.write(text)


def self_test():
    """The checker on small trees: a good one passes, each bad one fails
    with its message. Returns the failures."""
    failures = []
    good = {
        "lib/module_dependencies.txt": "# nothing but itself\n",
        "lib/lib.h": "int lib(void);\n",
        "lib/lib.c": '#include "lib.h"\n#include <stdio.h>\n',
        "app/module_dependencies.txt": "lib\n",
        "app/app_int.h": '#include "lib.h"\n',
        "app/part/part.c": '#include "app_int.h"\n#include "../app_int.h"\n',
        "app/main.c": '#include "app_int.h"\n#include "part/part.h"\n',
        "app/part/part.h": "\n",
    }
    bad = [  # (extra or changed files, the message expected)
        ({"lib/lib.c": '#include "lib.h"\n#include "app_int.h"\n'},
         "lib/lib.c:2: includes app_int.h from folder app, not allowed by lib/module_dependencies.txt"),
        ({"app/part/module_dependencies.txt": "\n"},  # a module of its own now
         "app/part/part.c:1: includes app_int.h from folder app, not allowed by "
         "app/part/module_dependencies.txt"),
        ({"app/main.c": '#include "nowhere.h"\n'},
         "app/main.c:1: includes nowhere.h, found nowhere in the tree"),
        ({"lib/module_dependencies.txt": "app\n"},
         "the module_dependencies.txt files allow a circle: app -> lib -> app"),
        ({"app/module_dependencies.txt": "lib\nlibs\n"},
         "app/module_dependencies.txt:2: no folder 'libs'"),
    ]
    for extra, expected in [({}, None)] + bad:
        tmp = tempfile.mkdtemp(prefix="check_deps.")
        try:
            for path, text in {**good, **extra}.items():
                write(tmp, path, text)
            p = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                               capture_output=True, text=True)
        finally:
            shutil.rmtree(tmp)
        out = p.stdout + p.stderr
        if expected is None and p.returncode != 0:
            failures.append(f"self-test: the good tree failed (exit {p.returncode}):\n{out}")
        elif expected is not None and (p.returncode != 1 or expected not in out):
            failures.append(f"self-test: expected exit 1 and '{expected}', got exit "
                            f"{p.returncode}:\n{out}")
    return failures


def main(argv):
    args = argv[1:]
    selftest = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if selftest:
        failures = self_test()
        for f in failures:
            print(f, file=sys.stderr)
        if failures:
            return 1
        print("check_deps: self-test passed (a bad include, a module's own file, a missing "
              "header, a circle, a missing folder each fail)")
    errors = check(root)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
