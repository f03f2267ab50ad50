"""One scope's Phase 2 run: its consolidation lease, the selection of Phase 1 outputs, the
consolidator's model call, the checks before anything is written (the folder not another
database's, :mod:`.origin`; the lease still held, no memory file edited meanwhile,
``MEMORY.md`` kept whole where the prompt showed it shortened), and the write."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path

from skillshelf.errors import OtherDatabaseError, SkillshelfError
from skillshelf.memory import outputs, phase2
from skillshelf.memory.consolidator import (
    BUDGET_SPENT,
    ConsolidationOutcome,
    Consolidator,
    DirectConsolidator,
)
from skillshelf.memory.models import CallBudget, JsonModel
from skillshelf.memory.origin import DatabaseIdentity, check_folder, store_identity, writing
from skillshelf.memory.redact import redact_secrets
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.runner import Clock, Heartbeat, clock_ms
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import CONSOLIDATE, ClaimOutcome, LeaseHolder, OutputRow, Selection, Store

__all__ = ["Phase2Outcome", "run_phase2_scope"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Phase2Outcome:
    """What happened to one scope's consolidation."""

    scope: str
    # consolidated | cleared | no_input (nothing selected, the files kept until a later run
    # confirms it) | skipped_not_dirty | skipped_running | budget | failed | lost_lease
    # | edited_meanwhile (a memory file changed during the model call: nothing written)
    # | other_database (the folder holds another database's consolidation: nothing written)
    status: str
    folder: Path
    selected: int = 0
    added: int = 0
    retained: int = 0
    removed: int = 0
    files: tuple[str, ...] = ()
    error: str | None = None
    consolidator: str | None = None
    model_calls: int = 0
    refused: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # files the consolidation would have changed, left as they were, and why
    set_aside: str | None = None  # where the folder another database consolidated was moved (--force)

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)}
        tuples = {k: list(v) for k, v in data.items() if isinstance(v, tuple)}
        return {**data, "folder": str(self.folder), **tuples}


def run_phase2_scope(
    scope: str,
    folder: Path,
    *,
    store: Store,
    model_factory: Callable[[], JsonModel],
    settings: MemorySettings,
    clock: Clock,
    worker_id: str,
    budget: CallBudget,
    consolidator_factory: Callable[[], Consolidator] | None = None,
    holder: LeaseHolder | None = None,
    known: KnownSecrets = NO_SECRETS,
    database: DatabaseIdentity | None = None,
    take_over: bool = False,
) -> Phase2Outcome:
    """Claim the scope's consolidation lock and, if dirty, rebuild its memory folder.

    ``consolidator_factory`` makes what writes the files (default: one direct call to the model
    from ``model_factory``). ``known``: secrets this run took out of transcripts; the prompt and
    the files written are scrubbed of them. ``database``: the store's identity (default: read
    from it); a folder that records another database is refused (status ``other_database``, the
    job given back untouched), or with ``take_over`` set aside first (:mod:`.origin`)."""
    make = consolidator_factory or (lambda: DirectConsolidator(model_factory()))
    lease_ms = int(settings.lease_seconds * 1000)
    claim = store.claim_phase2(
        scope, worker_id=worker_id, now_ms=clock_ms(clock), lease_ms=lease_ms, holder=holder
    )
    if claim.outcome is not ClaimOutcome.CLAIMED or claim.token is None:
        return Phase2Outcome(scope=scope, status=claim.outcome.value, folder=folder)
    token = claim.token
    aside: Path | None = None  # where take_over moved the folder: said whatever happens next
    with Heartbeat(store, CONSOLIDATE, scope, token, settings=settings, clock=clock) as beat:
        try:
            ours = database or store_identity(store, now_ms=clock_ms(clock))
            aside = check_folder(folder, ours, take_over=take_over)
            done = _consolidate(
                scope,
                folder,
                token,
                claim.watermark,
                store=store,
                make=make,
                settings=settings,
                clock=clock,
                budget=budget,
                beat=beat,
                known=known,
                database=ours,
            )
        except OtherDatabaseError as exc:  # nothing written: the job waits, no retry used
            store.release(CONSOLIDATE, scope, token)
            done = Phase2Outcome(scope=scope, status="other_database", folder=folder, error=exc.one_line())
        except SkillshelfError as exc:
            store.mark_failed(
                CONSOLIDATE,
                scope,
                token,
                reason=redact_secrets(f"{exc.code}: {exc.message}"),
                now_ms=clock_ms(clock),
                retry_base_ms=int(settings.retry_delay_seconds * 1000),
            )
            done = Phase2Outcome(
                scope=scope, status="failed", folder=folder, error=redact_secrets(exc.one_line())
            )
        except OSError as exc:
            store.mark_failed(
                CONSOLIDATE,
                scope,
                token,
                reason=f"ME040: {exc}",
                now_ms=clock_ms(clock),
                retry_base_ms=int(settings.retry_delay_seconds * 1000),
            )
            done = Phase2Outcome(scope=scope, status="failed", folder=folder, error=f"ME040: {exc}")
    return replace(done, set_aside=str(aside)) if aside else done


