"""The package version, in a module of its own so that any layer may read it (``skillshelf``
itself re-exports it as ``skillshelf.__version__``)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
