#!/usr/bin/env python3
"""Converts a sparse matrix or graph file to Matrix Market coordinate format.

    mtx_convert.py FORMAT INPUT OUTPUT [--comment TEXT]...

FORMAT is one of FORMATS below; a "-t" suffix (e.g. "mtx-t", "bal-t") writes
the transpose. Input may be compressed (.gz, .bz2, .xz). Indices are 1-based
in the output; a symmetric matrix is written as its lower triangle. Graphs
become their adjacency pattern (weights dropped: the suite measures
structure, values are filled by the benchmark). Standard library only.
"""
import bz2
import gzip
import lzma
import os
import struct
import sys
import tempfile
from collections import namedtuple

# rows, cols: dimensions; field: "pattern", "integer" or "real";
# symmetric: entries hold the lower triangle of a symmetric matrix;
# entries: iterable of (i, j, value) with 0-based i, j (value None for pattern).
Matrix = namedtuple("Matrix", "rows cols field symmetric entries")


class FormatError(ValueError):
    pass


def open_text(path):
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(os.path.splitext(path)[1], open)
    return opener(path, "rt", encoding="latin-1")


def data_lines(f, comment="%"):
    """Non-comment lines, blank ones kept: in METIS and Chaco files a blank
    line is a vertex without neighbours."""
    for line in f:
        if not line.startswith(comment):
            yield line


def ints(line):
    try:
        return [int(t) for t in line.split()]
    except ValueError:
        raise FormatError("not integers: %r" % line[:80]) from None


# --- Matrix Market -----------------------------------------------------------


def read_mtx(path):
    f = open_text(path)
    banner = f.readline().split()
    if len(banner) != 5 or banner[0].lower() != "%%matrixmarket" or banner[2].lower() != "coordinate":
        f.close()
        raise FormatError("%s: not a Matrix Market coordinate file" % path)
    field, sym = banner[3].lower(), banner[4].lower()
    if field not in ("pattern", "integer", "real") or sym not in ("general", "symmetric"):
        raise FormatError("%s: %s %s matrices are not supported" % (path, field, sym))
    for line in f:
        if not line.startswith("%") and line.strip():
            rows, cols, nnz = ints(line)
            break
    else:
        raise FormatError("%s: no size line" % path)
    conv = None if field == "pattern" else int if field == "integer" else float

    def entries():
        n = 0
        with f:
            for line in f:
                t = line.split()
                if not t or t[0].startswith("%"):
                    continue
                i, j = int(t[0]) - 1, int(t[1]) - 1
                if not (0 <= i < rows and 0 <= j < cols):
                    raise FormatError("%s: entry (%d, %d) outside %dx%d" % (path, i + 1, j + 1, rows, cols))
                n += 1
                yield i, j, conv(t[2]) if conv else None
        if n != nnz:
            raise FormatError("%s: %d entries, the size line says %d" % (path, n, nnz))

    return Matrix(rows, cols, field, sym == "symmetric", entries())


# --- graphs: METIS, Chaco, SCOTCH ---------------------------------------------


def adjacency_to_lower(n, neighbours, source):
    """A symmetric pattern from adjacency lists (0-based), checked symmetric
    by counting: every edge {i, j} is entry (max, min)."""
    lower = upper = 0
    out = []
    for i, adj in enumerate(neighbours):
        for j in sorted(set(adj)):
            if not 0 <= j < n or j == i:
                raise FormatError("%s: vertex %d has neighbour %d" % (source, i + 1, j + 1))
            if j < i:
                out.append((i, j, None))
                lower += 1
            else:
                upper += 1
    if lower != upper:
        raise FormatError("%s: adjacency is not symmetric (%d arcs down, %d up)" % (source, lower, upper))
    return Matrix(n, n, "pattern", True, out)


def read_adjacency(path, chaco):
    """METIS graph (vertex sizes, ncon weights, edge weights by the fmt digits
    "xyz") or Chaco graph (vertex numbers, weights, edge weights by "abc";
    Zoltan's extension gives the weight dimensions as fields 4 and 5)."""
    with open_text(path) as f:
        lines = data_lines(f.readlines())
    head = ints(next(lines))
    if len(head) < 2:
        raise FormatError("%s: header needs vertex and edge counts" % path)
    n, m = head[0], head[1]
    fmt = "%03d" % (head[2] if len(head) > 2 else 0)
    ncon = head[3] if len(head) > 3 and fmt[1] == "1" else 1
    necon = head[4] if chaco and len(head) > 4 and fmt[2] == "1" else 1
    lead = int(fmt[0]) + (ncon if fmt[1] == "1" else 0)  # values before the neighbours
    step = 1 + (necon if fmt[2] == "1" else 0)  # values per neighbour
    neighbours = []
    for line in lines:
        if len(neighbours) == n:
            if line.strip():
                raise FormatError("%s: more than %d vertex lines" % (path, n))
            continue
        t = ints(line)
        if chaco and fmt[0] == "1" and t and t[0] != len(neighbours) + 1:
            raise FormatError("%s: vertex line %d numbered %d" % (path, len(neighbours) + 1, t[0]))
        adj = t[lead::step]
        if (len(t) - lead) % step:
            raise FormatError("%s: vertex %d: odd number of values" % (path, len(neighbours) + 1))
        neighbours.append([j - 1 for j in adj])
    if len(neighbours) != n:
        raise FormatError("%s: %d vertex lines, the header says %d" % (path, len(neighbours), n))
    g = adjacency_to_lower(n, neighbours, path)
    if len(g.entries) != m:
        raise FormatError("%s: %d edges, the header says %d" % (path, len(g.entries), m))
    return g


