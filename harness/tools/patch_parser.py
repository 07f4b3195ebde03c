"""The apply_patch language: parse a patch into file operations and compute new file contents.

    *** Begin Patch
    *** Add File: path          followed by `+` lines (the whole new file)
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       optional, right after Update File
    @@ optional context line     one hunk; a line that locates the change (e.g. `def f():`)
     context / -removed / +added lines
    *** End of File             optional: the hunk's lines end the file
    *** End Patch

Parsing is lenient the way models need: markers may carry surrounding whitespace, a patch wrapped in
a `<<'EOF' ... EOF` heredoc is unwrapped, the first hunk of an update may omit `@@`, blank lines
between operations are skipped. Locating lines tries, in order: exact, trailing whitespace ignored,
surrounding whitespace ignored, typographic punctuation (dashes, curly quotes, odd spaces) folded to
ASCII. One deliberate difference from Codex: a hunk with only `+` lines and an `@@ context` inserts
right after the context line (Codex appends it at the end of the file); without context it appends.

Nothing here touches the filesystem: `apply_hunks(text, hunks)` is a pure function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"

# A Lark grammar of the language, for the freeform (custom) tool spec; the model's output is
# constrained to it. Written for ctxscope from the syntax above.
PATCH_GRAMMAR = r"""
start: begin_patch operation+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

operation: add_file | delete_file | update_file
add_file: "*** Add File: " path LF added_line+
delete_file: "*** Delete File: " path LF
update_file: "*** Update File: " path LF move_to? hunk_line+
move_to: "*** Move to: " path LF

hunk_line: hunk_header | diff_line | end_of_file
hunk_header: "@@" LF | "@@ " TEXT LF
diff_line: DIFF_MARK TEXT? LF
end_of_file: "*** End of File" LF
added_line: "+" TEXT? LF

path: TEXT
DIFF_MARK: /[ +-]/
TEXT: /[^\r\n]+/
LF: "\n"
""".strip()


class PatchSyntaxError(ValueError):
    """The patch text is not in the apply_patch language; the message names the line."""


class HunkMismatch(ValueError):
    """A hunk's lines were not found in the file; the message names the file and the missing line."""


@dataclass(frozen=True)
class Hunk:
    """One `@@` block of an update: its lines as (mark, text) with mark ' ', '-' or '+'."""

    context: str | None
    lines: tuple[tuple[str, str], ...]
    at_eof: bool = False

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects in the file."""
        return [t for m, t in self.lines if m != "+"]

    @property
    def new(self) -> list[str]:
        """The lines the hunk leaves in the file."""
        return [t for m, t in self.lines if m != "-"]

    def without_last_old_line(self) -> Hunk:
        """The hunk minus its last expected line (used when that line is blank)."""
        last = max(i for i, (m, _) in enumerate(self.lines) if m != "+")
        return Hunk(self.context, self.lines[:last] + self.lines[last + 1 :], self.at_eof)

    def replacement(self, found: list[str]) -> list[str]:
        """The new lines, keeping the file's own text for context lines (they may have matched loosely)."""
        out: list[str] = []
        k = 0
        for mark, text in self.lines:
            if mark == " ":
                out.append(found[k])
                k += 1
            elif mark == "-":
                k += 1
            else:
                out.append(text)
        return out


@dataclass(frozen=True)
class AddFile:
    path: str
    contents: str


@dataclass(frozen=True)
class DeleteFile:
    path: str


@dataclass(frozen=True)
class UpdateFile:
    path: str
    move_to: str | None
    hunks: list[Hunk] = field(default_factory=list)


Operation = AddFile | DeleteFile | UpdateFile


def _unwrap(text: str) -> list[str]:
    lines = text.strip().splitlines()
    if (
        len(lines) >= 4
        and lines[0].strip() in ("<<EOF", "<<'EOF'", '<<"EOF"')
        and lines[-1].strip().endswith("EOF")
        and lines[1].strip() == BEGIN
    ):
        lines = lines[1:-1]
    if not lines or lines[0].strip() != BEGIN:
        raise PatchSyntaxError(f"the first line of the patch must be '{BEGIN}'")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchSyntaxError(f"the last line of the patch must be '{END}'")
    return lines


def _path_after(marker: str, line: str, number: int) -> str:
    path = line.strip()[len(marker.strip()) :].strip()
    if not path:
        raise PatchSyntaxError(f"line {number}: '{marker.strip()}' needs a path")
    return path


def _parse_hunk(lines: list[str], i: int, first: bool) -> tuple[Hunk, int]:
    """Parse one hunk starting at lines[i]; return it and the index after it."""
    start_number = i + 1
    head = lines[i].strip()
    context: str | None = None
    if head == "@@":
        i += 1
    elif head.startswith("@@ "):
        context = lines[i].strip()[3:]
        i += 1
    elif not first:
        raise PatchSyntaxError(f"line {start_number}: expected a '@@' hunk header, got {lines[i]!r}")
    body: list[tuple[str, str]] = []
    at_eof = False
    while i < len(lines):
        line = lines[i]
        if line.strip() == END_OF_FILE:
            at_eof = True
            i += 1
            break
        if line.strip().startswith((ADD.strip(), DELETE.strip(), UPDATE.strip())):
            break  # a padded file operation marker, not a context line
        if line == "":
            body.append((" ", ""))  # an empty line stands for an empty context line
        elif line[0] in " -+":
            body.append((line[0], line[1:]))
        else:
            break  # the next hunk header or file operation
        i += 1
    if not body:
        raise PatchSyntaxError(
            f"line {start_number}: the hunk has no lines; each line must start with ' ' (context), "
            "'-' (remove) or '+' (add)"
        )
    return Hunk(context, tuple(body), at_eof), i


