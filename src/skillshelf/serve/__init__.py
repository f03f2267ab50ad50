"""skillshelf.serve: the skills served to models and clients (nothing is imported here).

- :mod:`.tools`: :class:`~skillshelf.serve.tools.SkillTools`, the dispatcher for the OpenAI and
  Anthropic APIs (definitions, system prompt, ``dispatch``);
- :mod:`.skill_tools`: the registry of skill tools every surface offers (add a tool here);
- :mod:`.schemas`: ``ToolSpec``/``Tool``/``ToolResult`` and the API tool formats;
- :mod:`.mcp_server`, :mod:`.http`: the MCP server (stdio, streamable HTTP);
- :mod:`.library`, :mod:`.loading`, :mod:`.watch`: the served skills, opened from a workspace
  and kept in step with the disk;
- :mod:`.files`: reads confined to a skill's folder.
"""

__all__ = ["files", "http", "library", "loading", "mcp_server", "schemas", "skill_tools", "tools", "watch"]