def scotch_tokens(path):
    with open_text(path) as f:
        for line in data_lines(f, "#"):
            yield from ints(line)


def scotch_row(tok, flags, offset=0):
    """One vertex's (or element's) neighbours in a SCOTCH file, minus offset;
    flags is the format's three digits: labels, edge loads, vertex loads."""
    if flags[2] == "1":
        next(tok)  # the vertex load
    row = []
    for _ in range(next(tok)):
        if flags[1] == "1":
            next(tok)  # the edge load
        row.append(next(tok) - offset)
    return row


def read_scotch_grf(path):
    """SCOTCH source graph: version 0, vertnbr edgenbr (arcs), baseval and
    flags "lwv" (labels, edge weights, vertex weights), then per vertex
    [label] [weight] degree ([edge weight] neighbour)*. Neighbours are labels
    when labels are given."""
    tok = scotch_tokens(path)
    if next(tok) != 0:
        raise FormatError("%s: not a SCOTCH version 0 graph" % path)
    n, arcs, base, flags = next(tok), next(tok), next(tok), "%03d" % next(tok)
    labels, adj = [], []
    for v in range(n):
        labels.append(next(tok) if flags[0] == "1" else v + base)
        adj.append(scotch_row(tok, flags))
    index = {lab: v for v, lab in enumerate(labels)}
    if len(index) != n:
        raise FormatError("%s: duplicate vertex labels" % path)
    try:
        neighbours = [[index[lab] for lab in row] for row in adj]
    except KeyError as e:
        raise FormatError("%s: neighbour %s is no vertex" % (path, e)) from None
    if sum(map(len, adj)) != arcs:
        raise FormatError("%s: %d arcs, the header says %d" % (path, sum(map(len, adj)), arcs))
    return adjacency_to_lower(n, neighbours, path)


def read_scotch_mesh(path):
    """SCOTCH mesh: version 1, velmnbr vnodnbr arcs, velmbas vnodbas flags,
    then the vertex lines of whichever kind has the lower base first. Each
    line lists vertices of the other kind, numbered from the file's lowest
    base (as SCOTCH's meshLoad reads them). Returns element -> node lists."""
    tok = scotch_tokens(path)
    if next(tok) != 1:
        raise FormatError("%s: not a SCOTCH version 1 mesh" % path)
    ne, nn, arcs = next(tok), next(tok), next(tok)
    ebase, nbase, flags = next(tok), next(tok), "%03d" % next(tok)
    if ebase + ne != nbase and nbase + nn != ebase:
        raise FormatError("%s: element and node ranges do not abut" % path)
    if flags[0] == "1":
        raise FormatError("%s: vertex labels are not supported" % path)
    base = min(ebase, nbase)
    kinds = [("elem", ne), ("node", nn)] if ebase < nbase else [("node", nn), ("elem", ne)]
    lists = {}
    total = 0
    for kind, count in kinds:
        rows = []
        for _ in range(count):
            row = scotch_row(tok, flags, base)
            rows.append(row)
            total += len(row)
        lists[kind] = rows
    if total != arcs:
        raise FormatError("%s: %d arcs, the header says %d" % (path, total, arcs))
    for e, row in enumerate(lists["elem"]):
        if any(not 0 <= v < nn for v in row):
            raise FormatError("%s: element %d names a node outside 1..%d" % (path, e + 1, nn))
    return lists["elem"], nn


def incidence(elements, nodes):
    """Elements x nodes, one entry per (element, node)."""
    out = [(e, v, None) for e, row in enumerate(elements) for v in sorted(set(row))]
    return Matrix(len(elements), nodes, "pattern", False, out)


def nodal(elements, nodes):
    """Nodes x nodes, i ~ j when they share an element, diagonal included:
    the pattern a finite-element assembly over the mesh produces."""
    of_node = [[] for _ in range(nodes)]
    for e, row in enumerate(elements):
        for v in row:
            of_node[v].append(e)

    def entries():
        for i in range(nodes):
            near = {v for e in of_node[i] for v in elements[e] if v <= i}
            near.add(i)
            for j in sorted(near):
                yield i, j, None

    return Matrix(nodes, nodes, "pattern", True, entries())