def _consolidate(
    scope: str,
    folder: Path,
    token: str,
    watermark: int,
    *,
    store: Store,
    make: Callable[[], Consolidator],
    settings: MemorySettings,
    clock: Clock,
    budget: CallBudget,
    beat: Heartbeat,
    known: KnownSecrets,
    database: DatabaseIdentity,
) -> Phase2Outcome:
    selection = store.selection(
        scope,
        limit=settings.max_raw_memories,
        max_unused_ms=int(settings.max_unused_days * 86_400_000),
        now_ms=clock_ms(clock),
    )

    def outcome(status: str, files: tuple[str, ...] = ()) -> Phase2Outcome:
        return Phase2Outcome(
            scope=scope,
            status=status,
            folder=folder,
            selected=len(selection.selected),
            added=selection.added_count,
            retained=len(selection.retained_ids),
            removed=len(selection.removed),
            files=files,
        )

    new_watermark = max([watermark, *(r.source_updated_at_ms for r in selection.selected)])
    if not selection.selected:
        status = _nothing_selected(
            scope, folder, token, selection, new_watermark, store, beat, clock, database
        )
        return replace(outcome(status), kept=(_KEPT_NOTE,) if status == "no_input" else ())
    if budget.remaining == 0:
        store.release(CONSOLIDATE, scope, token)
        return outcome("budget")
    with writing(folder, database):
        phase2.sync_artifacts(folder, [*selection.selected, *selection.removed])
    consolidator = make()
    before = outputs.snapshot(folder)
    shown_whole = phase2.memory_shown_whole(folder, token_limit=settings.stage1_token_limit)
    prompt, init = phase2.build_consolidation_prompt(
        folder, selection, token_limit=settings.stage1_token_limit
    )
    prompt = known.scrub(prompt)
    try:  # every model call the consolidator makes takes one unit of the run's budget
        done = consolidator.consolidate(
            prompt, folder, init=init, effort=settings.consolidation_effort, budget=budget, known=known
        )
    except SkillshelfError as exc:
        if exc.code != BUDGET_SPENT:
            raise
        store.release(CONSOLIDATE, scope, token)
        return replace(outcome("budget"), error=f"{exc.code}: {exc.message}")
    if not beat.beat():
        return outcome("lost_lease")
    check_folder(folder, database)  # another database's run may have taken the folder over meanwhile
    edited = outputs.changed_since(folder, before)
    if edited:
        store.release(CONSOLIDATE, scope, token)
        return replace(outcome("edited_meanwhile"), kept=(outputs.edited_note(edited),))
    consolidation, kept = _to_write(done, shown_whole=shown_whole, known=known)
    changed = _write(folder, database, consolidation, selection)
    ok = store.mark_phase2_succeeded(
        scope, token, completed_watermark=new_watermark, selected=selection.selected, now_ms=clock_ms(clock)
    )
    return replace(
        outcome("consolidated" if ok else "lost_lease", tuple(changed)),
        consolidator=done.consolidator,
        model_calls=done.model_calls,
        refused=done.refused,
        kept=kept,
    )


def _write(
    folder: Path, database: DatabaseIdentity, consolidation: phase2.Consolidation, selection: Selection
) -> list[str]:
    """Write a consolidation into ``folder``; the files changed. The folder's database is
    checked again: another database's run may have adopted it during the model call."""
    with writing(folder, database):
        changed = phase2.apply_consolidation(folder, consolidation)
        phase2.remove_rollout_summaries(folder, selection.removed)
        phase2.write_raw_memories(folder, selection.selected)
    return changed


_KEPT_NOTE = (
    "nothing selected: MEMORY.md, memory_summary.md and skills/ kept; a later run that selects "
    "nothing again removes them"
)


def _nothing_selected(
    scope: str,
    folder: Path,
    token: str,
    selection: Selection,
    watermark: int,
    store: Store,
    beat: Heartbeat,
    clock: Clock,
    database: DatabaseIdentity,
) -> str:
    """Finish a consolidation that selected nothing: ``no_input`` (files kept, see
    :func:`_still_held`), ``cleared``, or ``lost_lease`` (nothing removed)."""
    if not beat.beat():
        return "lost_lease"
    held = _still_held(selection)
    if held:
        with writing(folder, database):
            phase2.sync_artifacts(folder, held)
    if not store.mark_phase2_succeeded(
        scope, token, completed_watermark=watermark, selected=(), now_ms=clock_ms(clock)
    ):
        return "lost_lease"
    if not held:  # the flags were cleared by an earlier run (or the text forgotten): confirmed
        with writing(folder, database):
            phase2.sync_artifacts(folder, [])
    return "no_input" if held else "cleared"


def _still_held(selection: Selection) -> list[OutputRow]:
    """The last consolidation's inputs that still have text when nothing is selected now.

    Like Codex, a run that selects nothing keeps the consolidated files and the previous
    inputs' summaries and raw memories, and clears the selection flags; only a later run that
    finds both the selection and the previous selection empty removes ``MEMORY.md``,
    ``memory_summary.md`` and ``skills/``. One run that selects nothing (a clock or setting
    that ages every memory out for a moment) so never wipes a scope's memory. A forgotten
    session's text is already gone from its row and is not kept."""
    return [r for r in selection.removed if r.raw_memory.strip() or r.rollout_summary.strip()]


def _to_write(
    done: ConsolidationOutcome, *, shown_whole: bool, known: KnownSecrets
) -> tuple[phase2.Consolidation, tuple[str, ...]]:
    """What of a consolidator's result is written, and what was kept as it was: ``MEMORY.md``
    whole where the prompt showed it shortened, every file scrubbed of the secrets redaction
    took out of the input."""
    direct = done.consolidator == "direct"
    consolidation, kept = phase2.keep_memory_whole(done.consolidation, shown_whole=shown_whole, direct=direct)
    if known:
        files = {path: known.scrub(text) for path, text in consolidation.files.items()}
        consolidation = replace(consolidation, files=files)
    return consolidation, kept
