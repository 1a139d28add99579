"""Data in: safe readers for user files (CSV/TSV/Parquet/NPY), bundled samples, cleaning into a float matrix.

Layer 1 of 6 (beside ``core``): imports numpy/pandas only, never another ``rskpca`` subpackage.
"""