def read_metis_mesh(path):
    """METIS mesh: "ne [etype]", then one line of 1-based nodes per element."""
    with open_text(path) as f:
        lines = [ln for ln in data_lines(f) if ln.strip()]
    ne = ints(lines[0])[0]
    elements = [[v - 1 for v in ints(ln)] for ln in lines[1:]]
    if len(elements) != ne:
        raise FormatError("%s: %d elements, the header says %d" % (path, len(elements), ne))
    if min(min(e) for e in elements) < 0:
        raise FormatError("%s: node numbers start at 1" % path)
    return elements, 1 + max(max(e) for e in elements)


# --- problems and other formats -------------------------------------------------


def read_bal(path):
    """Bundle adjustment in the large (ceres-solver's data/problem-*.txt):
    "cameras points observations", then "camera point x y" per observation.
    The Jacobian of the reprojection error: two rows per observation, each
    with the 9 parameters of its camera and the 3 of its point (columns:
    cameras first, then points)."""
    observations = []
    with open_text(path) as f:
        cams, pts, obs = ints(f.readline())
        for _ in range(obs):
            t = f.readline().split()
            c, p = int(t[0]), int(t[1])
            if not (0 <= c < cams and 0 <= p < pts):
                raise FormatError("%s: observation of camera %d, point %d" % (path, c, p))
            observations.append((c, p))

    def entries():
        for k, (c, p) in enumerate(observations):
            cols = list(range(9 * c, 9 * c + 9)) + list(range(9 * cams + 3 * p, 9 * cams + 3 * p + 3))
            for r in (2 * k, 2 * k + 1):
                for j in cols:
                    yield r, j, None

    return Matrix(2 * obs, 9 * cams + 3 * pts, "pattern", False, entries())


