#!/usr/bin/env python3
"""The module graph of this project, from its #include lines, and the rules it must keep.

Each node is one layer of one module: the model/ or helper/ folder of rdma, rocev2,
infiniband and collectives, and the kernel, fabric and program modules whole (kernel and
fabric hold only models, program only helpers); examples/ is the programs. An edge A -> B
says that a file of A includes a header of B ("ns3/<name>.h", the copies build_lib makes).

  utils/module-graph.py                 print the graph as Graphviz dot
  utils/module-graph.py --mermaid       print it as a Mermaid flowchart
  utils/module-graph.py --update FILE   rewrite the Mermaid block between the markers in FILE
  utils/module-graph.py --check [FILE]  exit 1 naming every include that breaks a rule (and,
                                        with FILE, when FILE's graph is not the current one)

The rules (docs/architecture.md):
  1. models never include contrib/program: a model is usable without the programs' options,
     files and reports;
  2. models never include helpers (helpers build and wire models, not the other way);
  3. the modules form no cycle, and each links only modules listed before it in the
     top-level CMakeLists.txt (NS3_MODULE_FOLDERS).
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODULES = ["contrib/kernel", "contrib/fabric", "contrib/program", "contrib/rdma", "rocev2",
           "infiniband", "collectives"]
PROGRAM = "contrib/program"
BEGIN = "<!-- module-graph: begin (utils/module-graph.py --update docs/architecture.md) -->"
END = "<!-- module-graph: end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s+"ns3/([A-Za-z0-9_.-]+\.h)"', re.M)


def module_folders():
    """NS3_MODULE_FOLDERS from the top-level CMakeLists.txt, in its order."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        text = f.read()
    m = re.search(r"set\(NS3_MODULE_FOLDERS([^)]*)\)", text)
    if not m:
        sys.exit("module-graph: no set(NS3_MODULE_FOLDERS ...) in CMakeLists.txt")
    return m.group(1).split()


def layer_of(path):
    """The node a source file belongs to, or None (tests, bench, ...)."""
    rel = os.path.relpath(path, ROOT)
    if rel.startswith("examples" + os.sep):
        return "examples"
    for module in MODULES:
        if rel.startswith(module + os.sep):
            rest = rel[len(module) + 1:].split(os.sep)
            if module in ("contrib/kernel", "contrib/fabric", PROGRAM):
                return module.split("/")[-1]
            return module.split("/")[-1] + "/" + rest[0]
    return None


def sources():
    for top in MODULES + ["examples"]:
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if name.endswith((".h", ".cc")):
                    yield os.path.join(folder, name)


def scan():
    """(edges {(a, b): [(file, header)]}, header owner {name: layer}, layers)."""
    owner = {}
    files = list(sources())
    for path in files:
        if path.endswith(".h") and layer_of(path) != "examples":
            owner[os.path.basename(path)] = layer_of(path)
    edges = {}
    layers = set()
    for path in files:
        a = layer_of(path)
        layers.add(a)
        with open(path, errors="replace") as f:
            for header in INCLUDE.findall(f.read()):
                b = owner.get(header)
                if b and b != a:
                    edges.setdefault((a, b), []).append((os.path.relpath(path, ROOT), header))
    return edges, owner, layers


def module_of(layer):
    return layer.split("/")[0]


def is_model(layer):
    return layer in ("kernel", "fabric") or layer.endswith("/model")


def problems(edges):
    found = []
    order = [f.split("/")[-1] for f in module_folders()]
    for (a, b), where in sorted(edges.items()):
        why = None
        if is_model(a) and b == "program":
            why = "a model includes contrib/program"
        elif is_model(a) and (b.endswith("/helper") or b in ("program", "examples")):
            why = "a model includes a helper"
        elif b == "examples":
            why = "a module includes a program"
        elif a != "examples" and module_of(a) != module_of(b):
            ma, mb = module_of(a), module_of(b)
            if ma in order and mb in order and order.index(mb) > order.index(ma):
                why = ("%s includes %s, which NS3_MODULE_FOLDERS lists after it (a cycle, or "
                       "the wrong order)" % (ma, mb))
        if why:
            for path, header in where:
                found.append("%s: includes ns3/%s (%s): %s" % (path, header, b, why))
    return found


def ordered(layers):
    key = {m.split("/")[-1]: i for i, m in enumerate(MODULES)}
    return sorted(layers, key=lambda l: (key.get(module_of(l), len(MODULES)), l))


def node_id(layer):
    return layer.replace("/", "_")


def dot(edges, layers):
    out = ["digraph modules {", "  rankdir=BT;", "  node [shape=box, fontname=sans];"]
    for layer in ordered(layers):
        style = ', style=filled, fillcolor="#e8f0fe"' if is_model(layer) else ""
        out.append('  %s [label="%s"%s];' % (node_id(layer), layer, style))
    for a, b in sorted(edges):
        out.append("  %s -> %s;" % (node_id(a), node_id(b)))
    out.append("}")
    return "\n".join(out) + "\n"


def mermaid(edges, layers):
    out = ["```mermaid", "flowchart BT"]
    for layer in ordered(layers):
        shape = '(["%s"])' if is_model(layer) else '["%s"]'
        out.append("  " + node_id(layer) + shape % layer)
    for a, b in sorted(edges):
        out.append("  %s --> %s" % (node_id(a), node_id(b)))
    out.append("```")
    return "\n".join(out) + "\n"


def block_in(path):
    with open(path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit("module-graph: %s has no %s ... %s block" % (path, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    return head, body, tail


def main(argv):
    edges, _, layers = scan()
    graph = mermaid(edges, layers)
    if not argv:
        sys.stdout.write(dot(edges, layers))
    elif argv[0] == "--mermaid":
        sys.stdout.write(graph)
    elif argv[0] == "--update" and len(argv) == 2:
        head, _, tail = block_in(argv[1])
        with open(argv[1], "w") as f:
            f.write(head + BEGIN + "\n" + graph + END + tail)
    elif argv[0] == "--check" and len(argv) <= 2:
        found = problems(edges)
        if len(argv) == 2 and block_in(argv[1])[1].strip() != graph.strip():
            found.append("%s: its module graph is not the current one (run utils/module-graph.py "
                         "--update %s)" % (argv[1], argv[1]))
        for line in found:
            print(line)
        if found:
            return 1
        print("module graph: %d layers, %d edges, no rule broken" % (len(layers), len(edges)))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
