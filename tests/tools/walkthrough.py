#!/usr/bin/env python3
"""Run the `sh` blocks of a Markdown walk-through (docs/getting-started.md) in
order, in one bash session, against the endpoint given as argv[2]. A block
followed by `<!-- expect: TEXT -->` must print TEXT (whitespace runs compared
as one space). Usage: walkthrough.py FILE ENDPOINT"""
import re
import subprocess
import sys


def blocks(text):
    # (code, expect or None) for every ```sh block.
    out = []
    for m in re.finditer(r"^```sh\n(.*?)^```\n(?:<!-- expect: (.*?) -->\n)?", text, re.S | re.M):
        out.append((m.group(1), m.group(2)))
    return out


def norm(s):
    return " ".join(s.split())


def main():
    path, endpoint = sys.argv[1], sys.argv[2]
    text = open(path).read()
    bs = blocks(text)
    if not bs:
        print(f"walkthrough: no sh blocks in {path}")
        return 1
    env_lines = []  # exports and assignments carried from block to block
    failed = 0
    for i, (code, expect) in enumerate(bs, 1):
        code = code.replace("http://localhost:8000", endpoint)
        script = "set -euo pipefail\n" + "\n".join(env_lines) + "\n" + code
        first = code.strip().splitlines()[0]
        p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
        ok = p.returncode == 0 and (expect is None or norm(expect) in norm(p.stdout))
        print(f"  block {i}: {'ok  ' if ok else 'FAIL'} {first[:90]}")
        if not ok:
            failed += 1
            print(f"    exit {p.returncode}; expected {expect!r}")
            for line in (p.stdout + p.stderr).strip().splitlines()[-15:]:
                print("    | " + line)
            break  # later blocks depend on this one
        for line in code.splitlines():
            if re.match(r"^(export\s+)?[A-Z_][A-Z0-9_]*=", line):
                env_lines.append(line)
    print(f"walkthrough: {len(bs)} blocks, {'all passed' if not failed else 'FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
