"""Memory bounds: a transcript with a 100 MB line is streamed and clipped, so `memory run
--dry-run` over it peaks well under 300 MB of resident memory (measured in a child process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skillshelf.memory.transcripts.clip import LineClipper

SIZE = 100 * 1024 * 1024
PEAK_LIMIT_MB = 300
_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, encoding='utf-8')\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(done.returncode, peak, flush=True)\n"
    "sys.stderr.write(done.stderr)\n"
    "sys.stdout.write(done.stdout)\n"
)


def _huge_line(shape: str) -> bytes:
    if shape == "one-string":
        value: Any = "x" * SIZE
    elif shape == "escaped-lines":
        value = 'a log line with "quotes", a tab\tand UTF-8 \u00e9\u4e2d\n' * (SIZE // 50)
    else:  # many small values: nothing long to clip, so the line is given up
        value = ["v"] * (SIZE // 4)
    record = {"type": "tool_result", "ts": "2026-01-01T00:00:03Z", "id": "c1", "output": value}
    return json.dumps(record).encode() + b"\n"


def _ordinary_lines(handle: Any) -> None:
    """``SIZE`` bytes of 5 KB messages: a long session, no line of it long."""
    text = "lorem ipsum dolor sit amet " * 185
    for n in range(SIZE // 5000):
        role = "user" if n % 2 == 0 else "assistant"
        record = {"type": "message", "ts": "2026-01-01T00:00:03Z", "role": role, "text": f"{n} {text}"}
        handle.write(json.dumps(record).encode() + b"\n")


def _transcript(folder: Path, project: Path, shape: str) -> Path:
    folder.mkdir(parents=True)
    path = folder / "big.jsonl"
    head = [
        {"type": "session_meta", "ts": "2026-01-01T00:00:00Z", "cwd": str(project), "id": "big"},
        {"type": "message", "ts": "2026-01-01T00:00:01Z", "role": "user", "text": "cat the build log"},
        {"type": "tool_call", "ts": "2026-01-01T00:00:02Z", "id": "c1", "name": "bash", "arguments": {}},
    ]
    tail = {"type": "message", "ts": "2026-01-01T00:00:04Z", "role": "assistant", "text": "the log ends"}
    with path.open("wb") as handle:
        handle.writelines(json.dumps(r).encode() + b"\n" for r in head)
        if shape == "ordinary-lines":
            _ordinary_lines(handle)
        else:
            handle.write(_huge_line(shape))
        handle.write(json.dumps(tail).encode() + b"\n")
    old = time.time() - 10 * 3600
    os.utime(path, (old, old))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["one-string", "escaped-lines", "many-small-values", "ordinary-lines"])
def test_a_dry_run_over_a_100_mb_line_or_session_stays_under_300_mb(
    tmp_path: Path, isolated_home: Any, shape: str
) -> None:
    project = isolated_home.home / "proj"
    project.mkdir()
    folder = tmp_path / "sessions"
    _transcript(folder, project, shape)
    command = [sys.executable, "-c", "from skillshelf.cli.main import main; main()"]
    command += ["memory", "run", "--sessions", str(folder), "--dry-run", "--json", "--min-idle-hours", "0"]
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    status, _, rest = done.stdout.partition("\n")
    code, peak_kb = (int(n) for n in status.split())
    assert code == 0, done.stderr
    report = json.loads(rest)
    [prompt] = report["dry_run"]
    assert "cat the build log" in prompt["prompt"] and "the log ends" in prompt["prompt"]
    assert report["skipped_lines"] == (1 if shape == "many-small-values" else 0)
    print(f"peak RSS of `memory run --dry-run` over 100 MB ({shape}): {peak_kb / 1024:.0f} MB")
    assert peak_kb / 1024 <= PEAK_LIMIT_MB


@pytest.mark.parametrize(
    "text",
    ["plain " * 50_000, 'esc\\"aped\n\t\u00e9\u4e2d\U0001f600 ' * 20_000, "\\" * 100_001, "\u00e9" * 99_999],
)
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_a_clipped_line_keeps_head_and_tail_of_each_string_and_still_parses(text: str, chunk: int) -> None:
    line = json.dumps({"k": text, "small": "kept", "n": [1, 2]}, ensure_ascii=chunk != 7).encode()
    clipper = LineClipper(keep=1000)
    for start in range(0, len(line), chunk):
        clipper.feed(line[start : start + chunk])
    clipped = clipper.result()
    assert clipped is not None and len(clipped) < 2500
    value = json.loads(clipped)
    assert value["small"] == "kept" and value["n"] == [1, 2]
    head, marker, tail = value["k"].partition("\u2026[clipped ")
    assert marker and text.startswith(head) and len(head) >= 50
    kept_tail = tail.partition(" bytes]\u2026")[2]
    assert text.endswith(kept_tail) and len(kept_tail) >= 50


def test_a_line_that_stays_too_long_after_clipping_is_given_up() -> None:
    clipper = LineClipper(keep=100, limit=1000)
    clipper.feed(json.dumps(["v"] * 1000).encode())
    assert clipper.result() is None
    short = LineClipper(keep=100, limit=1000)
    short.feed(b'{"a": "unterminated')
    assert short.result() == b'{"a": "unterminated'
