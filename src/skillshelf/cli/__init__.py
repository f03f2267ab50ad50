"""The command-line interface: thin click commands over the library API."""
