"""A Python world that cannot be imported."""
import scalinglab_no_such_module  # noqa: F401
