"""Import cycles: strongly connected groups of modules in the package's import graph.

Every import of one module of the package by another is an edge, however it is written:

- at import time, obviously;
- inside a function: it runs the first time the function is called, so the two modules still
  need each other; the function-level import only moves the failure to a call that happens to
  come first (and hides the cycle from the reader);
- under ``if TYPE_CHECKING:``: never runs, but the two modules' types are then defined in terms
  of each other, so neither can be read, checked or moved without the other. ``TYPE_CHECKING``
  is for laziness (a heavy or higher module named only in annotations), not for cycles.

An import of a package (``from pkg import name``, where ``name`` is not a submodule) is an edge to
the package's ``__init__``. The implicit import of a parent package when a submodule loads is
not an edge (Python finishes the parent first; it is the explicit ``from pkg import`` that can
meet a half-initialised package).

Each cycle is reported as the shortest loop through the first module of its group; its edges
are then set aside and the graph searched again, so a group that holds several loops (``a -> b ->
a`` and ``b -> c -> b``) yields each of them, and breaking every one reported ends the group.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence

from skillshelf.archlint.imports import ImportEdge, ParsedModule

__all__ = ["find_cycles"]

Graph = Mapping[str, Mapping[str, ImportEdge]]


def _graph(modules: Iterable[ParsedModule]) -> dict[str, dict[str, ImportEdge]]:
    """source -> target -> the first (lowest-line, import-time first) edge between them."""
    known = {m.name for m in modules}
    graph: dict[str, dict[str, ImportEdge]] = {name: {} for name in known}
    for module in modules:
        for edge in module.imports:
            if edge.target not in known or edge.target == edge.source:
                continue
            seen = graph[edge.source].get(edge.target)
            if seen is None or _rank(edge) < _rank(seen):
                graph[edge.source][edge.target] = edge
    return graph


def _rank(edge: ImportEdge) -> tuple[int, int]:
    kind = 2 if edge.type_checking else (1 if edge.lazy else 0)
    return kind, edge.line


def _components(graph: Graph) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative); only groups of two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = _pop_group(stack, on_stack, node)
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def _pop_group(stack: list[str], on_stack: set[str], root: str) -> list[str]:
    group: list[str] = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        group.append(member)
        if member == root:
            return group


def _shortest_cycle(graph: Graph, group: Sequence[str]) -> tuple[ImportEdge, ...]:
    """The shortest path from ``group[0]`` back to itself, inside the group."""
    members, start = set(group), group[0]
    came_from: dict[str, ImportEdge] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for target in sorted(graph[node]):
            if target not in members or target in came_from:
                continue
            came_from[target] = graph[node][target]
            if target == start:
                return _walk_back(came_from, start)
            queue.append(target)
    raise AssertionError(f"{start} is in a strongly connected group but on no cycle")


def _walk_back(came_from: Mapping[str, ImportEdge], start: str) -> tuple[ImportEdge, ...]:
    path = [came_from[start]]
    while path[-1].source != start:
        path.append(came_from[path[-1].source])
    return tuple(reversed(path))


def find_cycles(modules: Sequence[ParsedModule]) -> list[tuple[ImportEdge, ...]]:
    """One cycle (its edges, in order) for each group of modules that import each other."""
    graph = _graph(modules)
    found: list[tuple[ImportEdge, ...]] = []
    while groups := _components(graph):
        for group in groups:
            cycle = _shortest_cycle(graph, group)
            found.append(cycle)
            for edge in cycle:
                del graph[edge.source][edge.target]
    return sorted(found, key=lambda cycle: (cycle[0].source, cycle[0].line))
