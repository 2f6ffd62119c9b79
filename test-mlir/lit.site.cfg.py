# Makes test-mlir/ a lit suite whose configuration is the repository's
# lit.cfg, so `lit test-mlir` and `lit test-mlir/<file>.mlir` both work.
import os

lit_config.load_config(
    config, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lit.cfg")
)
