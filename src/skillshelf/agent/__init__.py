"""The reference agent: a small tool loop over the OpenAI or Anthropic API with harness guards.

- :mod:`.history`: the conversation as provider-neutral values, and compaction;
- :mod:`.providers`: the OpenAI (any compatible base URL) and Anthropic adapters;
- :mod:`.folder_tools`: bash, read_file, write_file, edit_file confined to the working folder;
- :mod:`.guards`: doom-loop detection, the pre-completion check, skill re-attachment;
- :mod:`.loop`: :class:`~skillshelf.agent.loop.Agent`, which ties them together.
"""

__all__ = ["consolidate", "folder_tools", "guards", "history", "loop", "providers", "session"]
