"""The speed benchmark's rows: each is timed, labelled, and never overwrites an earlier run's file."""

import numpy as np

def test_bench_speed_never_overwrites(tmp_path):
    from bench_speed import fresh_path
    first = tmp_path / "speed.csv"
    assert fresh_path(str(first)) == str(first)
    first.write_text("x")
    second = fresh_path(str(first))
    assert second == str(tmp_path / "speed-1.csv")
    open(second, "w").write("y")
    assert fresh_path(str(first)) == str(tmp_path / "speed-2.csv")


def test_bench_speed_times_both_exact_solvers_on_every_app_comparison_set():
    # The evidence behind the Speedups page timing arpack only unless asked: every bundled sample
    # and a 2,000-row sample of pendigits (here a stand-in with its shape), each solver timed.
    from rskpca.data.samples import SAMPLES
    from bench_app_fits import app_solver_rows

    pendigits = np.random.default_rng(0).normal(size=(2500, 16))
    rows = app_solver_rows(pendigits, repeats=1, ranks=(2,))
    assert [name for name, *_ in rows] == [*SAMPLES, "pendigits (2000 rows)"]
    assert all(n <= 2000 and r == 2 and arpack > 0 and randomized > 0 for _, n, r, arpack, randomized in rows)


def test_bench_speed_times_the_embeddings_exact_fit_with_and_without_projecting():
    from bench_app_fits import app_embedding_rows

    rows = app_embedding_rows(np.random.default_rng(0).normal(size=(2500, 16)), repeats=1, ranks=(2,))
    assert [(name, n, r) for name, n, r, *_ in rows] == [("digits", 1797, 2), ("pendigits (2000 rows)", 2000, 2)]
    assert all(projected > 0 and fit_only > 0 for *_, projected, fit_only in rows)


def test_bench_speed_times_the_apps_fits_with_the_libraries_threads_and_one_quiet_and_busy():
    from bench_app_fits import app_thread_rows

    rows = app_thread_rows(np.random.default_rng(0).normal(size=(2500, 16)), calls=1)
    assert [row[:3] for row in rows] == [
        (data, fit, threads) for data in ("two_moons", "pendigits (2000 rows)")
        for fit in ("exact (arpack)", "density-weighted Nystrom") for threads in ("default", "one")]
    assert all(quiet > 0 and busy > 0 for *_, quiet, busy in rows)



def test_bench_speed_scratch_thread_and_block_rows_are_timed_and_labelled(tmp_path):
    # stand-ins with pendigits' width; usps given by path, as --usps does
    from rskpca.core import _scratch
    from rskpca.core.shadow import shadow_centers
    import bench_speed as bs

    rng = np.random.default_rng(0)
    X = rng.normal(scale=40.0, size=(1500, 16))
    rows = bs.scratch_rows(X, repeats=1)
    assert [r[0] for r in rows] == ["RSKPCA fit: fresh arrays -> scratch buffers",
                                    "shadow screen: fresh arrays -> scratch buffers"]
    assert _scratch.SCRATCH_MAX_BYTES > 0  # restored after the "fresh" timings
    usps = tmp_path / "usps.csv"
    np.savetxt(usps, np.c_[rng.normal(size=(300, 256)), np.zeros(300)], delimiter=",",
               header=",".join(f"f{k}" for k in range(257)), comments="")
    rows = bs.screen_thread_rows(X, repeats=1, usps=str(usps))
    sets = ["pendigits"] * 3 + ["digits"] * 3 + ["usps (5,000 rows)"] * 3
    assert [r[0].split(", ")[1] for r in rows] == sets * 2
    assert [r[0].split(", ")[0] for r in rows] == (["shadow screen one thread -> threads"] * 9
                                                   + ["shadow screen (threads) -> compiled"] * 9)
    s = shadow_centers(X, sigma=120.0, ell=4.0)
    width = bs._block_solve_rows(s.centers, s.weights.astype(float), repeats=1)
    assert [r[0] for r in width] == ["W K W float32 lower half: fresh pages -> scratch buffer",
                                     "block Krylov pass: 16 -> 8 columns", "block Krylov width, r = 5: 16 -> 8 columns",
                                     "block Krylov start, r = 5: random -> pivoted Cholesky"]
    assert all(before > 0 and after > 0 for _, before, after, _ in rows + width)


def test_bench_speed_dense_crossover_rows_name_the_solver_that_ran():
    from bench_speed import dense_crossover_rows

    rows = dense_crossover_rows(repeats=1)
    assert rows and all(label.startswith("eigen r = 5, ") and dense > 0 and partial > 0 and note.startswith("ran ")
                        for label, dense, partial, note in rows)
