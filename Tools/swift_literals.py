"""Long texts as Swift string literals in files of at most PART_LINES lines (no Swift file in
Sources/ is over 400 lines): each text is cut into parts, every part a `static let` in an
extension of the type in a file of its own, and the type's property joins them.

Used by Tools/contracts.py (the contract documents, the config schemas) and
Tools/preview_page.py (the browser preview's page)."""
import os

# Lines of a text per Swift file.
PART_LINES = 350


def literal(text):
    """`text` as a raw multi-line literal, with as many `#` as it needs (none of its `\\#...` or
    `\"\"\"#...` may read as an escape or the end). A multi-line literal drops the line break
    before its closing delimiter: the one added here makes the literal exactly `text`."""
    delimiter = "#"
    while '"""' + delimiter in text or "\\" + delimiter in text:
        delimiter += "#"
    return delimiter + '"""\n' + text + '\n"""' + delimiter


def parts(directory, type_name, name, text, header):
    """Files holding `text` in parts (path -> Swift source), and the expression joining them."""
    files = {}
    lines = text.splitlines(keepends=True)
    names = []
    for start in range(0, max(1, len(lines)), PART_LINES):
        part = f"{name}{len(names) + 1}"
        names.append(part)
        chunk = lines[start:start + PART_LINES]
        path = f"{directory}/{type_name}+{part[0].upper()}{part[1:]}.swift"
        files[path] = (
            header
            + f"extension {type_name} {{\n"
            + f"    /// Lines {start + 1} to {start + len(chunk)} of ``{name}``.\n"
            + f"    static let {part} = {literal(''.join(chunk))}\n"
            + "}\n"
        )
    return files, "[" + ", ".join(names) + "].joined()"


def stale(root, directory, type_name, expected):
    """Part files of `type_name` in `directory` that `expected` (paths) no longer has."""
    path = os.path.join(root, directory)
    return [
        f"{directory}/{name}" for name in sorted(os.listdir(path))
        if name.startswith(type_name + "+") and name.endswith(".swift") and f"{directory}/{name}" not in expected
    ]
