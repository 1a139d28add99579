"""The threaded-scan benchmark runs and finds the two scans identical (a small case)."""

import bench_threaded_scan


def test_the_benchmark_prints_identical_scans(capsys):
    assert bench_threaded_scan.main(["--rows", "20000", "--ells", "4", "8", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "20,000 x 10 mixture" in out and out.count("True") == 2


def test_the_kde_benchmark_prints_both_and_their_difference(capsys):
    import bench_kde_float32

    assert bench_kde_float32.main(["--rows", "20000", "--points", "50", "--repeats", "1"]) == 0
    assert "largest relative difference" in capsys.readouterr().out
