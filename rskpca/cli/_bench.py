"""``rskpca bench [fit|methods|distributed]``: the benchmark modes (columns: rskpca.evaluation.result_columns)."""

from __future__ import annotations


import numpy as np

from rskpca.cli._progress import ProgressBar


def _labelled_split(args):
    """``(name, X_train, X_test, sigma)`` from --data: a seeded 80/20 split, sigma from Table 1 by name."""
    from rskpca.evaluation.experiments import DATASET_SIGMA, load_labeled_csv

    X, _, name = load_labeled_csv(args.data)
    sigma = args.sigma if args.sigma is not None else DATASET_SIGMA.get(name)
    if sigma is None:
        raise ValueError(f"No paper sigma for {name!r}; pass --sigma.")
    perm = np.random.default_rng(args.seed).permutation(X.shape[0])
    cut = int(0.8 * X.shape[0])
    return name, X[perm[:cut]], X[perm[cut:]], sigma


def _bench(args) -> int:
    from rskpca.evaluation.result_columns import column_order, format_table, write_csv
    from rskpca.evaluation.timing import Timing

    if args.mode == "distributed":
        from rskpca.evaluation.bench_distributed import report

        print(report(rows=args.rows, features=args.features, chunk_rows=args.chunk_rows, sigma=args.sigma,
                     ell=args.ell, workers=args.workers, large_rows=args.large_rows, repeats=args.repeats,
                     nodes=args.nodes,
                     cores_per_node=args.cores_per_node))
        return 0
    from rskpca.evaluation.bench import METHODS_BENCH_DEFAULT, gaussian_mixture, methods_benchmark, run_bench

    timing = Timing(repeats=args.repeats, warmup=args.warmup)
    path = args.out / ("bench.csv" if args.mode == "fit" else "methods.csv")
    if path.exists() and not args.overwrite:  # before the long part, not after it
        raise ValueError(f"{path} exists (an earlier run's results); pass --overwrite to replace it, "
                         "or --out another folder.")
    if args.mode == "fit":
        ells = [ell for group in args.ell for ell in group]
        sigma = None
        if args.data is not None:
            name, X, X_test, sigma = _labelled_split(args)
            sets = [(name, X, X_test)]
        else:
            sets = []
            for n in args.n:
                for d in args.d:
                    data = gaussian_mixture(n + args.n_test, d, random_state=args.seed)
                    sets.append(("mixture", data[:n], data[n:]))
            sigma = args.sigma
        rows = run_bench(sets, ells=ells, sigma=sigma, n_components=args.rank, exact_max_n=args.exact_max_n,
                         timing=timing, progress=ProgressBar())
        note = (f"GEMM rate {rows[0]['gemm_gflops']:.1f} GFLOP/s (float64). Exact KPCA and Nystrom up to "
                f"n = {args.exact_max_n}.")
    else:
        if args.data is not None:
            _, X, X_test, sigma = _labelled_split(args)
            X, X_test = X[:args.n], X_test[:args.n_test]
        else:
            data = gaussian_mixture(args.n + args.n_test, 5, n_clusters=3, random_state=args.seed)
            X, X_test, sigma = data[:args.n], data[args.n:], args.sigma
        rows = methods_benchmark(X, X_test, methods=args.methods or METHODS_BENCH_DEFAULT, n_components=args.rank,
                                 ell=args.ell, sigma=sigma, timing=timing, random_state=args.seed)
        note = f"sigma = {rows[0]['sigma']:.4g}, m = the shadow's at ell = {args.ell}."
    print(f"{note} Times in seconds, the best of {args.repeats} after {args.warmup} warm-up call(s), the same "
          "for every method; *_speedup = exact KPCA's time (its fastest scikit-learn solver) / the method's, "
          "from this run. Columns: rskpca.evaluation.result_columns.")
    print(format_table(rows, column_order(rows)))
    print(f"\nwrote {write_csv(rows, path, overwrite=args.overwrite)}")
    return 0
