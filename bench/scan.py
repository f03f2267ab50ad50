"""Whole-process time of rendering the skills catalog, beside Codex and skills-ref.

Builds two trees under bench/.work/ (1,900 flat skills; 10,000 skills grouped 100 x 100 under one
root, where both Codex and skillshelf stop at the 2,000-folder limit, skillshelf saying so) and
times, per tree, interleaved runs (so every tool sees the same machine load) of:

* ``skillshelf catalog --no-builtin`` with an empty parsed-skill cache (cold) and a filled one
  (warm);
* the native Codex binary (``codex debug prompt-input``) from the codex-oracle's npm install;
* ``agentskills to-prompt`` of skills-ref (PyPI, in its own venv under bench/.work/), given
  every skill folder, since it cannot walk a tree.

Targets: cold <= Codex, warm <= 0.3 x Codex (medians of wall time). Both sides size the
catalog from Codex's default model (10,000 tokens), so the entry counts should be equal. CPU
time (user + system of the process) is printed beside the wall time: on a machine that other
work keeps busy, wall times of both sides stretch with the load and CPU time stays comparable.

    python bench/scan.py [--runs 7] [--keep]
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
VENV_BIN = Path(sys.executable).parent
CODEX_VERSION = os.environ.get("CODEX_ORACLE_VERSION", "0.171.0")

WORDS = [
    "deploy",
    "review",
    "migrate",
    "database",
    "schema",
    "release",
    "notes",
    "changelog",
    "test",
    "flaky",
    "suite",
    "docker",
    "image",
    "kubernetes",
    "manifest",
    "terraform",
    "plan",
    "lint",
    "format",
    "python",
    "typescript",
    "api",
    "client",
    "pagination",
    "cache",
    "invalidate",
    "metrics",
    "dashboard",
    "alert",
    "incident",
    "postmortem",
    "security",
    "audit",
    "dependency",
    "upgrade",
]


def _description(i: int) -> str:
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(18)]
    return f"Helps {' '.join(words[:9])} for service {i}. Use when the user asks to {' '.join(words[9:])}."


def _skill_text(name: str, i: int) -> str:
    extra = "metadata:\n  short-description: Short help " + str(i) + "\n" if i % 5 == 0 else ""
    if i % 50 == 7:  # a value Codex has to repair
        return f"---\nname: {name}\ndescription: Fix things: {_description(i)}\n---\n\n# {name}\n\nSteps.\n"
    return (
        f"---\nname: {name}\ndescription: {_description(i)}\n{extra}---\n\n"
        f"# {name}\n\n1. Do the thing.\n2. Check it.\n"
    )


def _write_skill(folder: Path, name: str, i: int) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(_skill_text(name, i), encoding="utf-8")
    if i % 10 == 3:
        (folder / "scripts").mkdir()
        (folder / "scripts" / "run.sh").write_text("#!/bin/sh\necho ok\n", encoding="utf-8")
    if i % 25 == 1:
        (folder / "agents").mkdir()
        (folder / "agents" / "openai.yaml").write_text(
            "interface:\n  display_name: Skill\n", encoding="utf-8"
        )


def build_tree(base: Path, kind: str) -> tuple[Path, list[Path]]:
    """A HOME with ~/.agents/skills holding the tree; returns (base, skill folders)."""
    skills_root = base / "home" / ".agents" / "skills"
    if kind == "flat":
        folders = [skills_root / f"skill-{i:04d}" for i in range(1900)]
    else:
        folders = [
            skills_root / f"group-{g:02d}" / f"skill-{g * 100 + k:05d}"
            for g in range(100)
            for k in range(100)
        ]
    for i, folder in enumerate(folders):
        _write_skill(folder, folder.name, i)
    (base / "project" / ".git").mkdir(parents=True)
    (base / "codex-home").mkdir()
    return base, folders


CPU: dict[str, list[float]] = {}  # label -> CPU seconds (user + system) of each timed run


def _time(cmd: list[str], *, cwd: Path, env: dict[str, str], label: str = "") -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, encoding="utf-8", check=False
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    if label:
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        CPU.setdefault(label, []).append(cpu)
    return elapsed, proc.stdout


def _count_entries(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("- ") and "(file: " in line)


def codex_binary() -> Path | None:
    cache = Path(
        os.environ.get("CODEX_ORACLE_CACHE", Path.home() / ".cache" / "codex-oracle" / CODEX_VERSION)
    )
    hits = sorted(glob.glob(str(cache / "node_modules" / "@openai" / "*" / "vendor" / "*" / "bin" / "codex")))
    hits += sorted(
        glob.glob(str(cache / "node_modules" / "**" / "vendor" / "*" / "codex" / "codex"), recursive=True)
    )
    return Path(hits[0]) if hits else None


def skills_ref_cli() -> Path | None:
    venv = WORK / "skills-ref-venv"
    cli = venv / "bin" / "agentskills"
    if cli.exists():
        return cli
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "skills-ref"], check=True, capture_output=True
        )
    except subprocess.CalledProcessError:
        return None
    return cli if cli.exists() else None


def bench_tree(base: Path, folders: list[Path], runs: int) -> list[tuple[str, list[float], str]]:
    """Interleaved runs (Codex, ours cold, ours warm, ...) so that all see the same machine load."""
    home, project, codex_home, cache = base / "home", base / "project", base / "codex-home", base / "cache"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "XDG_CACHE_HOME": str(cache),
        "XDG_DATA_HOME": str(base / "data"),
        "XDG_CONFIG_HOME": str(base / "config"),
        "XDG_STATE_HOME": str(base / "state"),
        "LANG": "C.UTF-8",
    }
    cmd, label = [str(VENV_BIN / "skillshelf"), "catalog", "--no-builtin"], "skillshelf catalog --no-builtin"
    codex = codex_binary()
    ccmd = [str(codex), "debug", "prompt-input", "-c", "skills.bundled.enabled=false", "."] if codex else None
    times: dict[str, list[float]] = {"cold": [], "warm": [], "codex": []}
    notes: dict[str, str] = {}
    if ccmd:
        _time(ccmd, cwd=project, env=env)  # first run writes Codex's own files under CODEX_HOME
    for _ in range(runs):
        if ccmd:
            t, out = _time(ccmd, cwd=project, env=env, label=f"{base}:codex")
            times["codex"].append(t)
            notes["codex"] = f"{_count_entries(out.replace(chr(92) + 'n', chr(10)))} entries"
        shutil.rmtree(cache, ignore_errors=True)
        t, out = _time(cmd, cwd=project, env=env, label=f"{base}:cold")
        times["cold"].append(t)
        notes["cold"] = f"{_count_entries(out)} entries"
        _time(cmd, cwd=project, env=env)  # the first run after a cold one also stores the walk
        t, out = _time(cmd, cwd=project, env=env, label=f"{base}:warm")
        times["warm"].append(t)
        notes["warm"] = f"{_count_entries(out)} entries"
    rows: list[tuple[str, list[float], str]] = [
        (f"skillshelf cold [{label}]", times["cold"], notes["cold"]),
        (f"skillshelf warm [{label}]", times["warm"], notes["warm"]),
    ]
    if ccmd:
        rows.append(("codex debug prompt-input (native)", times["codex"], notes["codex"]))
    else:
        rows.append(
            (
                "codex debug prompt-input",
                [],
                "native binary not found (run ../shared/tools/codex-oracle once)",
            )
        )
    ref = skills_ref_cli()
    if ref is None:
        rows.append(("skills-ref to-prompt", [], "skills-ref could not be installed from PyPI"))
    else:
        # skills-ref stops at the first invalid file, so it gets only the folders it can read.
        strict = [str(f) for i, f in enumerate(folders) if i % 50 != 7]
        ref_times = [
            _time([str(ref), "to-prompt", *strict], cwd=project, env=env)[0] for _ in range(max(1, runs // 3))
        ]
        rows.append(("skills-ref to-prompt (valid folders as args)", ref_times, f"{len(strict)} skills"))
    return rows


def print_cpu(base: Path) -> None:
    """CPU time (user + system) of the same runs, median, beside Codex's."""
    codex = CPU.get(f"{base}:codex")
    codex_cpu = statistics.median(codex) if codex else None
    parts = []
    for which in ("cold", "warm", "codex"):
        cpu = CPU.get(f"{base}:{which}")
        if not cpu:
            continue
        med = statistics.median(cpu)
        ratio = f" ({med / codex_cpu:4.2f} x Codex)" if codex_cpu and which != "codex" else ""
        parts.append(f"{which} {med * 1000:.1f} ms{ratio}")
    print(f"  CPU time, median: {';  '.join(parts)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the generated trees")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    top = Path(tempfile.mkdtemp(prefix="scan-", dir=WORK))
    try:
        for kind, title in (
            ("flat", "1,900 flat skills"),
            ("grouped", "10,000 skills in 100 groups (one root)"),
        ):
            base, folders = build_tree(top / kind, kind)
            rows = bench_tree(base, folders, args.runs)
            print(f"\n## {title}  (whole process; median and best of {args.runs} interleaved runs)")
            codex_t = next(
                (statistics.median(t) for name, t, _ in rows if name.startswith("codex") and t), None
            )
            for name, t, note in rows:
                if not t:
                    print(f"  {name:<58}      n/a   {note}")
                    continue
                med, best = statistics.median(t), min(t)
                ratio = f"  {med / codex_t:4.2f} x Codex" if codex_t else ""
                print(f"  {name:<58} {med * 1000:7.1f} ms (best {best * 1000:6.1f}){ratio}   {note}")
            if codex_t:
                cold = statistics.median(rows[0][1])
                warm = statistics.median(rows[1][1])
                print(
                    f"  targets: cold <= Codex: {'OK' if cold <= codex_t else 'MISSED'};  warm <= 0.3 x "
                    f"Codex: {'OK' if warm <= 0.3 * codex_t else 'MISSED'}"
                )
            print_cpu(base)
    finally:
        if not args.keep:
            shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
