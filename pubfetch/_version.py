"""The package version, in a module of its own so that any layer can name it without importing the package root
(whose facade would otherwise drag the layers above into the one asking). pyproject.toml reads it from here too."""

__version__ = "0.1.0"
