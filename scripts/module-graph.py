#!/usr/bin/env python3
"""Prints the module import edges of one Rust crate and the import cycles among them.

    scripts/module-graph.py host/src            # edges, the layer edges, cycles
    scripts/module-graph.py host/src --cycles   # only the cycle check (exit 1 if any)
    scripts/module-graph.py host/src --reach crate   # what the library API imports, transitively

Modules are named by path: `crate::…` in the library (`lib.rs`), `main::…` in the binary
(`main.rs`). It reads those roots and follows `mod NAME;` to the module files, then
collects every path a file names, in `use` trees and in code: `crate::a::b`, `super::x`,
`self::y`, a child module (`driver::check`), a name a `use` bound to a module (`agpu::X` after
`use super::gpu as agpu`), and in `main.rs`'s crate the library by its crate name (`host::gpu`).
A path resolves to the deepest module it names, following `pub use` re-exports to the module
that defines the item. Comments and string literals are skipped. Edges are listed with their
kind: code under `#[cfg(test)]` gives "test" edges; a `pub use` at a file's top level gives
"re-export" edges (a facade such as `lib.rs`: whoever uses the name gets its own edge to the
defining module). Both are left out of the cycle check and of `--reach`, which follows plain
edges only, except the re-exports of the module it starts from (its public surface).

Cycles: a module is one unit with its submodules (a parent and its children may use each
other: that is how `mod.rs` re-exports and `super::` work). So each edge is lifted to the two
sibling modules under the pair's closest common parent (`apsp::multi::rows -> gpu` becomes
`apsp -> gpu` at the crate root), and a cycle is a set of siblings that reach each other.
Python 3 standard library only. Not handled: macros that build paths, glob re-exports
(`pub use x::*`), `#[path]` inside inline modules.
"""

