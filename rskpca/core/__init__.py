"""Core math: kernels, the shadow (Algorithm 2), other reduced-set density estimators, the weighted eigenproblem, metrics.

Layer 1 of 6: imports numpy/scipy/scikit-learn (and numba, for the compiled shadow scan) only,
never another ``rskpca`` subpackage.
"""
