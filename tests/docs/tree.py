"""What tests/docs/layout_check.py and references_check.py share: the
tracked files of a checkout, and one command's exits (0 when nothing is
found, 1 listing what is, 2 when the tree cannot be read)."""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tracked(root):
    """The tracked files (git ls-files) that exist in the work tree."""
    proc = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip() or "git ls-files failed")
    return [f for f in proc.stdout.splitlines() if os.path.isfile(os.path.join(root, f))]


def main(doc, name, what, find):
    """Parses --root, prints each of find(root) and a count of `what`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--root", default=ROOT, help="the checkout (default: this one)")
    args = parser.parse_args()
    try:
        found = find(args.root)
    except (OSError, RuntimeError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    for p in found:
        print(p)
    print(f"{name}: {len(found)} {what}")
    return 1 if found else 0
