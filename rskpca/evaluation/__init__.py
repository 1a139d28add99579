"""Evaluation: the method registry, fitting and comparing methods, the paper's experiments, benchmarks.

Layer 5 of 6: imports the estimators, bounds and distributed layers; never plotting, ui or Streamlit.
"""
