"""The landmark-pieces benchmark runs, and its data are a graph in pieces the fit gets through."""

import numpy as np

import bench_landmark_pieces


def test_the_benchmark_fits_every_row_as_a_landmark(capsys):
    assert bench_landmark_pieces.main(["--rows", "400", "--k", "2"]) == 0
    out = capsys.readouterr().out
    assert "   400    2  ok" in out


def test_its_mixture_has_many_classes_of_very_unequal_sizes():
    X = bench_landmark_pieces.many_classes(3000)
    assert X.shape == (3000, 6) and np.isfinite(X).all()