import re
import sys
from pathlib import Path

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|::|[{}();,*#\[\]]|\S")
# Kinds of edge: a path used by the module's own code, a `pub use` that only passes a name on
# (its users get their own edge to the module defining it), a path in `#[cfg(test)]` code.
USE, REEXPORT, TEST = 0, 1, 2
LABEL = {USE: "", REEXPORT: "   (re-export)", TEST: "   (test)"}


def strip(text):
    """The text with comments, string and char literals blanked (line structure kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif (m := re.match(r'b?r(#*)"', text[i:])) and (i == 0 or not text[i - 1].isalnum()):
            end = text.find('"' + m.group(1), i + m.end())
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append(' "" ')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(' "" ')
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i:])):
            i += m.end()  # a char literal; a lifetime ('a) has no closing quote
            out.append(" ' ")
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Module:
    def __init__(self, crate, path, file, test):
        self.crate, self.path, self.file, self.test = crate, path, file, test
        self.tokens = TOKEN.findall(strip(file.read_text()))
        self.children = {}  # name -> Module (file modules) or path tuple (inline modules)


def child_file(parent, name, is_root):
    base = parent.parent if is_root or parent.name == "mod.rs" else parent.with_suffix("")
    for f in (base / f"{name}.rs", base / name / "mod.rs"):
        if f.exists():
            return f
    return None


def load(src):
    """Every file module of the crates rooted in src: {(crate, path tuple): Module}."""
    mods = {}

    def visit(crate, path, file, test):
        m = mods[(crate, path)] = Module(crate, path, file, test)
        # `#[path = "…"] mod name;`: relative to the declaring file's directory.
        pinned = dict(
            (name, file.parent / p)
            for p, name in re.findall(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', file.read_text())
        )
        toks, pending_test = m.tokens, False
        depth = 0
        for k, t in enumerate(toks):
            if t == "#" and toks[k + 1 : k + 7] == ["[", "cfg", "(", "test", ")", "]"]:
                pending_test = True
            elif t in "{}":
                depth += 1 if t == "{" else -1
                pending_test = False
            elif t == ";":
                pending_test = False
            elif t == "mod" and depth == 0 and k + 2 < len(toks) and toks[k + 2] == ";":
                name = toks[k + 1]
                f = pinned.get(name) or child_file(file, name, not path)
                if f is None:
                    sys.exit(f"{file}: mod {name}; has no file")
                m.children[name] = (crate, path + (name,))
                visit(crate, path + (name,), f, test or pending_test)

    for root in ("lib.rs", "main.rs"):
        if (src / root).exists():
            visit(root[:-3], (), src / root, False)
    return mods


def parse_use(toks, k):
    """The paths of the use tree starting at toks[k]; returns (paths, index after `;`).
    Each path is (segments, bound name or None); a glob ends in "*"."""
    paths = []

    def tree(k, prefix):
        segs = list(prefix)
        while True:
            t = toks[k]
            if t == "{":
                k += 1
                while toks[k] != "}":
                    k = tree(k, segs)
                    if toks[k] == ",":
                        k += 1
                return k + 1
            if t == "*":
                paths.append((segs + ["*"], None))
                return k + 1
            segs.append(t)
            k += 1
            if toks[k] == "::":
                k += 1
                continue
            name = segs[-1]
            if toks[k] == "as":
                name, k = toks[k + 1], k + 2
            if segs[-1] == "self":  # `a::{self, …}` names `a`
                segs.pop()
            paths.append((segs, name))
            return k

    if toks[k] == "::":
        k += 1
    k = tree(k, [])
    return paths, k + 1


def scan(m, mods, lib_name):
    """The paths a module names: [(absolute path, kind)], and its re-exports {name: path}."""
    toks = m.tokens
    named, reexports, aliases = [], {}, {}
    scopes = []  # (depth at open, module path, test?)
    depth, pending_test, pending_mod = 0, False, None
    k = 0

    def here():
        return scopes[-1][1] if scopes else m.path

    def in_test():
        return m.test or any(s[2] for s in scopes)

    def absolute(segs, where):
        """Segments relative to module `where`, made absolute: (crate, path) or None."""
        crate, segs = m.crate, list(segs)
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        elif segs[0] in ("super", "self"):
            base = where
            while segs and segs[0] in ("super", "self"):
                base = base[:-1] if segs.pop(0) == "super" else base
        elif crate == "main" and segs[0] == lib_name:
            crate, base, segs = "lib", (), segs[1:]
        elif (m.crate, where + (segs[0],)) in mods or segs[0] in inline_children(where):
            base = where
        elif segs[0] in aliases:
            crate, base = aliases[segs[0]]
            segs = segs[1:]
        else:
            return None  # another crate, or a local name
        return crate, tuple(base) + tuple(segs)

    def inline_children(where):
        return {s[1][-1] for s in scopes if s[1][:-1] == where and s[1] != where}

    while k < len(toks):
        t = toks[k]
        if t == "#" and toks[k + 1 : k + 7] == ["[", "cfg", "(", "test", ")", "]"]:
            pending_test, k = True, k + 7
            continue
        if t == "mod" and k + 2 < len(toks) and toks[k + 2] == "{":
            pending_mod = here() + (toks[k + 1],)
        if t == "{":
            depth += 1
            if pending_mod or pending_test:
                scopes.append((depth, pending_mod or here(), pending_test))
            pending_mod, pending_test = None, False
        elif t == "}":
            if scopes and scopes[-1][0] == depth:
                scopes.pop()
            depth -= 1
            pending_test = False
        elif t == ";":
            pending_test = False
        elif t == "use" and (k == 0 or toks[k - 1] != "::"):
            public = k > 0 and toks[k - 1] in ("pub", ")")
            paths, k = parse_use(toks, k + 1)
            kind = TEST if in_test() or pending_test else REEXPORT if public and not scopes else USE
            pending_test = False
            for segs, name in paths:
                a = absolute(segs, here()) if segs else None
                if a is None:
                    continue
                if segs[-1] == "*":
                    named.append(((a[0], a[1][:-1]), kind))
                    continue
                named.append((a, kind))
                if public and not scopes and name:
                    reexports[name] = a
                if name:
                    aliases[name] = a
            continue
        elif re.match(r"[A-Za-z_]", t) and toks[k - 1 : k] != ["::"] and toks[k + 1 : k + 2] == ["::"]:
            segs = [t]
            j = k + 1
            while j + 1 < len(toks) and toks[j] == "::" and re.match(r"[A-Za-z_]", toks[j + 1]):
                segs.append(toks[j + 1])
                j += 2
            a = absolute(segs, here())
            if a is not None:
                named.append((a, TEST if in_test() or pending_test else USE))
            k = j
            continue
        k += 1
    return named, reexports


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    src, only_cycles = Path(args[0]), "--cycles" in args
    reach = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--reach"]
    cargo = src.parent / "Cargo.toml"
    lib_name = None
    if cargo.exists():
        m = re.search(r'^\[package\][^\[]*?^name\s*=\s*"([^"]+)"', cargo.read_text(), re.M | re.S)
        lib_name = m and m.group(1).replace("-", "_")
    mods = load(src)
    scanned = {key: scan(m, mods, lib_name) for key, m in mods.items()}
    reexports = {key: s[1] for key, s in scanned.items()}

    def resolve(a, hops=0):
        """The file module that defines what absolute path `a` names."""
        crate, segs = a
        for n in range(len(segs), -1, -1):
            if (crate, segs[:n]) in mods:
                rest = segs[n:]
                target = reexports[(crate, segs[:n])].get(rest[0]) if rest else None
                if target and hops < 8 and target != a:
                    return resolve((target[0], target[1] + rest[1:]), hops + 1)
                return (crate, segs[:n])
        return None

    def name(key):
        crate, path = key
        head = "crate" if crate == "lib" else "main"
        return "::".join((head,) + path)

    edges = {}  # (src key, dst key) -> the strongest kind of its paths (USE < REEXPORT < TEST)
    for key, (named, _) in scanned.items():
        for a, kind in named:
            dst = resolve(a)
            if dst is None or dst == key:
                continue
            edges[(key, dst)] = min(kind, edges.get((key, dst), TEST))

    # Lift each plain edge to the siblings under the pair's closest common parent.
    layer = set()
    for (s, d), kind in edges.items():
        if kind != USE:
            continue
        if s[0] != d[0]:  # the binary's modules → the library: across crates, never a cycle
            layer.add((("main", s[1][:1]), ("lib", ())))
            continue
        p, q = s[1], d[1]
        n = 0
        while n < min(len(p), len(q)) and p[n] == q[n]:
            n += 1
        if n == len(p) or n == len(q):
            continue  # a module and its own ancestor: one unit
        layer.add(((s[0], p[: n + 1]), (d[0], q[: n + 1])))

    if reach:
        names = {name(key): key for key in mods}
        for r in reach:
            if r not in names:
                sys.exit(f"no module {r}; modules: {', '.join(sorted(names))}")
            seen, todo = set(), [names[r]]
            while todo:
                v = todo.pop()
                for (s, d), kind in edges.items():
                    # The start's re-exports are its public surface: followed from it only.
                    ok = kind == USE or (kind == REEXPORT and v == names[r])
                    if s == v and ok and d not in seen:
                        seen.add(d)
                        todo.append(d)
            print(f"{r} reaches: " + ", ".join(sorted(name(x) for x in seen)))
        return

    cycles = strongly_connected(layer)
    if not only_cycles:
        print(f"# {len(mods)} modules; edges (file module -> file module it names)")
        for (s, d), kind in sorted(edges.items(), key=lambda e: (name(e[0][0]), name(e[0][1]))):
            print(f"{name(s)} -> {name(d)}{LABEL[kind]}")
        print("\n# layer edges (lifted to siblings; test and re-export edges left out)")
        for s, d in sorted(layer, key=lambda e: (name(e[0]), name(e[1]))):
            print(f"{name(s)} -> {name(d)}")
        print()
    for c in cycles:
        loop = shortest_loop(c, layer)
        print("cycle: " + " -> ".join(name(x) for x in loop + loop[:1]))
        if len(c) > len(loop):
            print(f"  (one of the loops among {', '.join(name(x) for x in c)})")
    print(f"{len(cycles)} cycle{'' if len(cycles) == 1 else 's'}")
    sys.exit(1 if cycles else 0)


def shortest_loop(component, edges):
    """A shortest path from the component's first node back to itself, inside the component."""
    start, inside = component[0], set(component)
    prev, todo = {}, [start]
    while todo:
        v = todo.pop(0)
        for s, d in sorted(edges):
            if s != v or d not in inside:
                continue
            if d == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return path[::-1]
            if d not in prev:
                prev[d] = v
                todo.append(d)
    return component


def strongly_connected(edges):
    """The components of more than one node (Tarjan), each sorted."""
    graph = {}
    for s, d in edges:
        graph.setdefault(s, []).append(d)
        graph.setdefault(d, [])
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    main()
