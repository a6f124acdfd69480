"""The command line every examples/gen_*.py shares."""
import sys


def main(script, examples, test_models, model):
    """script OUTPUT_DIR [MODEL...]: writes OUTPUT_DIR/MODEL.mlir for each MODEL
    (default: the committed examples) with model(name, spec)."""
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    for name in sys.argv[2:] or list(examples):
        spec = examples.get(name) or test_models.get(name)
        if spec is None:
            sys.exit(f"{script}: unknown model '{name}'")
        with open(f"{out_dir}/{name}.mlir", "w") as f:
            f.write(model(name, spec))