def read_triplet_sym(path):
    """CSparse's triplet files ("i j x", 0-based) holding one triangle of a
    symmetric matrix; written as its lower triangle."""
    out = []
    n = 0
    with open_text(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            i, j = int(t[0]), int(t[1])
            if i < 0 or j < 0:
                raise FormatError("%s: negative index" % path)
            out.append((max(i, j), min(i, j), float(t[2])))
            n = max(n, i + 1, j + 1)
    return Matrix(n, n, "real", True, out)


def read_zoltan_hg(path):
    """Zoltan's MatrixMarket+ hypergraph (.mtxp): rows = hyperedges, columns =
    vertices, "edge vertex value process" per pin."""
    with open_text(path) as f:
        text = f.readlines()
    if not text or not text[0].lower().startswith("%%matrixmarket+"):
        raise FormatError("%s: not a MatrixMarket+ file" % path)
    lines = (ln for ln in text if not ln.startswith("%") and ln.strip())
    rows, cols, pins = ints(next(lines))[:3]
    out = []
    for _ in range(pins):  # vertex and edge weights follow the pins
        t = next(lines).split()
        if len(t) != 4:
            raise FormatError("%s: pin %d is not \"edge vertex value process\"" % (path, len(out) + 1))
        out.append((int(t[0]) - 1, int(t[1]) - 1, None))
    if any(not (0 <= i < rows and 0 <= j < cols) for i, j, _ in out):
        raise FormatError("%s: a pin outside %dx%d" % (path, rows, cols))
    return Matrix(rows, cols, "pattern", False, out)


def read_petsc(path):
    """The first object of a PETSc binary file, a sequential AIJ matrix:
    big-endian int32 class id 1211216, rows, cols, nnz, row lengths, column
    indices, then float64 values."""
    with open(path, "rb") as f:
        classid, rows, cols, nnz = struct.unpack(">4i", f.read(16))
        if classid != 1211216:
            raise FormatError("%s: not a PETSc matrix (class id %d)" % (path, classid))
        lens = struct.unpack(">%di" % rows, f.read(4 * rows))
        col = struct.unpack(">%di" % nnz, f.read(4 * nnz))
        val = struct.unpack(">%dd" % nnz, f.read(8 * nnz))
    if sum(lens) != nnz:
        raise FormatError("%s: row lengths add up to %d, not %d" % (path, sum(lens), nnz))
    out, k = [], 0
    for i, n in enumerate(lens):
        for _ in range(n):
            out.append((i, col[k], val[k]))
            k += 1
    return Matrix(rows, cols, "real", False, out)


def wordnet_synsets(path):
    """(offset, type, words, [(target offset, pos)]) per synset of a WordNet
    data.POS file (wndb(5WN)); adjective satellites ("s") count as "a"."""
    with open_text(path) as f:
        text = f.readlines()
    for line in text:
        if line.startswith("  "):  # the licence header
            continue
        t = line.split()
        w = int(t[3], 16)
        words = [t[4 + 2 * k].lower() for k in range(w)]
        p = 4 + 2 * w
        ptrs = [(t[p + 2 + 4 * k], t[p + 3 + 4 * k].replace("s", "a")) for k in range(int(t[p]))]
        yield t[0], t[2].replace("s", "a"), words, ptrs


def read_wordnet(path):
    """The synsets of one WordNet data file as a directed graph: an arc for
    every pointer (semantic or lexical) to a synset of the same file,
    synsets in file order. Pointers to other parts of speech are dropped."""
    synsets = list(wordnet_synsets(path))
    # Offsets are byte positions within one file: unique only with the pos.
    index = {(off, pos): k for k, (off, pos, _, _) in enumerate(synsets)}
    out = []
    for k, (_, _, _, ptrs) in enumerate(synsets):
        targets = {index[p] for p in ptrs if p in index}
        out.extend((k, j, None) for j in sorted(targets))
    return Matrix(len(synsets), len(synsets), "pattern", False, out)


def read_wordnet_senses(path):
    """Words x synsets of one WordNet data file: an entry per sense (a word
    form in a synset), words numbered in order of first appearance."""
    words, out = {}, []
    synsets = list(wordnet_synsets(path))
    for k, (_, _, ws, _) in enumerate(synsets):
        for w in dict.fromkeys(ws):
            out.append((words.setdefault(w, len(words)), k, None))
    return Matrix(len(words), len(synsets), "pattern", False, out)


FORMATS = {
    "mtx": read_mtx,
    "metis": lambda p: read_adjacency(p, chaco=False),
    "chaco": lambda p: read_adjacency(p, chaco=True),
    "metis-mesh": lambda p: incidence(*read_metis_mesh(p)),
    "scotch-grf": read_scotch_grf,
    "scotch-mesh": lambda p: incidence(*read_scotch_mesh(p)),
    "scotch-mesh-nodal": lambda p: nodal(*read_scotch_mesh(p)),
    "bal": read_bal,
    "triplet-sym": read_triplet_sym,
    "zoltan-hg": read_zoltan_hg,
    "petsc": read_petsc,
    "wordnet": read_wordnet,
    "wordnet-senses": read_wordnet_senses,
}


def reader(fmt):
    """The reader of FORMAT and whether to transpose ("-t" suffix)."""
    base, transpose = (fmt[:-2], True) if fmt.endswith("-t") else (fmt, False)
    if base not in FORMATS:
        raise FormatError("unknown format %r (formats: %s, each with -t for the transpose)" % (fmt, ", ".join(sorted(FORMATS))))
    return FORMATS[base], transpose


def write_mtx(m, out_path, transpose=False, comments=()):
    """Writes m, the body first into a temporary file so that the size line
    can hold the count of entries a generator yields. A symmetric matrix's
    transpose is itself."""
    rows, cols = (m.cols, m.rows) if transpose and not m.symmetric else (m.rows, m.cols)
    swap = transpose and not m.symmetric
    fmt = "%d %d\n" if m.field == "pattern" else "%d %d %d\n" if m.field == "integer" else "%d %d %.17g\n"
    count = 0
    d = os.path.dirname(os.path.abspath(out_path))
    with tempfile.TemporaryFile("w+", dir=d) as body:
        buf = []
        for i, j, v in m.entries:
            if swap:
                i, j = j, i
            buf.append(fmt % ((i + 1, j + 1) if v is None else (i + 1, j + 1, v)))
            if len(buf) >= 65536:
                body.write("".join(buf))
                count += len(buf)
                buf = []
        body.write("".join(buf))
        count += len(buf)
        body.seek(0)
        tmp = out_path + ".part"
        with open(tmp, "w") as out:
            out.write("%%%%MatrixMarket matrix coordinate %s %s\n" % (m.field, "symmetric" if m.symmetric else "general"))
            for c in comments:
                out.write("%% %s\n" % c)
            out.write("%d %d %d\n" % (rows, cols, count))
            while True:
                chunk = body.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        os.replace(tmp, out_path)
    return rows, cols, count


def main(argv):
    args, comments = [], []
    it = iter(argv)
    for a in it:
        if a == "--comment":
            comments.append(next(it, ""))
        else:
            args.append(a)
    if len(args) != 3:
        sys.stderr.write(__doc__)
        return 2
    fmt, src, dst = args
    try:
        read, transpose = reader(fmt)
        rows, cols, nnz = write_mtx(read(src), dst, transpose, comments)
    except (FormatError, StopIteration, IndexError, ValueError, struct.error, OSError) as e:
        sys.stderr.write("mtx_convert: %s (%s): %s\n" % (src, fmt, str(e) or "the file ends early"))
        return 1
    print("%s: %d x %d, %d entries stored" % (dst, rows, cols, nnz))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
