import os
import sys
from pathlib import Path

# tests/reference.py (the literal oracles) is imported as a plain module.
sys.path.insert(0, str(Path(__file__).parent))

#: The paper's data sets (german, pendigits, usps): ../shared/datasets beside the checkout, as on the
#: developers' machines and in CI, or wherever RSKPCA_DATASETS points. Tests that need them skip without.
PAPER_DATASETS = Path(
    os.environ.get("RSKPCA_DATASETS", Path(__file__).resolve().parents[1].parent / "shared" / "datasets")
)
