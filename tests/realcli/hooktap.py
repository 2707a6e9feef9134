"""A pass-through around an installed hook command that writes down every stop it sees.

``python hooktap.py LOG -- COMMAND`` runs COMMAND with ``/bin/sh -c`` exactly as the agent CLI
would (same stdin, environment, working folder), copies its stdout, stderr and exit code
through unchanged, and appends one JSON line to LOG: the hook input, the output, the exit
code and the wall time. The real-CLI tests put it in front of the command that ``earnest hook
install`` wrote, so they can assert the hook's decision at every stop the real CLI made.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] != "--":
        print("usage: hooktap.py LOG -- COMMAND", file=sys.stderr)
        return 0  # never block a stop because the tap was misused
    log, command = argv[0], argv[2]
    data = sys.stdin.buffer.read()
    start = time.monotonic()
    done = subprocess.run(["/bin/sh", "-c", command], input=data, capture_output=True)
    elapsed = time.monotonic() - start
    try:
        payload = json.loads(data or b"null")
    except ValueError:
        payload = {"unparsed": data.decode("utf-8", "replace")}
    record = {
        "input": payload,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
        "rc": done.returncode,
        "ms": round(elapsed * 1000, 1),
    }
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(done.stderr)
    sys.stderr.flush()
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
