"""Every ``st.session_state`` key of the app, in one registry, with the app's shared ranges.

Two kinds of keys:

* :data:`KEYS` - widget keys whose values must survive page switches (with their
  defaults; None: set by the code that owns the widget, e.g. sigma from the data).
  Shared settings have neutral names (``gram_error``, ``sweep_points``, ``run_slow``)
  because several pages read them.
* :data:`APP_KEYS` - values no widget owns (the accepted upload, the data set in
  use, error messages, flags of the shared link), named by the constants below.

Pages never index ``st.session_state`` themselves: they draw widgets with keys from
:data:`KEYS` and call :mod:`rskpca.ui.state` and :mod:`rskpca.ui.tables` for the rest
(``tests/test_app.py`` checks both).
"""

from __future__ import annotations

from rskpca.evaluation.row_cap import DEFAULT_ROW_CAP

__all__ = ["KEYS", "APP_KEYS", "COLUMN_CHOICE_KEYS", "ELL_RANGE", "ELL_STEP", "RANK_RANGE", "DEFAULT_SAMPLE",
           "DEFAULT_ELL", "DEFAULT_RANK", "DEFAULT_MAX_ROWS", "UPLOAD", "NO_LABEL", "LABEL_COLOUR"]

#: The source key of an uploaded file (sample names are the other sources).
UPLOAD = "__upload__"
#: The label selectbox's "no label" choice.
NO_LABEL = "(no label column)"
#: The "Colour rows by" choice that follows the label column, whichever it is (its default).
LABEL_COLOUR = "(the label column)"
DEFAULT_SAMPLE = "two_moons"
DEFAULT_ELL = 4.0
DEFAULT_RANK = 5
#: The ell slider's range: also the range of every curve over ell.
ELL_RANGE = (1.0, 10.0)
ELL_STEP = 0.1
RANK_RANGE = (1, 20)
#: The Bounds page's "measure on at most this many rows" choices (KDE vs ShDE's MMD uses the same).
BOUNDS_ROWS = (250, 500, 1000, 2000, 4000)
#: Speedups: the budgets offered for timing exact KPCA at growing n (seconds of one fit; MB of its n x n matrix).
SPEED_BUDGET_SECONDS = (0.15, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
SPEED_BUDGET_MB = (128, 512, 2048, 8192)
#: The Data page's default row cap: measured, see rskpca.evaluation.row_cap.
DEFAULT_MAX_ROWS = DEFAULT_ROW_CAP

#: Widget keys whose values survive page switches, with their defaults (None: set elsewhere).
KEYS = {
    # the sidebar (every page)
    "source": DEFAULT_SAMPLE,
    "kernel": "gaussian",
    "sigma": None,
    "ell": DEFAULT_ELL,
    "r": DEFAULT_RANK,
    # Data page
    "feature_columns": None,
    "label_column": None,
    # the row charts (Data, Shadow centers, Embeddings): the column they colour by, and the centers toggle
    "colour_column": LABEL_COLOUR,
    "show_centers": True,
    "standardize": False,
    "max_rows": DEFAULT_MAX_ROWS,
    "drop_missing": False,
    "stray_text_missing": False,
    "row_seed": 0,
    # shared by the comparison pages (Embeddings, Speedups, Bounds)
    "gram_error": False,
    "run_slow": False,
    "emb_run_heavy": False,  # Embeddings: fit the baselines predicted slow on all rows anyway
    "embed_all_rows": False,  # Embeddings and Spectral (one setting): embed every row through the centers even if slow
    "sweep_points": 5,
    # page-level choices worth keeping while the user looks elsewhere
    "emb_dims": "2-D",
    "emb_groups": None,
    "speed_groups": None,
    "classifier": "knn",
    "cv_folds": 5,
    "cv_live": False,
    "kde_line_a": None,
    "kde_line_b": None,
    "bounds_max_exact": 500,
    "bounds_measured_curves": False,
    "speed_curves": False,
    "time_randomized": False,
    "speed_budget_s": 0.15,  # exact KPCA at growing n: the most seconds one fit may take
    "speed_budget_mb": 512,  # ... and the most MB its n x n matrix may take
    # Denoise page (the image shape is set per data set by rskpca.ui.denoise.image_shape)
    "dn_height": None,
    "dn_width": None,
    "dn_noise": "gaussian",
    "dn_level": 0.2,
    "dn_preimage": "ridge",
    "dn_preimage_laplacian": "ridge",  # the Laplacian's one choice: a widget of its own keeps dn_preimage
    "dn_alpha": 1e-3,
    "dn_fit_noisy": False,
    "dn_as_images": False,  # Denoise: draw rows that do not look like images as images anyway
    "dn_column_major": False,  # Denoise: each image's pixels stored column by column
    "dn_light_high": False,  # Denoise: high values light (photographs), not dark (ink)
    # Spectral page
    "sp_method": "diffusion",
    "sp_alpha": 1.0,
    "sp_t": 1.0,
    "sp_clusters": None,  # the label's number of classes, else 2 (rskpca.ui.spectral.default_clusters)
    "sp_affinity": "auto",
    "sp_budget": "auto",
}

#: Keys that depend on the columns of the current table (reset when it changes).
COLUMN_CHOICE_KEYS = ("feature_columns", "label_column", "kde_line_a", "kde_line_b", "colour_column")

# App-owned keys (no widget owns them).
UPLOADED = "_upload"                  # {"name", "digest", "bytes"} of the accepted upload
UPLOAD_FILE_ID = "_upload_file_id"    # the uploader's file id already handled (a rerun must not re-read it)
UPLOAD_ERROR = "_upload_error"        # why the last upload was refused
PENDING_SOURCE = "_pending_source"    # the source to select on the next run (the selectbox is already drawn)
DATASET = "_dataset"                  # the Dataset every page shows (the last one that could be prepared)
DATASET_SOURCE = "_dataset_source"    # the source DATASET came from
DATA_ERROR = "_data_error"            # why the selected source cannot be prepared (DATASET is then older)
COLUMNS_FOR = "_columns_for"          # the table the column choices were made for
SIGMA_DIGEST = "_sigma_digest"        # the data set sigma was last set for
SIGMA_SLIDER = "sigma_slider"         # the slider beside the sigma box (a view of "sigma", not persisted)
SIGMA_GOOD = "_sigma_good"            # (data digest, sigma): the last sigma the data could use
RANK_GOOD = "_rank_good"              # the last rank the rank box held
LINK_READ = "_query_loaded"           # the shared link has been applied (once per session)
LINK_SIGMA = "_sigma_from_url"        # sigma came from a link that named the data in use
LINK_PENDING = "_link_pending"        # {"name", "sigma"}: a link's upload that is not here yet
LINK_NOTES = "_url_problems"          # what of the link was not applied, and why
LINK_STANDARDIZE = "_link_standardize"  # the link's "std": to apply once its sample's column choices are set
LINK_TABLE = "_link_table"            # {"data", "values", "selection"}: the link's column choices, for its table
CV_REQUESTED = "_cv_requested"        # Kernelization: settings whose RSKPCA cross-validation was asked for
SELECTION = "_selection"              # the linked selection {"table", "rows", "from", "fresh"} (rskpca.ui.selection)
SELECTION_PENDING = "_selection_pending"  # a link's box or lasso {"table", "from", "regions"}, for its chart
IMAGE_SHAPES = "_dn_shape"            # Denoise: {data digest: (height, width)} the user gave
IMAGE_SHAPE_FOR = "_dn_shape_for"     # Denoise: the data set the shape widgets were set for
GRID_ALLOWED = "_grid_allowed"        # {(digest, sigma, kernel)} whose work over the ell grid the user asked for
TIMING_ROUND = "_timing_round"        # Speedups: how many times the user asked to time again (part of the cache keys)
SHOWN_UPLOAD = "_shown_upload"        # {"name", "digest", "bytes"} of the upload DATASET came from (newer: refused)
KEPT_VALUES = "_kept_widget_values"   # {key: value} of KEYS as of the last full run (see state.persist_widget_values)
KEPT_FRESH = "_kept_from_fragments"   # keys of KEPT_VALUES that a fragment's widgets set since the last full run
SPECTRAL_GOOD = "_spectral_good"      # Spectral: (data digest, request) of the last fit that succeeded
SPECTRAL_ASKED = "_spectral_asked"    # Spectral: {(digest, request)} whose long m x m solve the user asked for
SPECTRAL_AUTO_K = "_spectral_auto_k"  # Spectral: (data digest, k) of the k set from the label's classes
EXACT_ALL_ROWS = "_exact_all_rows"    # Embeddings: {(digest, sigma, kernel, rank): exact KPCA on all rows, matrix-free}
EXACT_ALL_ROWS_RUNNING = "_exact_all_rows_running"  # Embeddings: the matrix-free run in progress (a stop leaves it)
STOPPED_WORK = "_stopped_work"        # tokens of long work the user stopped with a progress bar's Stop button

APP_KEYS = {
    UPLOADED: "the accepted upload", UPLOAD_FILE_ID: "the upload already handled",
    UPLOAD_ERROR: "why the last upload was refused", PENDING_SOURCE: "the source to select next run",
    DATASET: "the data set shown", DATASET_SOURCE: "where the data set shown came from",
    DATA_ERROR: "why the selected source cannot be used", COLUMNS_FOR: "the table the column choices are for",
    SIGMA_DIGEST: "the data sigma was set for", SIGMA_SLIDER: "the sigma slider (a view of sigma)",
    SIGMA_GOOD: "the last usable sigma", RANK_GOOD: "the last rank",
    LINK_READ: "the link was applied", LINK_SIGMA: "sigma came from the link",
    LINK_PENDING: "a link's upload not loaded yet", LINK_NOTES: "link settings not applied",
    LINK_STANDARDIZE: "the link's standardisation, to apply",
    LINK_TABLE: "the link's column choices and selection, for the table it names",
    SELECTION_PENDING: "a link's box or lasso, for the chart it was drawn on",
    CV_REQUESTED: "cross-validations asked for",
    SELECTION: "the rows selected in any chart",
    IMAGE_SHAPES: "image shapes given per data set", IMAGE_SHAPE_FOR: "the data the image shape is for",
    GRID_ALLOWED: "data whose work over the ell grid was asked for",
    TIMING_ROUND: "the Speedups page's timing round",
    SHOWN_UPLOAD: "the upload the data shown came from",
    KEPT_VALUES: "the persistent widgets' values, kept where no widget owns them",
    KEPT_FRESH: "values a fragment's widgets set since the last full run",
    SPECTRAL_GOOD: "the Spectral page's last settings that could be fitted",
    SPECTRAL_ASKED: "the Spectral page's long solves asked for",
    SPECTRAL_AUTO_K: "the clusters k set from the label's classes, and for which data",
    EXACT_ALL_ROWS: "finished runs of exact KPCA on all rows, matrix-free",
    EXACT_ALL_ROWS_RUNNING: "the matrix-free run in progress, or stopped",
    STOPPED_WORK: "long work stopped with its Stop button (not restarted until resumed)",
}
