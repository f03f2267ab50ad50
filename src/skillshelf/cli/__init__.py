"""The command-line interface: thin click commands over the library API (``main.cli``)."""

__all__ = ["main"]
