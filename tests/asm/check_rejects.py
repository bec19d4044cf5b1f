#!/usr/bin/env python3
"""Counts the gen_corpus.py variants that HSAILasm rejects but openhsa-as accepts.

gen_corpus.py keeps, in tests/asm/corpus/gen_<family>.hsail, exactly the
variants of each family that HSAILasm accepts; every other variant it
generates is one HSAILasm rejects. This script assembles each of those on its
own with openhsa-as and reports the ones it accepts (it should accept none;
the lines are written to <family>.still_accepted in the output directory).

Usage: tests/asm/check_rejects.py --as build/tools/openhsa-as/openhsa-as
                                  [--out DIR] [family ...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_corpus  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--as", dest="assembler", required=True)
    ap.add_argument("--out", default=tempfile.gettempdir())
    ap.add_argument("families", nargs="*",
                    default=sorted(gen_corpus.FAMILIES))
    a = ap.parse_args()
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.hsail")
        for fam in a.families:
            lines = list(dict.fromkeys(gen_corpus.FAMILIES[fam]()))
            toplevel = fam in gen_corpus.TOPLEVEL
            with open(os.path.join(gen_corpus.CORPUS,
                                   f"gen_{fam}.hsail")) as f:
                kept = f.read().splitlines()
            if toplevel:
                kept = {re.sub(r"&v\d+\b", "&v", l) for l in kept}
            else:
                kept = {l.strip() for l in kept}
            rejected = [l for l in lines if l not in kept]
            accepted = []
            for line in rejected:
                with open(src, "w") as f:
                    f.write("module &m:1:0:$full:$large:$default;\n"
                            "extension \"IMAGE\";\n")
                    if toplevel:
                        f.write(line + "\n")
                    else:
                        f.write("kernel &k()\n{\n\t" + line +
                                "\n\tret;\n};\n")
                r = subprocess.run([a.assembler, src, "-o", src + ".brig"],
                                   capture_output=True)
                if r.returncode == 0:
                    accepted.append(line)
            with open(os.path.join(a.out, fam + ".still_accepted"), "w") as f:
                f.write("".join(l + "\n" for l in accepted))
            total += len(accepted)
            print(f"{fam}: {len(rejected)} of {len(lines)} variants rejected "
                  f"by HSAILasm, {len(accepted)} of them accepted by "
                  f"openhsa-as", flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
