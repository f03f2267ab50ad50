#!/usr/bin/env python3
"""Phase 1 throughput: 16 sessions, a model that takes 1 s per call, concurrency 8.

A real HTTP server on loopback speaks the OpenAI Chat Completions format and sleeps
``--latency`` seconds before each answer. The pipeline runs for real: transcripts on disk,
a SQLite state store, claims, leases, redaction, the openai SDK. Codex runs the same step with
``buffer_unordered(8)``, so its floor is ceil(16 / 8) x 1 s = 2 s.

    python bench/memory_phase1.py [--sessions 16] [--concurrency 8] [--latency 1.0] [--sequential]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPLY = json.dumps(
    {"raw_memory": "- tests run with make check", "rollout_summary": "Ran the tests", "rollout_slug": "tests"}
)


def start_server(latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            time.sleep(latency)
            body = json.dumps(
                {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": REPLY},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_once(n: int, concurrency: int, url: str, work: Path) -> tuple[float, dict[str, int]]:
    from skillshelf.env import Env
    from skillshelf.memory.service import RunOptions, run_memory
    from skillshelf.memory.settings import MemorySettings
    from skillshelf.memory.transcripts.skillshelf import TranscriptWriter

    folder = work / f"transcripts-{concurrency}"
    old = time.time() - 7 * 3600
    for i in range(n):
        path = folder / f"{i:03d}.jsonl"
        with TranscriptWriter(path, session_id=f"bench-{concurrency}-{i}", cwd=work) as writer:
            writer.message("user", f"task {i}: run the tests; we use make check here")
            writer.tool_call("c1", "shell", {"cmd": "make check"})
            writer.tool_result("c1", "128 passed in 3.1s")
            writer.message("assistant", "All tests pass.")
        os.utime(path, (old, old))
    settings = MemorySettings().with_overrides(
        extract_model="openai:bench", base_url=url + "/v1", concurrency=concurrency, max_rollouts_per_run=n
    )
    env = Env.for_test(cwd=work, home=work / "home")
    start = time.perf_counter()
    report = run_memory(
        env, settings, RunOptions(sessions=(folder,), db=str(work / f"state-{concurrency}.sqlite"), phase="1")
    )
    return time.perf_counter() - start, report.outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--sequential", action="store_true", help="also run with concurrency 1")
    args = parser.parse_args()
    server = start_server(args.latency)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory(prefix="skillshelf-bench-") as tmp:
        rows = []
        for concurrency in ([1] if args.sequential else []) + [args.concurrency]:
            elapsed, outcomes = run_once(args.sessions, concurrency, url, Path(tmp))
            floor = math.ceil(args.sessions / concurrency) * args.latency
            rows.append((concurrency, elapsed, floor, outcomes))
    server.shutdown()
    print(
        f"Phase 1: {args.sessions} sessions, model latency {args.latency:.1f} s, loopback "
        "OpenAI-format server"
    )
    print(f"{'concurrency':>11}  {'skillshelf':>10}  {'Codex floor':>11}  outcomes")
    for concurrency, elapsed, floor, outcomes in rows:
        print(f"{concurrency:>11}  {elapsed:>9.2f}s  {floor:>10.2f}s  {outcomes}")
    ok = all(o.get("extracted", 0) == args.sessions for *_, o in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
