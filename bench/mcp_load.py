"""MCP serving at scale: tools/list size, start-up time, and latency under 50 concurrent clients.

    python bench/mcp_load.py [--root DIR] [--clients 50] [--calls 20] [--startup-runs 5]

With the 979 real skills of ../shared/corpora as the root, it measures:

1. ``tools/list`` over stdio: number of tools and bytes on the wire (targets: <= 8 tools,
   <= 8,000 bytes), beside skillz's 705 tools / 453,836 bytes on the same skills;
2. start-up to first answer: process start -> ``initialize`` -> ``tools/list`` answered,
   once cold (empty cache) and then warm (target <= 1 s warm; skillz: 5.8 s);
3. a load test on loopback: ``--clients`` official MCP clients over streamable HTTP, each
   making ``--calls`` calls alternating ``load_skill`` and ``search_skills``; bounded in
   count and in time (``--deadline`` seconds); p50/p99 latency per tool.

Nothing leaves the machine; the user's cache is not touched (a temporary cache folder is used).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared")).resolve() / "corpora"
SKILLZ = {"tools": 705, "bytes": 453_836, "startup_s": 5.8}
SERVE = [sys.executable, "-m", "skillshelf.cli.main", "serve", "--no-builtin", "--no-watch"]


def _rpc(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], want_id: int) -> bytes:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed stdout before answering")
        if json.loads(line).get("id") == want_id:
            return line


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (Linux /proc; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def startup_once(root: Path, env: dict[str, str]) -> tuple[float, float, bytes, bytes]:
    """Wall and CPU seconds from spawn to the tools/list answer, and the raw initialize and
    tools/list answers. CPU time does not grow when other programs load the machine."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*SERVE, "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            },
        )
        init = _answer(proc, 1)
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = _answer(proc, 2)
        elapsed = time.perf_counter() - start
        cpu = cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return elapsed, cpu, init, tools


def _drain(stream: Any) -> None:
    for _line in stream:
        pass


def start_http(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*SERVE, "--root", str(root), "--transport", "http", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        match = re.search(r"at (http://\S+)", line)
        if match:
            threading.Thread(target=_drain, args=(proc.stderr,), daemon=True).start()  # keep the pipe empty
            return proc, match.group(1)
    raise RuntimeError("the HTTP server did not start")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] * 1000


async def load_test(
    url: str, names: list[str], queries: list[str], clients: int, calls: int, deadline: float
) -> dict[str, Any]:
    import anyio
    from mcp import Client

    latencies: dict[str, list[float]] = {"load_skill": [], "search_skills": []}
    errors: list[str] = []
    rng = random.Random(7)

    async def worker(n: int) -> None:
        async with Client(url) as client:
            for i in range(calls):
                if (n + i) % 2 == 0:
                    tool, args = "load_skill", {"name": rng.choice(names)}
                else:
                    tool, args = "search_skills", {"query": rng.choice(queries), "top_k": 5}
                t0 = time.perf_counter()
                result = await client.call_tool(tool, args)
                latencies[tool].append(time.perf_counter() - t0)
                if result.is_error:
                    errors.append(f"{tool}{args}")

    t0 = time.perf_counter()
    with anyio.fail_after(deadline):
        async with anyio.create_task_group() as group:
            for n in range(clients):
                group.start_soon(worker, n)
    return {"latencies": latencies, "errors": errors, "wall": time.perf_counter() - t0}


async def warm_up(url: str) -> tuple[float, list[str], list[str]]:
    """First search (builds the index) and the skill names / queries used by the load test."""
    from mcp import Client

    async with Client(url) as client:
        names: list[str] = []
        descriptions: list[str] = []
        cursor: str | None = None
        while True:
            page = await client.call_tool(
                "list_skills", {"limit": 200, **({"cursor": cursor} if cursor else {})}
            )
            data = page.structured_content or {}
            names += [s["name"] for s in data["skills"]]
            descriptions += [s["description"] for s in data["skills"]]
            cursor = data.get("next_cursor")
            if not cursor:
                break
        t0 = time.perf_counter()
        await client.call_tool("search_skills", {"query": "extract tables from a pdf"})
        first_search = time.perf_counter() - t0
    queries = [" ".join(d.split()[:8]) for d in descriptions if d.strip()]
    return first_search, names, queries


def main() -> None:
    import anyio

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=CORPORA)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--calls", type=int, default=20, help="calls per client")
    ap.add_argument("--startup-runs", type=int, default=5)
    ap.add_argument("--deadline", type=float, default=300.0, help="seconds the load test may take at most")
    a = ap.parse_args()
    if not a.root.is_dir():
        sys.exit(f"no skills folder at {a.root}")

    with tempfile.TemporaryDirectory(prefix="skillshelf-bench-") as tmp:
        env = dict(os.environ, SKILLSHELF_CACHE_DIR=str(Path(tmp) / "cache"))
        cold, cold_cpu, init, tools_line = startup_once(a.root, env)
        runs = [startup_once(a.root, env) for _ in range(a.startup_runs)]
        warm, warm_cpu = [r[0] for r in runs], [r[1] for r in runs]
        tools = json.loads(tools_line)["result"]["tools"]
        instructions = json.loads(init)["result"].get("instructions", "")

        print(f"root: {a.root}")
        print(f"{'':34} {'skillshelf':>14} {'skillz':>12}")
        print(f"{'tools/list: tools':34} {len(tools):>14} {SKILLZ['tools']:>12}")
        print(f"{'tools/list: bytes on the wire':34} {len(tools_line):>14,} {SKILLZ['bytes']:>12,}")
        print(f"{'tools/list: tools array, compact':34} {len(json.dumps(tools, separators=(',', ':'))):>14,}")
        print(f"{'instructions (catalog) bytes':34} {len(instructions.encode()):>14,}")
        print(f"{'start-up to tools/list, cold (s)':34} {cold:>14.2f}")
        print(
            f"{'start-up to tools/list, warm (s)':34} {statistics.median(warm):>14.2f} "
            f"{SKILLZ['startup_s']:>12}"
        )
        print(f"{'  CPU time of the server, cold (s)':34} {cold_cpu:>14.2f}")
        print(f"{'  CPU time of the server, warm (s)':34} {statistics.median(warm_cpu):>14.2f}")
        print(
            f"  warm runs (wall): {', '.join(f'{w:.2f}' for w in warm)}; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )

        proc, url = start_http(a.root, env)
        try:
            first_search, names, queries = anyio.run(warm_up, url)
            print(
                f"\nHTTP {url}: {len(names)} skills; first search: {first_search * 1000:.0f} ms "
                "(waits for the index the server starts building at start-up; empty cache)"
            )
            result = anyio.run(load_test, url, names, queries, a.clients, a.calls, a.deadline)
        finally:
            proc.terminate()
            proc.wait(timeout=10)

    total = sum(len(v) for v in result["latencies"].values())
    print(
        f"load test: {a.clients} concurrent clients x {a.calls} calls = {total} calls in "
        f"{result['wall']:.1f} s ({total / result['wall']:.0f} calls/s), {len(result['errors'])} tool errors"
    )
    for tool, values in result["latencies"].items():
        print(
            f"  {tool:14} n={len(values):4}  p50 {pct(values, 0.5):7.1f} ms   p99 {pct(values, 0.99):7.1f} ms"
        )


if __name__ == "__main__":
    main()
