"""Saving a fitted model to a file and loading it back: skops (safe) or joblib (pickle).

Two formats, chosen by the file's extension:

* ``.skops`` (needs ``pip install rskpca[skops]``): loading never runs code from the
  file. :func:`load_model` asks skops which types the file would build beyond skops'
  defaults (numpy, builtins, scikit-learn's estimators) and refuses any that are not on
  :data:`TRUSTED_TYPES`, naming them in the error.
* ``.joblib`` / ``.pkl``: pickle. Loading a pickle **executes whatever code it contains**,
  so load only model files you made yourself (or that come from someone you trust);
  the type check below runs only after the file has been unpickled, too late to stop it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MODEL_SUFFIXES", "TRUSTED_TYPES", "save_model", "load_model", "model_format", "check_can_save"]

#: File extensions and the format each means.
MODEL_SUFFIXES = {".skops": "skops", ".joblib": "joblib", ".pkl": "joblib", ".pickle": "joblib"}

#: Types a ``.skops`` model file may contain beyond skops' own defaults (numpy arrays, builtins):
#: what ``rskpca embed --save`` writes, nothing else.
TRUSTED_TYPES = (
    "rskpca.decomposition._reduced_set.ReducedSetKPCA",
    "rskpca.decomposition._spectral.ReducedSetDiffusionMap",
    "rskpca.decomposition._spectral.ReducedSetSpectralEmbedding",
    # the shadow state a fitted ReducedSetKPCA keeps so that partial_fit can go on (arrays and numbers)
    "rskpca.core.shadow._streaming.StreamingShadow",
    "sklearn.pipeline.Pipeline",
    "sklearn.preprocessing._data.StandardScaler",
)


def model_format(path) -> str:
    """``"skops"`` or ``"joblib"`` from the file extension; a clear error for anything else.

    >>> model_format("m.skops"), model_format("m.joblib")
    ('skops', 'joblib')
    """
    suffix = Path(path).suffix.lower()
    if suffix not in MODEL_SUFFIXES:
        raise ValueError(f"cannot tell the model format of {str(path)!r}: name the file *.skops (safe to load) "
                         "or *.joblib (pickle: load only files you made).")
    return MODEL_SUFFIXES[suffix]


def check_can_save(path) -> str:
    """The format :func:`save_model` will write ``path`` in, checked before any work is done.

    A command that saves its model at the end calls this first, so that an unknown extension,
    a missing skops (for ``*.skops``) or a missing folder stops it before the fit and before
    any output is written, not after them.

    >>> import os, tempfile
    >>> check_can_save(os.path.join(tempfile.mkdtemp(), "m.joblib"))
    'joblib'
    """
    fmt = model_format(path)
    if fmt == "skops":
        _skops_io()
    folder = Path(path).parent
    if not folder.is_dir():
        raise ValueError(f"cannot save the model to {str(path)!r}: the folder {str(folder)!r} does not exist.")
    return fmt


def _skops_io():
    try:
        import skops.io as sio
    except ImportError:
        raise ValueError("saving or loading *.skops needs skops: pip install 'rskpca[skops]' "
                         "(or use a *.joblib file, which only you should load).") from None
    return sio


def save_model(model, path) -> Path:
    """Write ``model`` to ``path`` in the format its extension names; returns the path.

    >>> import os, tempfile, numpy as np
    >>> from rskpca import ReducedSetKPCA
    >>> est = ReducedSetKPCA(n_components=2, sigma=2.0).fit(np.random.default_rng(0).normal(size=(50, 3)))
    >>> path = save_model(est, os.path.join(tempfile.mkdtemp(), "m.joblib"))
    >>> load_model(path).transform(np.zeros((1, 3))).shape
    (1, 2)
    """
    path = Path(path)
    fmt = model_format(path)
    if fmt == "skops":
        _skops_io().dump(model, path)
    else:
        import joblib

        joblib.dump(model, path)
    return path


def load_model(path):
    """Read a model written by :func:`save_model`.

    A ``.skops`` file is checked before anything is built: a type outside
    :data:`TRUSTED_TYPES` (and skops' defaults) is refused by name. A ``.joblib``
    file is unpickled, which runs any code in it: load only files you made.

    Raises
    ------
    ValueError
        Missing or unreadable file, an untrusted type, or an object that is not a
        fitted model with ``transform``.
    """
    path = Path(path)
    fmt = model_format(path)
    if not path.is_file():
        raise ValueError(f"no model file at {str(path)!r}; write one with rskpca embed ... --save {path.name}.")
    try:
        if fmt == "skops":
            sio = _skops_io()
            untrusted = [t for t in sio.get_untrusted_types(file=path) if t not in TRUSTED_TYPES]
            if untrusted:
                raise ValueError(f"{path.name} contains types this command does not trust: {untrusted}; "
                                 "it was not written by rskpca embed --save, so it is not loaded.")
            model = sio.load(path, trusted=list(TRUSTED_TYPES))
        else:
            import joblib

            model = joblib.load(path)
    except ValueError:
        raise
    except Exception as exc:  # truncated or foreign files raise many types (EOFError, KeyError, zipfile errors)
        raise ValueError(f"{path.name} is not a readable {fmt} model file ({type(exc).__name__}: {exc}).") from None
    if not hasattr(model, "transform") or not hasattr(model, "n_features_in_"):
        raise ValueError(f"{path.name} holds a {type(model).__name__}, not a fitted model that transforms "
                         "data; write one with rskpca embed ... --save.")
    return model
