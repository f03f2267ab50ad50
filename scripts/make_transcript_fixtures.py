#!/usr/bin/env python3
"""Write real Codex and Claude Code session transcripts into tests/fixtures/transcripts/.

The real CLIs (pinned releases that ``../shared/tools/codex-oracle`` and ``claude-oracle``
install from npm into ``~/.cache``) run offline against ``../shared/tools/model-standin``: each
session asks the agent to run one shell command, gets the command's output back, and ends with
a short answer. The CLIs write their own on-disk session files; this script copies them, as
they are, into the fixtures folder:

    tests/fixtures/transcripts/codex/rollout-<ts>-<id>.jsonl
    tests/fixtures/transcripts/claude/<session-id>.jsonl

The tasks are our own text. One task carries a fake GitHub token so that the tests can show the
redactor removing it before anything reaches the model, the database or the memory folder.

    python scripts/make_transcript_fixtures.py [--out DIR] [--shared DIR]

Exit codes: 0 written, 3 a CLI is not installed (run the oracles once to install them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CODEX = Path.home() / ".cache/codex-oracle/0.171.0/node_modules/.bin/codex"
CLAUDE = Path.home() / ".cache/claude-oracle/2.1.197/node_modules/.bin/claude"
FAKE_TOKEN = "ghp_" + "R8x2Lq9ZtW4vN7kP3mB6yD1cF5hJ0sA2gE8u"

SESSIONS = [
    {
        "agent": "codex",
        "project": "billing-api",
        "task": (
            "Run the unit tests. Remember: in this repository the tests run with `make check`, "
            "never with pytest directly."
        ),
        "command": "ls -la",
        "answer": "Noted: tests run with make check here. The folder is listed above.",
    },
    {
        "agent": "codex",
        "project": "web-frontend",
        "task": (
            f"Deploy preview with token {FAKE_TOKEN} and tell me the folder contents. "
            "We always use pnpm, not npm."
        ),
        "command": "pwd",
        "answer": "I will use pnpm for installs in this project. Printed the working folder.",
    },
    {
        "agent": "claude",
        "project": "billing-api",
        "task": (
            "Check the migrations folder. Preference: keep SQL migrations numbered with four digits "
            "like 0007_name.sql."
        ),
        "command": "ls -la",
        "answer": "Understood: migrations use four-digit prefixes. The folder listing is above.",
    },
    {
        "agent": "claude",
        "project": "data-pipeline",
        "task": "What is today's date?",
        "command": "date -u +%Y",
        "answer": "Printed the year.",
    },
]


def start_standin(
    shared: Path, work: Path, script: list[dict[str, object]]
) -> tuple[subprocess.Popen[bytes], int]:
    script_file = work / "script.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    port_file = work / "port"
    port_file.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [
            sys.executable,
            str(shared / "tools/model-standin"),
            "--port-file",
            str(port_file),
            "--script",
            str(script_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        if port_file.exists() and port_file.read_text(encoding="utf-8").strip():
            return proc, int(port_file.read_text(encoding="utf-8"))
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("model-standin did not start")


def run_codex(session: dict[str, str], work: Path, port: int) -> Path:
    home = work / "home"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "standin-model"\nmodel_provider = "standin"\n[model_providers.standin]\nname = "standin"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\n',
        encoding="utf-8",
    )
    project = work / session["project"]
    project.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "sk-standin"}
    subprocess.run(
        [str(CODEX), "exec", "--skip-git-repo-check", session["task"]],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=120,
        check=True,
    )
    return max((codex_home / "sessions").rglob("rollout-*.jsonl"), key=lambda p: p.stat().st_mtime)


def run_claude(session: dict[str, str], work: Path, port: int) -> Path:
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    project = work / session["project"]
    project.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-ant-standin",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    subprocess.run(
        [str(CLAUDE), "-p", session["task"], "--allowedTools", "Bash"],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=120,
        check=True,
    )
    return max((home / ".claude/projects").rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests/fixtures/transcripts")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args()
    for cli in (CODEX, CLAUDE):
        if not cli.exists():
            print(f"missing {cli}: run the codex/claude oracle once so it installs the CLI", file=sys.stderr)
            return 3
    for agent in ("codex", "claude"):
        shutil.rmtree(args.out / agent, ignore_errors=True)
        (args.out / agent).mkdir(parents=True)
    for session in SESSIONS:
        with tempfile.TemporaryDirectory(prefix="skillshelf-fixture-") as tmp:
            work = Path(tmp)
            tool = "exec_command" if session["agent"] == "codex" else "Bash"
            arguments = (
                {"cmd": session["command"]}
                if tool == "exec_command"
                else {"command": session["command"], "description": "Run a command"}
            )
            script = [{"tool_call": {"name": tool, "arguments": arguments}}, {"text": session["answer"]}]
            proc, port = start_standin(args.shared, work, script)
            try:
                runner = run_codex if session["agent"] == "codex" else run_claude
                written = runner(session, work, port)
            finally:
                proc.terminate()
                proc.wait(timeout=5)
            target = args.out / session["agent"] / written.name
            shutil.copyfile(written, target)
            print(f"wrote {target.relative_to(REPO) if target.is_relative_to(REPO) else target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
