"""The kiwisolver port (README.md)."""
