"""gpuplan.to_frame: the tables of a gpuplan document as pandas DataFrames (pandas imported lazily)."""


def _records(rows, **columns):
    # Nested objects flatten to dotted columns ("plan.tp", "band.low"), as pandas.json_normalize does.
    return [dict(columns, **row) for row in rows]


def _tables(document):
    """The document's tables as {name: list of row dicts}, in document order."""
    schema = document.get("schema", "")
    tables = {}
    if schema.startswith("gpuplan.compare/"):
        # Yardsticks of the two systems, and each model's serving frontier on each system in one table.
        tables["yardsticks"] = _records(document.get("yardsticks", []))
        frontier = []
        for model in document.get("models", []):
            inference = model.get("inference") or {}
            for side in ("a", "b"):
                system = document.get(side)
                system = system.get("system") if isinstance(system, dict) else system
                frontier += _records(inference.get("frontier_" + side, []), model=model.get("model"), side=side,
                                     system=system)
        if frontier:
            tables["frontier"] = frontier
        return tables
    for key, value in document.items():  # frontier points (infer --sweep), plans (search: top), rows...
        if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
            tables[key] = _records(value)
    if not tables:  # a point result (infer, train): one row
        tables["result"] = [document]
    return tables


def tables(document):
    """The names of the tables to_frame finds in ``document``."""
    return list(_tables(document))


def to_frame(document, table=None):
    """The table of a gpuplan document as a pandas DataFrame.

    Frontier points (``infer(..., sweep=True)``), plans (``search``), yardsticks and frontiers
    (``compare``), rows of any other list-of-objects field, or one row for a point result. Nested
    fields become dotted columns ("plan.tp", "band.low"). With several tables (compare) and no
    ``table`` named, returns {name: DataFrame}; ``table`` picks one by name.
    """
    if not isinstance(document, dict):
        raise TypeError("to_frame takes a gpuplan result (a dict), got " + type(document).__name__)
    try:
        import pandas
    except ImportError as error:  # pandas is optional: only to_frame needs it
        raise ImportError("gpuplan.to_frame needs pandas (Debian: apt-get install python3-pandas)") from error
    found = _tables(document)
    if table is not None:
        if table not in found:
            from .errors import InputError
            raise InputError("table: one of " + ", ".join(found) + " (got " + repr(table) + ")", "table")
        return pandas.json_normalize(found[table])
    frames = {name: pandas.json_normalize(rows) for name, rows in found.items()}
    return next(iter(frames.values())) if len(frames) == 1 else frames
