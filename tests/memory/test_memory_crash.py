"""Workers die (SIGKILL) mid Phase 1 and mid Phase 2; the next run on this machine sees the holder
is gone and finishes at once: no input lost, no output written twice. A worker that stalls
(alive, not heartbeating) loses its lease when it expires. And 8 workers on one PostgreSQL
database share 200 sessions, each processed exactly once. A run stopped with Ctrl-C leaves at
once, without waiting for its calls in flight, and gives its sessions back untouched."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.memory.layout import scope_dir
from skillshelf.memory.service import RunOptions, RunReport, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import CONSOLIDATE, STAGE1, open_store

WORKER = """
import json, sys
from pathlib import Path
from skillshelf.env import Env
from skillshelf.memory.layout import scope_dir
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings

cfg = json.loads(sys.argv[1])
env = Env.for_test(cwd=Path(cfg["cwd"]), home=Path(cfg["home"]))
settings = MemorySettings().with_overrides(**cfg["settings"])
claimed = 0
while True:
    report = run_memory(env, settings, RunOptions(sessions=(Path(cfg["sessions"]),), db=cfg["db"],
                                                  phase=cfg["phase"], worker_id=cfg["worker"]))
    claimed += report.claimed
    if not cfg["loop"] or report.claimed == 0:
        break
