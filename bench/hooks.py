"""Hook latency: ``skillshelf hook UserPromptSubmit`` as Codex and Claude Code run it, one whole
process per prompt, beside ``skillshelf context`` on the same prompts.

    python bench/hooks.py [--runs 30] [--cold-runs 3] [--scales 979,10000]

The skills are the corpora of ``../shared`` read at run time, never copied into the project: at
979 the six corpus folders are linked into a throwaway repository's ``.agents/skills`` (as in
the end-to-end tests); at 10,000 the corpus skills that load are written again and again into
extra roots (named in the user config) until there are 10,000 of them. Prompts are the ``test``
split of ``benchmarks/skill-requests`` (nothing here is tuned on them).

- **warm, hook server**: the hook server is running (``skillshelf hook-server start``, as the
  first prompt starts it) and the index cache on disk is current: what every prompt but the
  first of a working session gets;
- **warm, in the hook process**: the same, with ``SKILLSHELF_HOOK_SERVER=0`` (no server: the
  hook process loads everything itself);
- **cold**: an empty cache folder and no server (a first prompt ever, or after the cache was
  deleted); the hook runs with ``--deadline 0`` so it finishes instead of answering empty at
  its deadline.

Wall time is what the agent waits for; CPU time (user + system of the child) is also printed,
since wall time grows with whatever else the machine is running. Python writes its bytecode
cache (``PYTHONDONTWRITEBYTECODE`` is removed), as in a normal install.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
SHARED = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared")).resolve()
CORPORA = SHARED / "corpora"
REQUESTS = SHARED / "benchmarks" / "skill-requests" / "requests.jsonl"
TARGET_S = 0.3


def _skillshelf() -> list[str]:
    script = Path(sys.executable).with_name("skillshelf")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillshelf.cli.main"]


def _prompts() -> list[str]:
    rows = [json.loads(line) for line in REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(r["query"]) for r in rows if r.get("split") == "test"]


def _repo(work: Path, scale: int) -> Path:
    """A repository whose skills are the corpora: linked in at 979; at larger scales the corpus
    skills that load, written again and again into extra roots of at most 1,250 skills each (a
    root holds 2,000 folders at most, as in Codex), named in the user config."""
    repo = work / f"repo-{scale}"
    skills = repo / ".agents" / "skills"
    skills.mkdir(parents=True)
    (repo / ".git").mkdir()
    if scale <= 979:
        for corpus in sorted(p for p in CORPORA.iterdir() if p.is_dir()):
            (skills / corpus.name).symlink_to(corpus, target_is_directory=True)
        return repo
    from skillshelf.skills.discover import discover_in

    files = [s.path for s in discover_in(sorted(p for p in CORPORA.iterdir() if p.is_dir())).skills]
    roots = [work / f"roots-{scale}" / f"r{k}" for k in range(-(-scale // 1250))]
    for i in range(scale):
        target = roots[i // 1250] / f"s{i:05d}" / "SKILL.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files[i % len(files)], target)
    config = work / f"config-{scale}" / "skillshelf" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[skills]\nroots = [" + ", ".join(json.dumps(str(r)) for r in roots) + "]\n", encoding="utf-8"
    )
    return repo


def _env(work: Path, cache: str, scale: int, *, server: bool = False) -> dict[str, str]:
    home = work / "home"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("XDG_")}
    env.update(
        HOME=str(home),
        CODEX_HOME=str(home / ".codex"),
        XDG_CACHE_HOME=str(work / cache),
        XDG_DATA_HOME=str(work / "data"),
        XDG_CONFIG_HOME=str(work / f"config-{scale}"),
        XDG_STATE_HOME=str(work / "state"),
        SKILLSHELF_HOOK_SERVER="1" if server else "0",
    )
    return env


def _run(
    args: list[str], *, cwd: Path, env: dict[str, str], stdin: bytes = b""
) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the child, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, env=env, input=stdin, capture_output=True, timeout=900, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def _hook(repo: Path, env: dict[str, str], prompt: str) -> tuple[float, float, bytes]:
    payload = json.dumps(
        {"session_id": "bench", "cwd": str(repo), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    )
    args = [*_skillshelf(), "hook", "UserPromptSubmit", "--agent", "codex", "--deadline", "0"]
    return _run(args, cwd=repo, env=env, stdin=payload.encode())


def _context(repo: Path, env: dict[str, str], prompt: str) -> tuple[float, float, bytes]:
    return _run([*_skillshelf(), "context", prompt, "--raw"], cwd=repo, env=env)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _line(label: str, samples: list[tuple[float, float, bytes]]) -> str:
    wall = [s[0] for s in samples]
    cpu = [s[1] for s in samples]
    answered = sum(1 for s in samples if b"<skill_suggestions>" in s[2])
    return (
        f"  {label:<38} n={len(samples):3}  wall p50 {_pct(wall, 0.5):6.3f} s  p99 {_pct(wall, 0.99):6.3f} s"
        f"   cpu p50 {_pct(cpu, 0.5):6.3f} s  p99 {_pct(cpu, 0.99):6.3f} s   {answered} with suggestions"
    )


def _skills_found(repo: Path, env: dict[str, str]) -> int:
    done = subprocess.run(
        [*_skillshelf(), "list", "--json"], cwd=repo, env=env, capture_output=True, timeout=900, check=False
    )
    return len(json.loads(done.stdout or b"[]"))


def _server(repo: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A hook server for ``env``, answering (its first hook answered) when this returns."""
    process = subprocess.Popen(
        [*_skillshelf(), "hook-server", "start"], cwd=repo, env=env, stdin=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 600
    while b"(server)" not in _hook_log(env) and time.monotonic() < deadline:
        _hook(repo, env, "warm up the hook server")
        time.sleep(0.2)
    return process


def _hook_log(env: dict[str, str]) -> bytes:
    path = Path(env["XDG_STATE_HOME"]) / "skillshelf" / "hooks" / "hooks.log"
    return path.read_bytes()[-4096:] if path.exists() else b""


def _stop(repo: Path, env: dict[str, str], process: subprocess.Popen[bytes]) -> None:
    subprocess.run(
        [*_skillshelf(), "hook-server", "stop"], cwd=repo, env=env, capture_output=True, check=False
    )
    process.wait(timeout=60)


def bench_scale(work: Path, scale: int, prompts: list[str], runs: int, cold_runs: int) -> None:
    repo = _repo(work, scale)
    warm_env = _env(work, f"cache-warm-{scale}", scale)
    # fill the caches before anything is timed, in the foreground: a first prompt past its
    # deadline would leave a detached `hook warm` building them while the warm rows run
    _run([*_skillshelf(), "hook", "warm", "--agent", "claude"], cwd=repo, env=warm_env)
    _hook(repo, warm_env, prompts[0])  # Python's bytecode cache
    found = _skills_found(repo, warm_env)
    if found < scale // 2:  # the corpus links are broken or the corpora are elsewhere
        raise SystemExit(f"error: only {found} of {scale:,} skills load from {CORPORA} (SKILLSHELF_SHARED)")
    served_env = _env(work, f"cache-warm-{scale}", scale, server=True)
    server = _server(repo, served_env)
    try:
        hook_served = [_hook(repo, served_env, prompts[i % len(prompts)]) for i in range(runs)]
        rss = _server_rss(repo, served_env)
    finally:
        _stop(repo, served_env, server)
    hook_warm = [_hook(repo, warm_env, prompts[i % len(prompts)]) for i in range(runs)]
    context_warm = [_context(repo, warm_env, prompts[i % len(prompts)]) for i in range(runs)]
    hook_cold = [
        _hook(repo, _env(work, f"cache-cold-hook-{scale}-{i}", scale), prompts[i]) for i in range(cold_runs)
    ]
    context_cold = [
        _context(repo, _env(work, f"cache-cold-ctx-{scale}-{i}", scale), prompts[i]) for i in range(cold_runs)
    ]
    print(f"\n{scale:,} SKILL.md files ({found:,} skills load), {len(prompts)} test prompts", flush=True)
    print(_line("hook UserPromptSubmit, warm, server", hook_served) + f"   server peak RSS {rss} MB")
    print(_line("hook UserPromptSubmit, warm, in hook", hook_warm))
    print(_line("skillshelf context, warm", context_warm))
    if cold_runs:
        print(_line("hook UserPromptSubmit, cold", hook_cold))
        print(_line("skillshelf context, cold", context_cold))
    p50 = _pct([s[0] for s in hook_served], 0.5)
    verdict = "meets" if p50 <= TARGET_S else "misses"
    print(f"  warm hook p50 {p50:.3f} s (hook server) {verdict} the {TARGET_S} s target")


def _server_rss(repo: Path, env: dict[str, str]) -> int:
    done = subprocess.run(
        [*_skillshelf(), "hook-server", "status", "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
        check=False,
    )
    return int(json.loads(done.stdout or b"{}").get("peak_rss_kb", 0)) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="warm runs per command and scale")
    parser.add_argument(
        "--cold-runs", type=int, default=3, help="cold runs (fresh cache) per command and scale (0: none)"
    )
    parser.add_argument("--scales", default="979,10000", help="comma-separated skill counts")
    args = parser.parse_args()
    if not CORPORA.is_dir() or not REQUESTS.exists():
        raise SystemExit(f"needs {CORPORA} and {REQUESTS} (../shared)")
    prompts = _prompts()
    with tempfile.TemporaryDirectory(prefix="skillshelf-bench-hooks-") as tmp:
        for scale in (int(s) for s in args.scales.split(",")):
            bench_scale(Path(tmp), scale, prompts, args.runs, args.cold_runs)


if __name__ == "__main__":
    main()
