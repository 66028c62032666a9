"""The tolerance golden regeneration checks allow, shared by the parity scripts."""

# A regenerated golden may differ from the committed one by the reference's
# own float32 kernels: torch picks different matmul kernels on AVX2 and
# AVX-512 machines (measured: up to 5.1e-6 on a log-prob sum). The check
# fails above REF_TOL, 5x below the 1e-4 the Go tests hold goeval to.
REF_TOL = 2e-5


def same_within(a, b, tol=REF_TOL):
    """True when a and b have the same structure, equal non-floats and
    floats within tol."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= tol
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_within(a[k], b[k], tol) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_within(x, y, tol) for x, y in zip(a, b))
    return a == b
