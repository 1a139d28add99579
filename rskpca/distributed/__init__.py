"""The exact shadow and RSKPCA on row-chunked dask arrays, by rounds, locally or on a cluster.

Layer 4 of 6 (beside ``bounds``): imports ``rskpca.core`` and ``rskpca.decomposition``; needs Dask.
"""

try:
    import dask.array  # noqa: F401
except ImportError as exc:  # the library must import without the extra
    raise ImportError(
        "rskpca.distributed needs Dask: install the extra with `pip install \"rskpca[dask]\"` "
        "(it pulls in dask[array,distributed])."
    ) from exc

from rskpca.distributed._blocks import as_row_chunked_array, is_dask_collection
from rskpca.distributed._estimator import fit, transform
from rskpca.distributed._shadow import DistributedShadowResult, RoundStats, distributed_shadow

__all__ = ["DistributedShadowResult", "RoundStats", "distributed_shadow", "as_row_chunked_array",
           "is_dask_collection", "fit", "transform"]
