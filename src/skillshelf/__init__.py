"""skillshelf: the knowledge layer for coding agents.

The public API, imported lazily so ``import skillshelf`` stays fast::

    import skillshelf

    env = skillshelf.Env.from_os()
    workspace = skillshelf.Workspace.open(env)  # config, trust, skills with their modes, budgets
    catalog = skillshelf.render_catalog(workspace.skills.catalog, workspace.budget())
    print(catalog.text)
    tools = skillshelf.workspace_tools(workspace)  # the skill tools for a model's API
    print(skillshelf.build_context(env, "write a changelog entry").text)

``discover_skills`` returns the raw skills of the roots (every one trusted, no config applied):
for tooling over folders you vouch for, not for a model.

Everything not in ``__all__`` is internal and may change.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from skillshelf.version import __version__ as __version__

_EXPORTS: dict[str, str] = {
    "BudgetChoice": "skillshelf.skills.catalog.window",
    "CatalogReport": "skillshelf.skills.catalog",
    "CharBudget": "skillshelf.skills.catalog",
    "Config": "skillshelf.config",
    "ContextOptions": "skillshelf.context",
    "ContextPart": "skillshelf.context",
    "ContextResult": "skillshelf.context",
    "Diagnostic": "skillshelf.diagnostics",
    "Discovery": "skillshelf.skills.model",
    "DiscoveryOptions": "skillshelf.skills.discover",
    "Env": "skillshelf.env",
    "ImplicitUseDetector": "skillshelf.skills.implicit",
    "Instructions": "skillshelf.instructions",
    "LoadedSkill": "skillshelf.skills.load",
    "Mentions": "skillshelf.skills.mentions",
    "ModedSkills": "skillshelf.config",
    "ParsedSkill": "skillshelf.skills.parse",
    "RankedSkill": "skillshelf.select",
    "Redaction": "skillshelf.memory.redact",
    "RenderedCatalog": "skillshelf.skills.catalog",
    "ScanLimits": "skillshelf.skills.discover",
    "Severity": "skillshelf.diagnostics",
    "Skill": "skillshelf.skills.model",
    "SkillFile": "skillshelf.skills.bundled",
    "SkillIndex": "skillshelf.select.index",
    "SkillMode": "skillshelf.config",
    "SkillPage": "skillshelf.serve.tools",
    "SkillRoot": "skillshelf.skills.model",
    "Scope": "skillshelf.skills.model",
    "RootOrigin": "skillshelf.skills.model",
    "SkillTools": "skillshelf.serve.tools",
    "TokenBudget": "skillshelf.skills.catalog",
    "ToolResult": "skillshelf.serve.tools",
    "ToolSpec": "skillshelf.serve.schemas",
    "UserDirs": "skillshelf.dirs",
    "ValidationReport": "skillshelf.skills.validate",
    "Workspace": "skillshelf.workspace",
    "WorkspaceOptions": "skillshelf.workspace",
    "apply_skill_modes": "skillshelf.config",
    "build_context": "skillshelf.context",
    "default_budget": "skillshelf.skills.catalog",
    "discover_in": "skillshelf.skills.discover",
    "discover_skills": "skillshelf.skills.discover",
    "errors": "skillshelf.errors",
    "extract_mentions": "skillshelf.skills.mentions",
    "load_config": "skillshelf.config",
    "load_instructions": "skillshelf.instructions",
    "load_skill": "skillshelf.skills.load",
    "parse_skill_text": "skillshelf.skills.parse",
    "rank": "skillshelf.select",
    "redact": "skillshelf.memory.redact",
    "render_catalog": "skillshelf.skills.catalog",
    "select_mentioned": "skillshelf.skills.mentions",
    "skill_fragment": "skillshelf.skills.load",
    "validate_paths": "skillshelf.skills.validate",
    "workspace_tools": "skillshelf.serve.loading",
}

__all__ = sorted(_EXPORTS, key=str.lower)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'skillshelf' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if name == "errors" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from skillshelf import errors as errors
    from skillshelf.config import Config as Config
    from skillshelf.config import ModedSkills as ModedSkills
    from skillshelf.config import SkillMode as SkillMode
    from skillshelf.config import apply_skill_modes as apply_skill_modes
    from skillshelf.config import load_config as load_config
    from skillshelf.context import ContextOptions as ContextOptions
    from skillshelf.context import ContextPart as ContextPart
    from skillshelf.context import ContextResult as ContextResult
    from skillshelf.context import build_context as build_context
    from skillshelf.diagnostics import Diagnostic as Diagnostic
    from skillshelf.diagnostics import Severity as Severity
    from skillshelf.dirs import UserDirs as UserDirs
    from skillshelf.env import Env as Env
    from skillshelf.instructions import Instructions as Instructions
    from skillshelf.instructions import load_instructions as load_instructions
    from skillshelf.memory.redact import Redaction as Redaction
    from skillshelf.memory.redact import redact as redact
    from skillshelf.select import RankedSkill as RankedSkill
    from skillshelf.select import rank as rank
    from skillshelf.select.index import SkillIndex as SkillIndex
    from skillshelf.serve.loading import workspace_tools as workspace_tools
    from skillshelf.serve.schemas import ToolSpec as ToolSpec
    from skillshelf.serve.tools import SkillPage as SkillPage
    from skillshelf.serve.tools import SkillTools as SkillTools
    from skillshelf.serve.tools import ToolResult as ToolResult
    from skillshelf.skills.bundled import SkillFile as SkillFile
    from skillshelf.skills.catalog import CatalogReport as CatalogReport
    from skillshelf.skills.catalog import CharBudget as CharBudget
    from skillshelf.skills.catalog import RenderedCatalog as RenderedCatalog
    from skillshelf.skills.catalog import TokenBudget as TokenBudget
    from skillshelf.skills.catalog import default_budget as default_budget
    from skillshelf.skills.catalog import render_catalog as render_catalog
    from skillshelf.skills.catalog.window import BudgetChoice as BudgetChoice
    from skillshelf.skills.discover import DiscoveryOptions as DiscoveryOptions
    from skillshelf.skills.discover import ScanLimits as ScanLimits
    from skillshelf.skills.discover import discover_in as discover_in
    from skillshelf.skills.discover import discover_skills as discover_skills
    from skillshelf.skills.implicit import ImplicitUseDetector as ImplicitUseDetector
    from skillshelf.skills.load import LoadedSkill as LoadedSkill
    from skillshelf.skills.load import load_skill as load_skill
    from skillshelf.skills.load import skill_fragment as skill_fragment
    from skillshelf.skills.mentions import Mentions as Mentions
    from skillshelf.skills.mentions import extract_mentions as extract_mentions
    from skillshelf.skills.mentions import select_mentioned as select_mentioned
    from skillshelf.skills.model import Discovery as Discovery
    from skillshelf.skills.model import RootOrigin as RootOrigin
    from skillshelf.skills.model import Scope as Scope
    from skillshelf.skills.model import Skill as Skill
    from skillshelf.skills.model import SkillRoot as SkillRoot
    from skillshelf.skills.parse import ParsedSkill as ParsedSkill
    from skillshelf.skills.parse import parse_skill_text as parse_skill_text
    from skillshelf.skills.validate import ValidationReport as ValidationReport
    from skillshelf.skills.validate import validate_paths as validate_paths
    from skillshelf.workspace import Workspace as Workspace
    from skillshelf.workspace import WorkspaceOptions as WorkspaceOptions
