"""The exceptions gpuplan raises: every failure of a call is a gpuplan.Error.

InputError is bad input (an unknown option, a value out of range, an unknown name): the CLI's exit
code 2. Its ``field`` names the option ("isl", "plan.tp") as the CLI spells it, without dashes.
Error itself is a runtime failure (the CLI's exit code 1). A plan that does not fit is not an error:
its document says so (gpuplan.does_not_fit(result)).
"""


class Error(Exception):
    """A gpuplan call failed (the CLI's exit code 1, or 2 for the InputError subclass)."""

    exit_code = 1


class InputError(Error, ValueError):
    """Bad input: ``field`` names the option or key at fault, the message what is allowed."""

    exit_code = 2

    def __init__(self, message, field=""):
        super().__init__(message)
        self.field = field

    def __reduce__(self):  # picklable across processes with its field
        return (type(self), (str(self), self.field))
