#!/usr/bin/env python3
"""Offline tests of the real-matrix suite's tools: every converter of
mtx_convert.py on a fixture of a few lines (tools/testdata/matrices), the
committed manifest's format, mtx_stats.py, and matrices.sh's paths that need
no network."""
import contextlib
import gzip
import io
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrices_manifest  # noqa: E402
import mtx_convert  # noqa: E402
import mtx_stats  # noqa: E402

DATA = os.path.join(HERE, "testdata", "matrices")


class Converted:
    """FORMAT applied to a fixture, read back from the written file."""

    def __init__(self, fmt, path, tmp):
        out = os.path.join(tmp, "out.mtx")
        with contextlib.redirect_stdout(io.StringIO()):
            self.status = mtx_convert.main([fmt, path, out, "--comment", "from a test"])
        with open(out) as f:
            self.banner = f.readline().split()
            self.comments = []
            line = f.readline()
            while line.startswith("%"):
                self.comments.append(line)
                line = f.readline()
            self.rows, self.cols, self.nnz = map(int, line.split())
            self.entries = {}
            for line in f:
                t = line.split()
                self.entries[(int(t[0]), int(t[1]))] = t[2] if len(t) > 2 else None
        self.stats = mtx_stats.stats(out)


class ConverterTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def convert(self, fmt, name):
        return Converted(fmt, os.path.join(DATA, name), self.tmp)

    def write(self, text, name="in"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def fails(self, fmt, text):
        path = self.write(text, "bad")
        out = os.path.join(self.tmp, "bad.mtx")
        self.assertEqual(mtx_convert.main([fmt, path, out]), 1, text)
        self.assertFalse(os.path.exists(out), "a failed conversion leaves no file")

    def test_mtx_keeps_entries_and_values(self):
        m = self.convert("mtx", "general.mtx")
        self.assertEqual(m.banner[3:], ["real", "general"])
        self.assertEqual((m.rows, m.cols, m.nnz), (3, 4, 4))
        self.assertEqual({k: float(v) for k, v in m.entries.items()}, {(1, 1): 1.5, (1, 4): -2, (3, 2): 0.3, (2, 3): 4})
        self.assertEqual(m.comments, ["% from a test\n"])

    def test_mtx_transpose(self):
        m = self.convert("mtx-t", "general.mtx")
        self.assertEqual((m.rows, m.cols), (4, 3))
        self.assertEqual(set(m.entries), {(1, 1), (4, 1), (2, 3), (3, 2)})
        self.assertEqual(float(m.entries[(4, 1)]), -2)

    def test_transpose_of_symmetric_is_itself(self):
        m = self.convert("mtx-t", "symmetric.mtx")
        self.assertEqual(m.banner[3:], ["pattern", "symmetric"])
        self.assertEqual(set(m.entries), {(1, 1), (2, 1), (3, 2)})
        self.assertEqual(m.stats, (3, 3, 5, 0, 2))

    def test_mtx_errors(self):
        self.fails("mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n")
        self.fails("mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n")
        self.fails("mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n")

    def test_metis_graph(self):
        m = self.convert("metis", "path.graph")
        self.assertEqual(m.banner[3:], ["pattern", "symmetric"])
        self.assertEqual((m.rows, m.cols), (4, 4))
        self.assertEqual(set(m.entries), {(2, 1), (3, 2)})
        self.assertEqual(m.stats, (4, 4, 4, 1, 2))  # vertex 4: an empty row

    def test_metis_errors(self):
        self.fails("metis", "3 2\n2\n1 3\n")  # a vertex line missing
        self.fails("metis", "2 2\n2\n1\n")  # one edge, not two
        self.fails("metis", "3 2\n2\n3\n2\n")  # 1 -> 2 without 2 -> 1

    def test_chaco_graph(self):
        m = self.convert("chaco", "path.chaco")
        self.assertEqual(set(m.entries), {(2, 1), (3, 2)})
        self.fails("chaco", "2 1 100\n2 2\n1 1\n")  # misnumbered vertex line

    def test_metis_mesh(self):
        m = self.convert("metis-mesh", "two.mesh")
        self.assertEqual(m.banner[3:], ["pattern", "general"])
        self.assertEqual((m.rows, m.cols), (2, 4))
        self.assertEqual(set(m.entries), {(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (2, 4)})

    def test_scotch_graph_with_labels_and_loads(self):
        m = self.convert("scotch-grf", "star.grf")
        self.assertEqual(set(m.entries), {(2, 1), (3, 1)})

    def test_scotch_graph_compressed(self):
        path = os.path.join(self.tmp, "star.grf.gz")
        with open(os.path.join(DATA, "star.grf"), "rb") as src, gzip.open(path, "wb") as dst:
            dst.write(src.read())
        self.assertEqual(set(Converted("scotch-grf", path, self.tmp).entries), {(2, 1), (3, 1)})

    def test_scotch_mesh_incidence_and_nodal(self):
        m = self.convert("scotch-mesh", "two.msh")
        self.assertEqual((m.rows, m.cols), (2, 4))
        self.assertEqual(set(m.entries), {(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (2, 4)})
        n = self.convert("scotch-mesh-nodal", "two.msh")
        self.assertEqual(n.banner[3:], ["pattern", "symmetric"])
        self.assertEqual(set(n.entries), {(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3), (4, 2), (4, 3), (4, 4)})
        self.assertEqual(n.stats, (4, 4, 14, 0, 4))

    def test_scotch_mesh_errors(self):
        mesh = "1\n1 2 %d\n1 2 000\n2 1 %d\n1 1\n1 1\n"
        self.assertEqual(set(Converted("scotch-mesh", self.write(mesh % (4, 2)), self.tmp).entries), {(1, 1), (1, 2)})
        self.fails("scotch-mesh", mesh % (5, 2))  # 4 arcs, not 5
        self.fails("scotch-mesh", mesh % (4, 3))  # no node 3

    def test_bal_jacobian(self):
        m = self.convert("bal", "two.bal")
        self.assertEqual((m.rows, m.cols, m.nnz), (6, 2 * 9 + 2 * 3, 72))
        cam = lambda c: {9 * c + k + 1 for k in range(9)}  # noqa: E731
        pt = lambda p: {18 + 3 * p + k + 1 for k in range(3)}  # noqa: E731
        rows = {}
        for i, j in m.entries:
            rows.setdefault(i, set()).add(j)
        self.assertEqual(rows, {1: cam(0) | pt(0), 2: cam(0) | pt(0), 3: cam(1) | pt(0), 4: cam(1) | pt(0), 5: cam(1) | pt(1), 6: cam(1) | pt(1)})
        t = self.convert("bal-t", "two.bal")
        self.assertEqual((t.rows, t.cols), (24, 6))
        self.assertEqual(set(t.entries), {(j, i) for i, j in m.entries})
        self.assertEqual(t.stats[4], 4)  # camera 1 is seen by two observations, 2 rows each

    def test_bal_errors(self):
        self.fails("bal", "1 1 2\n0 0 1 1\n")  # an observation missing
        self.fails("bal", "1 1 1\n1 0 1 1\n")  # no camera 1

    def test_triplet_symmetric(self):
        m = self.convert("triplet-sym", "laplace.triplet")
        self.assertEqual(m.banner[3:], ["real", "symmetric"])
        self.assertEqual((m.rows, m.cols, m.nnz), (3, 3, 5))
        self.assertEqual(float(m.entries[(2, 1)]), -1)
        self.assertEqual(m.stats, (3, 3, 7, 0, 3))

    def test_zoltan_hypergraph(self):
        m = self.convert("zoltan-hg", "pins.mtxp")
        self.assertEqual((m.rows, m.cols), (2, 3))
        self.assertEqual(set(m.entries), {(1, 1), (1, 2), (2, 2), (2, 3)})
        self.fails("zoltan-hg", "%%MatrixMarket+ distributed-matrix coordinate real general\n2 2 3 1\n1 1 1.0 0\n2 2 1.0 0\n")

    def test_petsc_binary(self):
        path = os.path.join(self.tmp, "a.petsc")
        # 2 x 3: row 0 holds (0, 2.5) and (2, -1), row 1 (1, 4).
        with open(path, "wb") as f:
            f.write(struct.pack(">4i2i3i3d", 1211216, 2, 3, 3, 2, 1, 0, 2, 1, 2.5, -1.0, 4.0))
        m = Converted("petsc", path, self.tmp)
        self.assertEqual((m.rows, m.cols), (2, 3))
        self.assertEqual({k: float(v) for k, v in m.entries.items()}, {(1, 1): 2.5, (1, 3): -1, (2, 2): 4})
        with open(path, "wb") as f:
            f.write(struct.pack(">4i", 1211214, 2, 3, 3))  # a vector's class id
        self.assertEqual(mtx_convert.main(["petsc", path, os.path.join(self.tmp, "v.mtx")]), 1)

    def test_wordnet_graph_and_senses(self):
        m = self.convert("wordnet", "data.noun")
        self.assertEqual((m.rows, m.cols), (3, 3))
        # The pointer to a verb synset is dropped.
        self.assertEqual(set(m.entries), {(1, 2), (1, 3), (2, 1), (3, 1)})
        s = self.convert("wordnet-senses", "data.noun")
        self.assertEqual((s.rows, s.cols), (3, 3))  # entity, physical_entity, thing (= Thing)
        self.assertEqual(set(s.entries), {(1, 1), (2, 2), (3, 2), (3, 3)})

    def test_unknown_format(self):
        with self.assertRaises(mtx_convert.FormatError):
            mtx_convert.reader("hb")
        self.assertEqual(mtx_convert.main(["hb-t", os.path.join(DATA, "general.mtx"), os.path.join(self.tmp, "x")]), 1)


class ManifestTest(unittest.TestCase):
    MANIFEST = os.path.join(HERE, "matrices.txt")

    def test_committed_manifest(self):
        with open(self.MANIFEST, encoding="utf-8") as f:
            lines = f.readlines()
        entries, errors = matrices_manifest.parse(lines)
        self.assertEqual(errors, [])
        data = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
        self.assertEqual(len(entries), len(data), "every line parses")
        self.assertEqual(len({e.name for e in entries}), len(entries))
        for e in entries:
            self.assertRegex(e.sha256, r"^[0-9a-f]{64}$")
            self.assertTrue(e.what and e.licence, e.name)
        # Entries that share a file pin it alike.
        pins = {}
        for e in entries:
            self.assertEqual(pins.setdefault((e.package, e.version, e.path), e.sha256), e.sha256, e.name)

    def test_bad_lines_are_named(self):
        sha = "0" * 64
        good = "a src:pk 1.0-1 pk-1/a.graph metis %s MIT what it is\n" % sha
        lines = [
            good,
            good,  # the same name twice
            "B src:pk 1.0-1 x mtx %s MIT w\n" % sha,
            "c rpm:pk 1.0-1 x mtx %s MIT w\n" % sha,
            "d src:pk 1.0-1 x hb %s MIT w\n" % sha,
            "e src:pk 1.0-1 x mtx %s MIT w\n" % sha[:63],
            "f src:pk 1.0-1 /abs mtx %s MIT w\n" % sha,
            "g src:pk 1.0-1 x mtx %s MIT\n" % sha,
            "h deb:pk v1 x mtx %s MIT w\n" % sha,
        ]
        entries, errors = matrices_manifest.parse(lines)
        self.assertEqual([e.name for e in entries], ["a"])
        for n, what in [(2, "already on line 1"), (3, "name"), (4, "package"), (5, "unknown format"),
                        (6, "sha256"), (7, "path"), (8, "8"), (9, "version")]:
            self.assertTrue(any(e.startswith("line %d:" % n) and what in e for e in errors), (n, what, errors))


class ScriptTest(unittest.TestCase):
    """matrices.sh without the network: a folder that already holds every
    matrix needs nothing fetched."""

    SCRIPT = os.path.join(HERE, "matrices.sh")

    def run_script(self, *args):
        return subprocess.run(["bash", self.SCRIPT, *args], capture_output=True, text=True, timeout=60)

    def test_usage(self):
        self.assertEqual(self.run_script().returncode, 2)

    def test_complete_folder_fetches_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            for e in matrices_manifest.read(os.path.join(HERE, "matrices.txt")):
                open(os.path.join(d, e.name + ".mtx"), "w").close()
            r = self.run_script(d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("already in", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, ".apt")), "apt was not set up")


if __name__ == "__main__":
    unittest.main(verbosity=2)