def _parse_update(lines: list[str], i: int, stop: int) -> tuple[UpdateFile, int]:
    path = _path_after(UPDATE, lines[i], i + 1)
    number = i + 1
    i += 1
    move_to = None
    if i < stop and lines[i].strip().startswith(MOVE.strip()):
        move_to = _path_after(MOVE, lines[i], i + 1)
        i += 1
    hunks: list[Hunk] = []
    while i < stop:
        if lines[i].strip() == "":
            i += 1
            continue
        if lines[i].strip().startswith("***"):
            break
        hunk, i = _parse_hunk(lines[:stop], i, first=not hunks)
        hunks.append(hunk)
    if not hunks:
        raise PatchSyntaxError(f"line {number}: '*** Update File: {path}' has no hunks")
    return UpdateFile(path, move_to, hunks), i


def parse_patch(text: str) -> list[Operation]:
    """Parse patch text into operations, or raise `PatchSyntaxError`."""
    lines = _unwrap(text)
    stop = len(lines) - 1  # the End Patch line
    ops: list[Operation] = []
    i = 1
    while i < stop:
        stripped = lines[i].strip()
        if stripped == "":
            i += 1
        elif stripped.startswith(ADD.strip()):
            path = _path_after(ADD, lines[i], i + 1)
            i += 1
            body: list[str] = []
            while i < stop and lines[i].startswith("+"):
                body.append(lines[i][1:])
                i += 1
            ops.append(AddFile(path, "".join(b + "\n" for b in body)))
        elif stripped.startswith(DELETE.strip()):
            ops.append(DeleteFile(_path_after(DELETE, lines[i], i + 1)))
            i += 1
        elif stripped.startswith(UPDATE.strip()):
            op, i = _parse_update(lines, i, stop)
            ops.append(op)
        else:
            raise PatchSyntaxError(
                f"line {i + 1}: {lines[i]!r} is not a file operation; expected '{ADD}<path>', "
                f"'{DELETE}<path>' or '{UPDATE}<path>'"
            )
    if not ops:
        raise PatchSyntaxError("the patch contains no file operations")
    return ops


_FOLD = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)
_LEVELS = (
    lambda s: s,
    str.rstrip,
    str.strip,
    lambda s: s.strip().translate(_FOLD),
)


def seek(lines: list[str], pattern: list[str], start: int, at_eof: bool) -> int | None:
    """Index where `pattern` occurs in `lines` at or after `start`, trying looser matches in turn.

    With `at_eof` the position that ends the file is tried first.
    """
    if not pattern:
        return start
    last = len(lines) - len(pattern)
    if last < 0:
        return None
    for norm in _LEVELS:
        want = [norm(p) for p in pattern]
        candidates = range(start, last + 1)
        if at_eof and last >= start:
            candidates = [last, *range(start, last)]  # type: ignore[assignment]
        for i in candidates:
            if all(norm(lines[i + k]) == want[k] for k in range(len(pattern))):
                return i
    return None


def apply_hunks(text: str, hunks: list[Hunk], path: str) -> str:
    """The new contents of a file after its hunks; raise `HunkMismatch` naming what was not found."""
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(eol)
    if lines and lines[-1] == "":
        lines.pop()  # the final newline, not an empty last line
    edits: list[tuple[int, int, list[str]]] = []
    pos = 0
    for original_hunk in hunks:
        hunk = original_hunk
        if hunk.context is not None:
            found = seek(lines, [hunk.context], pos, False)
            if found is None:
                raise HunkMismatch(f"{path}: context line not found: {hunk.context!r}")
            pos = found + 1
        if not hunk.old:
            at = pos if hunk.context is not None else len(lines)
            edits.append((at, 0, hunk.new))
            continue
        found = seek(lines, hunk.old, pos, hunk.at_eof)
        if found is None and hunk.old[-1].strip() == "" and len(hunk.old) > 1:
            # A trailing blank context line often stands for the file's final newline.
            hunk = hunk.without_last_old_line()
            found = seek(lines, hunk.old, pos, hunk.at_eof)
        if found is None:
            hunk = original_hunk
            shown = "\n".join(hunk.old[:20]) + ("\n..." if len(hunk.old) > 20 else "")
            first = next((line for line in hunk.old if line.strip()), hunk.old[0])
            raise HunkMismatch(
                f"{path}: could not find the lines to change (first line {first!r} not found "
                f"in that position); expected:\n{shown}"
            )
        n_old = len(hunk.old)
        edits.append((found, n_old, hunk.replacement(lines[found : found + n_old])))
        pos = found + n_old
    # Back to front so earlier indices stay valid; at equal indices the later hunk goes first.
    for at, n_old, new in reversed(sorted(edits, key=lambda e: e[0])):
        lines[at : at + n_old] = new
    return eol.join(lines) + eol if lines else ""
