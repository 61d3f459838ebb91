"""Runs a command and checks its exit status: status.py WANT COMMAND ARGS...

lit's shell has no `$?`; this passes when COMMAND exits with status WANT, printing what it
got otherwise. The command's output passes through."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    print(f"status.py: {' '.join(sys.argv[2:])}: exit status {got}, expected {want}", file=sys.stderr)
    sys.exit(1)
