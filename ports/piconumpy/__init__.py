"""The PicoNumPy port (README.md)."""
