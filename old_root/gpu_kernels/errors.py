"""The one exception a user error becomes: the command line prints it as one line."""


class InputError(Exception):
    """Bad input: a message naming the file, the record and the problem."""

    def __init__(self, problem: str, path: str | None = None, record: str | None = None):
        self.problem = problem
        self.path = path
        self.record = record
        super().__init__(self.line())

    def line(self) -> str:
        """The message as one line: `file: record 'name': problem`."""
        parts = []
        if self.path is not None:
            parts.append(str(self.path))
        if self.record is not None:
            parts.append(f"record '{self.record}'")
        parts.append(self.problem)
        return ": ".join(parts)


def os_error_line(error: OSError) -> str:
    """An operating system error (a full disk, an unwritable path) as one line: `file: problem`."""
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"
