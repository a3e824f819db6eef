"""Copy a known volume with memcpy, so that the harness can check that
Scalene's copy-volume measurement works on this machine.

    python copy_probe.py MEGABYTES

bytes(bytearray) copies the buffer with one memcpy (the bytearray itself is
allocated zeroed, without copying).
"""

import sys

CHUNK_MB = 32


def main(megabytes):
    buffer = bytearray(CHUNK_MB * 1024 * 1024)
    for _ in range(max(1, megabytes // CHUNK_MB)):
        copy = bytes(buffer)
        del copy


if __name__ == "__main__":
    main(int(sys.argv[1]))
