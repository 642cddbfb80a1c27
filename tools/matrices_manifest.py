#!/usr/bin/env python3
"""Reads and checks tools/matrices.txt, the manifest of the real-matrix suite.

    matrices_manifest.py check MANIFEST      exit 1 naming every bad line
    matrices_manifest.py list MANIFEST       tab-separated fields, for matrices.sh

A line: NAME PACKAGE VERSION PATH FORMAT SHA256 LICENCE WHAT..., fields
separated by blanks, WHAT the rest of the line; "#" starts a comment line.
PACKAGE is src:NAME (PATH inside its .orig tarball) or deb:NAME (PATH inside
the binary package's files).
"""
import os
import re
import sys
from collections import namedtuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtx_convert  # noqa: E402

Entry = namedtuple("Entry", "name kind package version path format sha256 licence what line")

NAME = re.compile(r"[a-z0-9][a-z0-9_]*$")
PACKAGE = re.compile(r"(src|deb):([a-z0-9][a-z0-9+.-]+)$")
VERSION = re.compile(r"([0-9]+:)?[0-9][A-Za-z0-9.+~-]*$")  # Debian policy 5.6.12
SHA256 = re.compile(r"[0-9a-f]{64}$")


def parse(lines):
    """(entries, errors): every problem named with its line number."""
    entries, errors, names = [], [], {}
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        t = line.split(None, 7)
        if len(t) < 8:
            errors.append("line %d: %d fields, a line needs 8 (NAME PACKAGE VERSION PATH FORMAT SHA256 LICENCE WHAT)" % (n, len(t)))
            continue
        name, package, version, path, fmt, sha, licence, what = t
        bad = []
        if not NAME.match(name):
            bad.append("name %r is not lower-case letters, digits and _" % name)
        elif name in names:
            bad.append("name %r already on line %d" % (name, names[name]))
        names.setdefault(name, n)
        m = PACKAGE.match(package)
        if not m:
            bad.append("package %r is not src:NAME or deb:NAME" % package)
        if not VERSION.match(version):
            bad.append("version %r is not a Debian version" % version)
        if path.startswith("/") or ".." in path.split("/"):
            bad.append("path %r is not relative to the package" % path)
        try:
            mtx_convert.reader(fmt)
        except mtx_convert.FormatError as e:
            bad.append(str(e))
        if not SHA256.match(sha):
            bad.append("sha256 %r is not 64 lower-case hex digits" % sha)
        errors.extend("line %d: %s" % (n, b) for b in bad)
        if not bad:
            entries.append(Entry(name, m.group(1), m.group(2), version, path, fmt, sha, licence, what.strip(), n))
    return entries, errors


def read(path):
    with open(path, encoding="utf-8") as f:
        entries, errors = parse(f)
    if errors:
        raise ValueError("%s:\n  %s" % (path, "\n  ".join(errors)))
    return entries


def main(argv):
    if len(argv) != 2 or argv[0] not in ("check", "list"):
        sys.stderr.write(__doc__)
        return 2
    try:
        entries = read(argv[1])
    except ValueError as e:
        sys.stderr.write("%s\n" % e)
        return 1
    if argv[0] == "list":
        for e in entries:
            print("\t".join((e.name, e.kind, e.package, e.version, e.path, e.format, e.sha256)))
    else:
        print("%s: %d entries" % (argv[1], len(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
