# The package's version: the repository's VERSION file holds the same one
# (version_test.go at the root fails when they drift); pyproject.toml reads it
# from here.
__version__ = "0.1.0"
