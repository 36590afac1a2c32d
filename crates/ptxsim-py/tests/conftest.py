"""pytest configuration: Triton's FP-fusion default as the corpus generator sets it (and
without Triton 3.9's warning about the default changing)."""

import os

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
