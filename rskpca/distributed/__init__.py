"""The shadow and RSKPCA on row-chunked dask arrays, locally or on a cluster.

Layer 4 of 6 (beside ``bounds``): imports ``rskpca.core``; dask is imported lazily.
"""

from rskpca.distributed._shadow import (  # noqa: F401
    DistributedShadowResult,
    distributed_shadow,
    as_row_chunked_array,
    is_dask_collection,
    earliest_center_within,
)

__all__ = ["DistributedShadowResult", "distributed_shadow", "as_row_chunked_array", "is_dask_collection", "earliest_center_within"]