print(json.dumps({"claimed": claimed}))
"""

LEASE = 3.0
PHASE1 = "Session to analyse"
PHASE2 = "You maintain a folder of memories"


def _sessions(folder: Path, project: Path, n: int) -> Path:
    old = time.time() - 10 * 3600
    for i in range(n):
        write_skillshelf_transcript(
            folder / f"{i:03d}.jsonl",
            session_id=f"sess-{i:03d}",
            cwd=project,
            task=f"task number {i}: use make check",
            mtime=old,
        )
    return folder


def _settings(model: ScriptedModel, **kw: Any) -> dict[str, Any]:
    return {
        "extract_model": "openai:small",
        "consolidation_model": "openai:big",
        "base_url": model.url + "/v1",
        "lease_seconds": LEASE,
        "heartbeat_seconds": 0.25,
        "concurrency": 3,
        **kw,
    }


def _spawn(tmp: Path, cfg: dict[str, Any]) -> subprocess.Popen[str]:
    script = tmp / f"worker-{cfg['worker']}.py"
    script.write_text(WORKER, encoding="utf-8")  # one file per worker: no process reads a half-written one
    return subprocess.Popen(
        [sys.executable, str(script), json.dumps(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def _run(env: Env, cfg: dict[str, Any], phase: str, store: Any = None) -> RunReport:
    settings = MemorySettings().with_overrides(**cfg["settings"])
    options = RunOptions(sessions=(Path(cfg["sessions"]),), db=cfg["db"], phase=phase)  # type: ignore[arg-type]
    return run_memory(env, settings, options, store=store)


@pytest.fixture
def setup(
    isolated_home: Any, tmp_path: Path, store_url: str, scripted_model: ScriptedModel
) -> dict[str, Any]:
    project = isolated_home.home / "proj"
    project.mkdir()
    sessions = _sessions(tmp_path / "transcripts", project, 6)
    return {
        "cwd": str(project),
        "home": str(isolated_home.home),
        "sessions": str(sessions),
        "db": store_url,
        "settings": _settings(scripted_model),
        "loop": False,
        "worker": "killed",
    }


def _request_numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\(request (\d+)\)", text)]


def test_phase1_worker_killed_mid_run_is_finished_at_once_by_the_next(
    setup: dict[str, Any], tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    slow = {"on": True}
    scripted_model.delay = lambda body: 60.0 if slow["on"] else 0.0
    worker = _spawn(tmp_path, {**setup, "phase": "1"})
    try:
        scripted_model.wait_for(PHASE1, 3)
        time.sleep(LEASE + 0.5)  # heartbeats keep every lease the live worker holds
        env = Env.for_test(cwd=Path(setup["cwd"]), home=Path(setup["home"]))
        assert _run(env, setup, "1").claimed == 0
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.communicate()
    slow["on"] = False
    report = _run(env, setup, "1")  # at once: the holder is gone, its leases are free
    assert report.claimed == 6 and report.outcomes == {"extracted": 6}
    assert [r["state"] for r in report.recovered] == ["stuck"] * 6
    with open_store(setup["db"]) as store:
        outputs = store.outputs()
        jobs = [store.job(STAGE1, o.session_id) for o in outputs]
    assert sorted(o.session_id for o in outputs) == [f"sess-{i:03d}" for i in range(6)]
    numbers = [n for o in outputs for n in _request_numbers(o.raw_memory)]
    assert len(numbers) == 6 and len(set(numbers)) == 6 and min(numbers) > 3  # only the survivor's replies
    assert all(j and j["status"] == "done" and j["worker_id"] != "killed" for j in jobs)
    assert scripted_model.count(PHASE1) == 9


def test_phase2_worker_killed_mid_consolidation_is_finished_at_once_by_the_next(
    setup: dict[str, Any], tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    env = Env.for_test(cwd=Path(setup["cwd"]), home=Path(setup["home"]))
    assert _run(env, setup, "1").outcomes == {"extracted": 6}
    slow = {"on": True}
    scripted_model.delay = lambda body: 60.0 if slow["on"] and PHASE2 in json.dumps(body) else 0.0
    worker = _spawn(tmp_path, {**setup, "phase": "2"})
    try:
        scripted_model.wait_for(PHASE2, 1)
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.communicate()
    slow["on"] = False
    with open_store(setup["db"]) as store:
        [scope] = [c["scope"] for c in store.status(now_ms=0)["consolidation"]]
    folder = scope_dir(env.dirs.data, scope)
    assert not (folder / "MEMORY.md").exists()  # the dead worker wrote nothing
    done = _run(env, setup, "2")
    assert [r["kind"] for r in done.recovered] == [CONSOLIDATE]
    assert [(c.status, c.selected) for c in done.consolidation] == [("consolidated", 6)]
    memory_md = (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert _request_numbers(memory_md) == [scripted_model.count(PHASE1) + 2]
    assert len(list((folder / "rollout_summaries").glob("*.md"))) == 6
    assert not [p for p in folder.rglob("*") if p.name.startswith(".tmp-")]
    with open_store(setup["db"]) as store:
        job = store.job(CONSOLIDATE, done.consolidation[0].scope)
    assert job and job["status"] == "done"
    assert _run(env, setup, "2").consolidation == []  # not dirty any more


def test_a_worker_that_lost_its_lease_cannot_overwrite_the_new_owner(
    setup: dict[str, Any], scripted_model: ScriptedModel
) -> None:
    env = Env.for_test(cwd=Path(setup["cwd"]), home=Path(setup["home"]))
    slow = {"on": True}
    scripted_model.delay = lambda body: 2 * LEASE if slow["on"] else 0.0
    stalled = {**setup, "settings": {**setup["settings"], "max_rollouts_per_run": 1}}
    import threading

    mute = open_store(setup["db"])
    mute.heartbeat = lambda *args, **kwargs: True  # type: ignore[method-assign]  # alive, never beating
    late: dict[str, RunReport] = {}
    thread = threading.Thread(target=lambda: late.update(r=_run(env, stalled, "1", store=mute)))
    thread.start()
    scripted_model.wait_for(PHASE1, 1)
    slow["on"] = False
    time.sleep(LEASE + 0.3)
    fresh = _run(env, setup, "1")
    thread.join()
    mute.close()
    assert fresh.outcomes == {"extracted": 6}
    assert late["r"].outcomes == {"lost_lease": 1}
    with open_store(setup["db"]) as store:
        assert len(store.outputs()) == 6
        assert all(1 not in _request_numbers(o.raw_memory) for o in store.outputs())


def test_eight_workers_on_postgres_process_200_sessions_exactly_once(
    isolated_home: Any, tmp_path: Path, pg_url: str, scripted_model: ScriptedModel
) -> None:
    project = isolated_home.home / "proj"
    project.mkdir()
    sessions = _sessions(tmp_path / "transcripts", project, 200)
    scripted_model.delay = lambda body: 0.01
    cfg = {
        "cwd": str(project),
        "home": str(isolated_home.home),
        "sessions": str(sessions),
        "db": pg_url,
        "settings": _settings(
            scripted_model,
            max_rollouts_per_run=25,
            max_running_jobs=1000,
            concurrency=8,
            lease_seconds=120.0,
            heartbeat_seconds=30.0,
        ),
        "loop": True,
        "phase": "1",
    }
    env = Env.for_test(cwd=project, home=isolated_home.home)
    assert _run(env, cfg, "2").registered == 200  # register once so workers only claim
    workers = [_spawn(tmp_path, {**cfg, "worker": f"w{i}"}) for i in range(8)]
    results = []
    for worker in workers:
        out, err = worker.communicate(timeout=240)
        assert worker.returncode == 0 and out.strip(), (out, err)
        results.append(json.loads(out.strip().splitlines()[-1])["claimed"])
    assert sum(results) == 200
    prompts = [json.dumps(r["body"]) for r in scripted_model.requests]
    seen = [m for p in prompts for m in re.findall(r"transcripts/(\d{3})\.jsonl", p)]
    assert len(seen) == 200 and len(set(seen)) == 200
    with open_store(pg_url) as store:
        outputs = store.outputs()
        status = store.status(now_ms=int(time.time() * 1000))
    assert len(outputs) == 200
    assert [(j["kind"], j["status"], j["count"]) for j in status["jobs"]] == [
        ("memory_consolidate", "pending", 1),
        ("memory_stage1", "done", 200),
    ]


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_or_sigterm_stops_a_run_at_once_and_gives_its_sessions_back(
    project: Path,
    isolated_home: Any,
    tmp_path: Path,
    scripted_model: ScriptedModel,
    stop: signal.Signals,
    code: int,
) -> None:
    scripted_model.delay = lambda body: 120.0  # every call hangs far past the test
    sessions = _sessions(tmp_path / "transcripts", project, 6)
    isolated_home.write_user_config("[memory]\nconcurrency = 2\n")
    args = f"memory run --phase 1 --model openai:small --base-url {scripted_model.url}/v1".split()
    command = [sys.executable, "-m", "skillshelf.cli.main", *args, "--sessions", str(sessions)]
    run = subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        scripted_model.wait_for(PHASE1, 2)
        run.send_signal(stop)
        run.communicate(timeout=30)  # not 120 s: the calls in flight are not waited for
    finally:
        run.kill()
    assert run.returncode == code
    env = Env.from_os()
    with open_store(data_dir=env.dirs.data) as store:
        jobs = [store.job(STAGE1, f"sess-{i:03d}") for i in range(6)]
        retries = store.retries  # no try was used up
    assert all(
        j and (j["status"], j["ownership_token"], j["retry_remaining"]) == ("pending", None, retries)
        for j in jobs
    ), jobs
    scripted_model.delay = lambda body: 0.0
    settings = MemorySettings().with_overrides(
        extract_model="openai:small", base_url=scripted_model.url + "/v1"
    )
    report = run_memory(env, settings, RunOptions(sessions=(sessions,), phase="1"))
    assert report.claimed == 6 and report.outcomes == {"extracted": 6} and not report.recovered
