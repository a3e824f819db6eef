"""The UltraJSON port (README.md)."""
