"""The reference agent loop: model -> tools -> guards -> model, until a checked final answer.

The system prompt is built by the same code as ``skillshelf context``: the stable parts
(instructions, catalog, pinned skills, memory) go into the system prompt; the per-turn parts
(skills suggested for and mentioned by the message) go in front of each user message, so the
prompt prefix stays cacheable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from skillshelf.agent.change_watch import ChangeWatch
from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.guards import (
    CheckOutcome,
    CompletionGuard,
    DoomLoopGuard,
    GuardSettings,
    SkillReattacher,
)
from skillshelf.agent.history import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolOutput,
    ToolResults,
    UserMessage,
    clip_to_budget,
    close_open_calls,
    compact_history,
    compaction_keeps,
    history_tokens,
    message_text,
    with_note,
)
from skillshelf.agent.providers import Provider
from skillshelf.agent.repeat_guard import RepeatGuard
from skillshelf.agent.skill_reads import SkillUses, agent_fix
from skillshelf.agent.tool_arguments import EXAMPLES, raw_of, raw_problem
from skillshelf.diagnostics import Diagnostic
from skillshelf.errors import UsageError
from skillshelf.select.usage import MENTION
from skillshelf.serve.schemas import ToolSpec
from skillshelf.serve.skill_tools import model_tools
from skillshelf.serve.tools import SkillTools

__all__ = ["Agent", "AgentEvent", "AgentResult", "AgentSettings", "Stop", "TurnContext", "require_task"]

SKILL_TOOLS: tuple[ToolSpec, ...] = model_tools()
COMPACTION_NOTE = "[The earlier part of this task was compacted to save context.]"
CLIPPED_NOTE = "[Oversized messages of this task were clipped to save context.]"
CANCELLED_OUTPUT = "error: the user cancelled this turn before the call finished"

Stop = Literal["answer", "max_turns", "cut_off", "empty", "refused", "repeating"]
"""Why :meth:`Agent.send` returned: an ``answer``, the turn limit, a reply that is none (see
:data:`~skillshelf.agent.history.ReplyEnding`), the repeat guard."""


def require_task(text: str) -> str:
    """``text`` when it holds something to do; a ``UsageError`` (AG006) when it is empty or
    only whitespace, which would cost a model call for nothing."""
    if not text.strip():
        raise UsageError(
            "the task is empty",
            hint='say what to do, e.g. skillshelf run "fix the failing test"',
            code="AG006",
        )
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSettings:
    max_turns: int = 40
    compact_at_tokens: int = 120_000
    keep_last_messages: int = 12
    reattach_tokens: int = 20_000  # for the skills put back after a compaction (<= compact_at_tokens / 4)
    guards: GuardSettings = GuardSettings()


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnContext:
    """What goes in front of a user message (``text``), and the skills it brings whole
    (``(name, fragment)``: the skills the message mentions), which a compaction puts back as
    it does the ones the model loaded."""

    text: str = ""
    skills: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()  # for the user, never the model: `$names` that load no skill


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEvent:
    """Something the harness did: a guard note, a send-back, a compaction, an implicit skill use."""

    kind: Literal[
        "doom_loop", "send_back", "compaction", "implicit_skill", "skill_loaded", "unwatched", "mention"
    ]
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentResult:
    """``final_text``: the last reply's text (a refusal's, or what came before a cut);
    ``stop_detail``: more on a stop that is no answer (the call that repeated)."""

    final_text: str
    stopped: Stop
    model_calls: int
    tool_calls: int
    events: tuple[AgentEvent, ...] = ()
    transcript: Path | None = None
    check: CheckOutcome = CheckOutcome(status="no_edits")  # were the checks passing after the last edit?
    stop_detail: str = ""


class TranscriptSink(Protocol):
    """What the loop writes to; :class:`skillshelf.memory.transcripts.skillshelf.TranscriptWriter` fits."""

    path: Path

    def message(self, role: str, text: str) -> None: ...
    def tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None: ...
    def tool_result(self, call_id: str, output: str, *, is_error: bool = False) -> None: ...


@dataclass
class _TurnState:
    model_calls: int = 0
    tool_calls: int = 0
    events: list[AgentEvent] = field(default_factory=list)
    repeats: RepeatGuard = field(default_factory=RepeatGuard)
    repeating: str | None = None  # why the repeat guard stops the task


class Agent:
    """One conversation with a model, over the skill tools and the folder tools."""

    def __init__(
        self,
        *,
        provider: Provider,
        system_prompt: str,
        skill_tools: SkillTools | None,
        folder_tools: FolderTools,
        settings: AgentSettings = AgentSettings(),
        transcript: TranscriptSink | None = None,
        turn_context: Callable[[str], TurnContext] | None = None,
        on_skill_used: Callable[[str, str], None] | None = None,
        on_answer: Callable[[str], None] | None = None,
        findings: Sequence[Diagnostic] = (),
    ) -> None:
        """``skill_tools=None`` offers no skill tools; the folder tools decide which of theirs
        are offered. ``on_answer`` is called with every final answer the guards accept.
        ``findings``: what setting the agent up found (config layers, instruction files, skill
        files), for the user, never the model."""
        self.provider = provider
        self.system_prompt = system_prompt
        self.skill_tools = skill_tools
        self.folder_tools = folder_tools
        self.settings = settings
        self.transcript = transcript
        self.turn_context = turn_context
        self.on_skill_used = on_skill_used
        self.on_answer = on_answer
        self.findings = tuple(findings)
        self.history: list[Message] = []
        self.tools: tuple[ToolSpec, ...] = (
            *folder_tools.specs(),
            *(SKILL_TOOLS if skill_tools is not None else ()),
        )
        self.reattacher = SkillReattacher(min(settings.reattach_tokens, settings.compact_at_tokens // 4))
        on_read = self.reattacher.on_loaded
        self._uses = SkillUses(skill_tools.skills, on_read=on_read) if skill_tools is not None else None
        # notices edits made through bash: every file while there are few enough, then git
        self._watch = ChangeWatch(folder_tools.root, environ=folder_tools.environ)

    def send(self, text: str) -> AgentResult:
        """One user message; runs until a final answer the guards accept, or ``max_turns``.

        Raises:
            UsageError: ``text`` is empty or only whitespace (no model call is made).
        """
        require_task(text)
        guards = self.settings.guards
        completion = CompletionGuard(
            self.folder_tools.root,
            check_command=guards.check_command,
            required=guards.require_checks,
            max_send_backs=guards.max_send_backs,
        )
        doom = DoomLoopGuard(
            max_edits_per_file=guards.max_edits_per_file,
            max_repeated_failures=guards.max_repeated_failures,
            check_command=completion.check_command,
        )
        state = _TurnState(repeats=RepeatGuard(guards.max_identical_calls))
        if self._uses is not None:
            self._uses.new_turn()
        context = self.turn_context(text) if self.turn_context else TurnContext()
        state.events += [AgentEvent(kind="mention", detail=note) for note in context.notes]
        for name, fragment in context.skills:
            self.reattacher.on_loaded(name, fragment)
            if self.on_skill_used:
                self.on_skill_used(name, MENTION)
        self._append_user(f"{context.text}\n\n{text}" if context.text else text, shown=text)
        for _ in range(self.settings.max_turns):
            self._maybe_compact(state)
            reply = self.provider.complete(system=self.system_prompt, history=self.history, tools=self.tools)
            state.model_calls += 1
            self.history.append(reply)
            self._log_assistant(reply)
            if reply.tool_calls:
                self._run_tools(reply.tool_calls, doom, completion, state)
                if state.repeating:
                    return self._stop("repeating", state, completion, self._last_text(), state.repeating)
                continue
            if reply.ending != "end":
                return self._stop(reply.ending, state, completion, reply.text)
            reason = completion.review_final()
            if reason is None:
                if self.on_answer:
                    self.on_answer(reply.text)
                return self._result(reply.text, "answer", state, completion.outcome())
            state.events.append(AgentEvent(kind="send_back", detail=reason))
            self._append_user(reason, role="developer")
        return self._result(self._last_text(), "max_turns", state, completion.outcome())

    def cancel_turn(self, why: str = "the turn was cancelled") -> None:
        """After a message whose turn was cut short (Ctrl-C, a failed model call): its tool calls
        left without a result get one, so the conversation can go on; the transcript says ``why``."""
        self.history = close_open_calls(self.history, CANCELLED_OUTPUT)
        if self.transcript:
            self.transcript.message("developer", f"[{why}]")

    # -- tools ------------------------------------------------------------------------------
    def _run_tools(
        self, calls: Sequence[ToolCall], doom: DoomLoopGuard, completion: CompletionGuard, state: _TurnState
    ) -> None:
        outputs: list[ToolOutput] = []
        notes: list[str] = []
        for call in calls:
            state.tool_calls += 1
            output, note = self._run_one(call, doom, completion, state)
            outputs.append(output)
            repeat = state.repeats.on_result(call.name, call.arguments, output.output)
            if repeat is not None and repeat.stop:
                state.repeating = state.repeating or repeat.text
            note = note or (
                repeat.text if repeat is not None and not repeat.stop else None
            )  # one note a call
            if note:
                notes.append(note)
                state.events.append(AgentEvent(kind="doom_loop", detail=note))
            if self.transcript:
                self.transcript.tool_result(call.id, output.output, is_error=output.is_error)
        self.history.append(ToolResults(outputs=tuple(outputs), notes=tuple(notes)))
        for note in notes:
            if self.transcript:
                self.transcript.message("developer", note)

    def _run_one(
        self, call: ToolCall, doom: DoomLoopGuard, completion: CompletionGuard, state: _TurnState
    ) -> tuple[ToolOutput, str | None]:
        if call.name in self.folder_tools.names():
            uses, root = self._uses, self.folder_tools.root
            before = self._watch.snapshot() if call.name == "bash" else None
            outcome = self.folder_tools.execute(call.name, call.arguments)
            note = None
            if outcome.edited is not None:
                completion.on_edit()
                state.repeats.on_change()
                note = doom.on_edit(outcome.edited)
            if outcome.command is not None and outcome.exit_code is not None and before is not None:
                changed = self._watch.changed_since(before)
                if changed is None and (detail := self._watch.first_unknown()):
                    state.events.append(AgentEvent(kind="unwatched", detail=detail))
                if changed is None or changed:
                    state.repeats.on_change()
                completion.on_command(outcome.command, outcome.exit_code, changed, output=outcome.text)
                note = doom.on_command(outcome.command, outcome.exit_code, output=outcome.text)
                if uses is not None:
                    self._implicit(uses.after_command(outcome.command, cwd=root), state)
            if uses is not None and outcome.read is not None and not outcome.is_error:
                self._implicit(uses.after_read(outcome.read, outcome.text, cwd=root), state)
            return ToolOutput(
                call_id=call.id, name=call.name, output=outcome.text, is_error=outcome.is_error
            ), note
        if self.skill_tools is not None and call.name in {spec.name for spec in SKILL_TOOLS}:
            raw = raw_of(call.arguments)  # arguments that were no JSON object
            if raw is not None:
                text = f"error: {raw_problem(raw, EXAMPLES.get(call.name, '{}'))}"
                return ToolOutput(call_id=call.id, name=call.name, output=text, is_error=True), None
            result = self.skill_tools.dispatch(call.name, dict(call.arguments))
            if result.is_error:
                result = agent_fix(result, {spec.name for spec in self.tools})
            if call.name == "load_skill" and not result.is_error:
                name = str(call.arguments.get("name", ""))
                self.reattacher.on_loaded(name, result.text)
                state.events.append(AgentEvent(kind="skill_loaded", detail=name))
                if self.on_skill_used:
                    self.on_skill_used(name, "load_skill")
            return ToolOutput(
                call_id=call.id, name=call.name, output=result.text, is_error=result.is_error
            ), None
        available = ", ".join(spec.name for spec in self.tools)
        text = f"error: there is no tool named {call.name!r}; the tools are: {available}"
        return ToolOutput(call_id=call.id, name=call.name, output=text, is_error=True), None

    def _implicit(self, name: str | None, state: _TurnState) -> None:
        """A skill used without ``load_skill`` (its SKILL.md read, a script of it run): an event
        and a usage record."""
        if name is not None:
            state.events.append(AgentEvent(kind="implicit_skill", detail=name))
            if self.on_skill_used:
                self.on_skill_used(name, "implicit")

    # -- history ----------------------------------------------------------------------------
    def _maybe_compact(self, state: _TurnState) -> None:
        """Past the threshold: drop the middle of the history; when what is kept is still over
        it, clip its largest messages to half of it. Nothing dropped or clipped: no event."""
        threshold = self.settings.compact_at_tokens
        if history_tokens(self.history) <= threshold:
            return
        keep_last = self.settings.keep_last_messages
        keeps = compaction_keeps(self.history, keep_last=keep_last)
        clipped = 0
        if history_tokens(keeps) > threshold:
            keeps, clipped = clip_to_budget(keeps, threshold // 2)
        if len(keeps) == len(self.history) and not clipped:
            return
        kept = "\n".join(message_text(m) for m in keeps)
        reattach = self.reattacher.reattach_note(kept)
        dropped = len(keeps) < len(self.history)
        note = COMPACTION_NOTE if dropped else CLIPPED_NOTE
        if reattach:
            note = f"{note}\n\n{reattach}"
        before = len(self.history)
        if dropped:
            self.history = compact_history(self.history, keep_last=keep_last, note=note, kept=keeps)
        else:
            self.history = with_note(keeps, note) if reattach else keeps
        reattached = ", ".join(self.reattacher.to_reattach(kept)) or "none"
        clip_detail = f"{clipped} clipped; " if clipped else ""
        state.events.append(
            AgentEvent(
                kind="compaction",
                detail=f"{before} -> {len(self.history)} messages; {clip_detail}re-attached: {reattached}",
            )
        )
        if self.transcript:
            self.transcript.message("developer", note)

    def _append_user(self, text: str, *, shown: str | None = None, role: str = "user") -> None:
        self.history.append(UserMessage(text=text))
        if self.transcript:
            self.transcript.message(role, shown if shown is not None else text)

    def _log_assistant(self, reply: AssistantMessage) -> None:
        if not self.transcript:
            return
        if reply.text:
            self.transcript.message("assistant", reply.text)
        for call in reply.tool_calls:
            self.transcript.tool_call(call.id, call.name, dict(call.arguments))

    def _last_text(self) -> str:
        for message in reversed(self.history):
            if isinstance(message, AssistantMessage) and message.text:
                return message.text
        return ""

    def _stop(
        self, stopped: Stop, state: _TurnState, completion: CompletionGuard, text: str, detail: str = ""
    ) -> AgentResult:
        """A stop before a final answer, noted in the transcript."""
        if self.transcript:
            self.transcript.message("developer", f"[stopped: {stopped}{': ' + detail if detail else ''}]")
        return self._result(text, stopped, state, completion.outcome(), detail)

    def _result(
        self, text: str, stopped: Stop, state: _TurnState, check: CheckOutcome, detail: str = ""
    ) -> AgentResult:
        return AgentResult(
            stop_detail=detail,
            final_text=text,
            stopped=stopped,
            model_calls=state.model_calls,
            tool_calls=state.tool_calls,
            events=tuple(state.events),
            transcript=getattr(self.transcript, "path", None),
            check=check,
        )
