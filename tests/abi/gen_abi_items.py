#!/usr/bin/env python3
"""Generate the ABI item list and the API function list from include/hsa.

Outputs (both checked in next to this script):
  abi_items.def          X-macro list used by the oracle test:
                           ENUM(name)          an enumeration constant
                           TYPE(name)          a typedef'd type (size, alignment,
                                               mangled type name)
                           FIELD(type, field)  a struct member (offset, size,
                                               mangled member type)
                           FUNC(name)          a function (mangled signature)
                           MACRO(name)         an integer-valued macro
  hsa_api_functions.txt  every function declared in the three public headers,
                         one per line, sorted.

The headers are run through the C preprocessor of the host (LP64, little
endian) so that conditional members such as the HSA_LARGE_MODEL paddings are
resolved the way the ABI test sees them.

Usage: gen_abi_items.py [--check] [--cc CC] [--compare DIR]
  --check        do not write; exit 1 if a checked-in output is out of date.
  --compare DIR  also list the items that differ by name between our headers
                 and DIR/hsa/{hsa.h,...} (e.g. /usr/include for Debian's ROCR
                 headers); informational only.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
INCLUDE = os.path.join(ROOT, "include")
HEADERS = ["hsa.h", "hsa_ext_finalize.h", "hsa_ext_image.h"]
DEF_OUT = os.path.join(HERE, "abi_items.def")
FUNC_OUT = os.path.join(HERE, "hsa_api_functions.txt")

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def preprocess(cc, include=INCLUDE):
    """Return the preprocessed text of the headers in include/hsa only (other
    headers and line markers removed)."""
    src = "".join('#include <hsa/%s>\n' % h for h in HEADERS)
    out = subprocess.run(
        [cc, "-E", "-x", "c", "-std=c99", "-I", include, "-"],
        input=src, capture_output=True, text=True, check=True).stdout
    ours = os.path.normpath(os.path.join(include, "hsa"))
    keep = []
    current = None
    for line in out.splitlines():
        m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if m:
            current = os.path.normpath(m.group(1))
            continue
        if current and os.path.dirname(current) == ours:
            keep.append(line)
    return "\n".join(keep)


def macros():
    """Integer-valued object-like macros defined by our headers."""
    names = []
    for h in HEADERS:
        with open(os.path.join(INCLUDE, "hsa", h)) as f:
            for line in f:
                m = re.match(r"\s*#\s*define\s+(%s)\s+(\S+)\s*$" % IDENT, line)
                if m and re.fullmatch(r"(0x[0-9A-Fa-f]+|\d+)[uUlL]*",
                                      m.group(2)):
                    names.append(m.group(1))
    return names


def split_top(text, sep):
    """Split on sep at bracket depth 0."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def matching(text, i):
    """Index of the bracket closing the one at text[i]."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    open_ch, close_ch, depth = text[i], pairs[text[i]], 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets")


def member_name(decl):
    decl = decl.strip()
    m = re.search(r"\(\s*\*\s*(%s)\s*\)\s*\(" % IDENT, decl)
    if m:  # function pointer member
        return m.group(1)
    decl = re.sub(r"\[[^\]]*\]", "", decl)
    return re.findall(IDENT, decl)[-1]


def parse(text):
    text = " ".join(text.split())
    items = []  # (kind, args) in header order
    funcs = []
    # Top-level statements end with ';' at depth 0.
    for stmt in split_top(text, ";"):
        stmt = stmt.strip()
        if not stmt or stmt.startswith("extern \"C\""):
            continue
        if stmt == "}":
            continue
        brace = stmt.find("{")
        head = stmt[:brace] if brace >= 0 else stmt
        if re.match(r"(typedef\s+)?enum\b", head) and brace >= 0:
            end = matching(stmt, brace)
            for entry in split_top(stmt[brace + 1:end], ","):
                entry = entry.strip()
                if entry:
                    items.append(("ENUM", entry.split("=")[0].strip()))
            tail = stmt[end + 1:].strip()
            if tail:
                items.append(("TYPE", tail))
            continue
        if re.match(r"typedef\s+struct\b", head) and brace >= 0:
            end = matching(stmt, brace)
            name = stmt[end + 1:].strip()
            items.append(("TYPE", name))
            for decl in split_top(stmt[brace + 1:end], ";"):
                if decl.strip():
                    items.append(("FIELD", "%s, %s" % (name,
                                                       member_name(decl))))
            continue
        if stmt.startswith("typedef"):
            items.append(("TYPE", re.findall(IDENT, stmt)[-1]))
            continue
        if re.match(r"struct\s+%s$" % IDENT, stmt):
            continue  # forward declaration of an incomplete type
        paren = stmt.find("(")
        if paren > 0:
            name = re.findall(IDENT, stmt[:paren])[-1]
            items.append(("FUNC", name))
            funcs.append(name)
            continue
        raise ValueError("unrecognised declaration: " + stmt)
    return items, funcs


def render(items, macro_names):
    lines = [
        "// Generated by tests/abi/gen_abi_items.py from include/hsa/*.h;",
        "// do not edit. Regenerate after changing the public headers.",
    ]
    for name in macro_names:
        lines.append("MACRO(%s)" % name)
    for kind, arg in items:
        lines.append("%s(%s)" % (kind, arg))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--compare", metavar="DIR")
    args = ap.parse_args()
    items, funcs = parse(preprocess(args.cc))
    if args.compare:
        ref, _ = parse(preprocess(args.cc, args.compare))
        for title, diff in (("only in " + args.compare, set(ref) - set(items)),
                            ("only in ours", set(items) - set(ref))):
            print("%s: %d" % (title, len(diff)))
            for kind, arg in sorted(diff):
                print("  %s(%s)" % (kind, arg))
    dups = {f for f in funcs if funcs.count(f) > 1}
    if dups:
        sys.exit("functions declared twice: %s" % ", ".join(sorted(dups)))
    outputs = {
        DEF_OUT: render(items, macros()),
        FUNC_OUT: "".join(f + "\n" for f in sorted(funcs)),
    }
    stale = []
    for path, content in outputs.items():
        old = open(path).read() if os.path.exists(path) else None
        if old != content:
            stale.append(path)
            if not args.check:
                with open(path, "w") as f:
                    f.write(content)
    if args.check and stale:
        sys.exit("out of date (run tests/abi/gen_abi_items.py): " +
                 ", ".join(os.path.relpath(p, ROOT) for p in stale))
    counts = {}
    for kind, _ in items:
        counts[kind] = counts.get(kind, 0) + 1
    print("%s; %d functions%s" % (
        ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())),
        len(funcs), "" if args.check else " (written)"))


if __name__ == "__main__":
    main()
