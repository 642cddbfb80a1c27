#!/usr/bin/env python3
"""Shape of Matrix Market coordinate files, counted as CSR would hold them.

    mtx_stats.py FILE.mtx...                 one line per file
    mtx_stats.py --table MANIFEST DIR        the Markdown table of docs/matrices.md:
                                             every entry of the manifest, from DIR/NAME.mtx

Nonzeros are after symmetric expansion (an off-diagonal entry of a symmetric
file counts twice) and without duplicates; empty rows hold no entry; the
longest row is its count of entries. Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrices_manifest  # noqa: E402


def stats(path):
    """(rows, cols, nnz, empty rows, longest row) of one file."""
    with open(path, encoding="latin-1") as f:
        banner = f.readline().lower().split()
        if len(banner) != 5 or banner[0] != "%%matrixmarket" or banner[2] != "coordinate":
            raise ValueError("%s: not a Matrix Market coordinate file" % path)
        symmetric = banner[4] in ("symmetric", "skew-symmetric", "hermitian")
        for line in f:
            if not line.startswith("%") and line.strip():
                rows, cols, _ = (int(t) for t in line.split())
                break
        # Entries packed as i * cols + j: a set of ints stays small enough
        # for a few million nonzeros.
        seen = set()
        for line in f:
            t = line.split(None, 2)
            if len(t) < 2 or t[0].startswith("%"):
                continue
            i, j = int(t[0]) - 1, int(t[1]) - 1
            seen.add(i * cols + j)
            if symmetric and i != j:
                seen.add(j * cols + i)
    length = [0] * rows
    for k in seen:
        length[k // cols] += 1
    return rows, cols, len(seen), length.count(0), max(length, default=0)


def table(manifest, folder):
    head = "| name | package (version) | rows | columns | nonzeros | empty rows | longest row | licence | what it is |"
    lines = [head, "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for e in matrices_manifest.read(manifest):
        r, c, nnz, empty, longest = stats(os.path.join(folder, e.name + ".mtx"))
        lines.append(
            "| `%s` | %s (%s) | %s | %s | %s | %s | %s | %s | %s |"
            % (e.name, e.package, e.version, f"{r:,}", f"{c:,}", f"{nnz:,}", f"{empty:,}", f"{longest:,}", e.licence, e.what)
        )
    return "\n".join(lines)


def main(argv):
    if len(argv) == 3 and argv[0] == "--table":
        print(table(argv[1], argv[2]))
        return 0
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    print("file rows cols nnz empty_rows longest_row")
    for path in argv:
        print(path, *stats(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
