"""A custom_dataset as RULER's: keyword arguments in, a mapping of splits out."""


def make(**kwargs):
    rows = []
    for n in kwargs.get("max_seq_lengths", []):
        rows.append({
            "input": f"Say {n} ({kwargs.get('pretrained')}).",
            "outputs": [str(n)],
            "max_length": n,
            "keys": ",".join(kwargs),
        })
    return {"test": rows, "unused": []}
