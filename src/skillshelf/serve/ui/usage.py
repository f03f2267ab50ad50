"""The usage view: per-selector hit@k over the skills the model really loaded (what
``skillshelf stats --json`` prints), the most used skills and the ones never loaded."""

from __future__ import annotations

from skillshelf.env import Env
from skillshelf.serve.ui.state import Snapshot

__all__ = ["usage_view"]


def usage_view(env: Env, snapshot: Snapshot) -> dict[str, object]:
    """The usage view's data; skills are named from the snapshot where their path is known."""
    from skillshelf.select.usage import UsageStore

    store = UsageStore.in_state_dir(env.dirs.state)
    stats = store.stats()
    loaded: dict[str, int] = {}
    for event in store.events():
        path = event.get("path")
        if event["type"] == "load" and isinstance(path, str):
            loaded[path] = loaded.get(path, 0) + 1
    skills = snapshot.workspace.skills.loadable
    names = {str(s.path): s.name for s in skills}
    never = [{"name": s.name, "path": str(s.path)} for s in skills if str(s.path) not in loaded]
    return {
        "stats": stats.to_dict(),
        "most_used": [
            {"path": path, "name": names.get(path), "loads": count} for path, count in stats.top_skills
        ],
        "never_used": never,
        "loadable": len(skills),
    }
