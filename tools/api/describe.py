#!/usr/bin/env python3
"""Writes api.json, the machine-readable description of SignalKit's C API,
from include/signalkit.h, signalkit_test.h and signalkit_ffi.h.

The prototypes are the compiler's (gcc -aux-info, as mk/abi.mk's twin uses
them), the parameter names and everything else the headers' own text says:
the doc comment before each declaration (@brief, or the first paragraph of
a comment without one; the details; @param and its direction; the SK_ERR_*
codes @return names; @see; "@par Thread safety"), a value's or field's
comment before it or after it (/**< */), and the Doxygen group it sits in;
each library's soname from the build (Makefile, mk/ffi.mk). Sizes,
offsets and the values of enumerators and constants come from a small C
program generated here and compiled with the same compiler, so they are the
ABI of the machine the build runs on. Each pointer parameter's ownership
and nullability, and a pointer result's ownership and nullability, come
from the standard phrases of its text (OWNERSHIP_PHRASES,
RETURN_NULL_PHRASES; the conventions where a parameter's says nothing of
NULL); the links between a pointer and its length from the length's text
(LENGTH_OF); each handle's release and retain functions from their
prototypes; the callbacks each ctx goes to from the ctx's text; who
closes a file descriptor from its text (FD_PHRASES); whether a handle
handed back keeps a handle argument alive (KEPT_ALIVE_PHRASES). The format is docs/api-json.md. It fails when a text
would keep a Doxygen command other than @ref, when a pointer's text
says no ownership, or two, and when a pointer result's says not whether it
may be NULL, or a length parameter's not what it counts, naming the
function and the parameter, on a handle without a release function, and
on a callback that no ctx's text names, a descriptor whose text says
not who closes it, or a subject's handle that says not whether the signal
made from it keeps it alive.

Usage: describe.py OUTPUT.json [GCC]   (run from the repository's root; gcc by default: -aux-info is gcc's)
Python 3 standard library only.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HEADERS = (  # header, library, in include order
    ("signalkit.h", "libsignalkit"),
    ("signalkit_test.h", "libsignalkit"),
    ("signalkit_ffi.h", "libsignalkit-ffi"),
)
# Each library: where the build sets its soname's major (file, variable:
# the soname is LIBRARY.so.MAJOR), and the function whose message describes
# its functions' last failure on the calling thread.
LIBRARIES = {
    "libsignalkit": ("Makefile", "SOVERSION", "sk_last_error_message"),
    "libsignalkit-ffi": ("mk/ffi.mk", "FFI_SOVERSION", "sk_ffi_last_error_message"),
}
FORMAT = 1
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def fail(message):
    sys.exit(f"tools/api/describe.py: {message}")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def comment_body(comment):
    """The text of a /** ... */ comment without its frame and leading stars."""
    body = comment[3:-2]
    lines = [re.sub(r"^\s*\*(?!/) ?", "", line) for line in body.split("\n")]
    return "\n".join(lines).strip()


def squash(text):
    return " ".join(text.split())


# The block commands that start a part of a comment (its text runs to the
# next one); @ref, the one inline command the headers use, stays in the text.
TAG = (r"(?m)(?:^|(?<=\s))(@(?:brief|details|returns?|retval|par|see|sa|note|warning|since|deprecated|ingroup|"
       r"defgroup|addtogroup|name|file|mainpage|section|pre|post|todo)\b|@param(?:\[[a-z, ]+\])?|@[{}])")
# A Doxygen command left in a text of api.json: any @word but @ref.
STRAY_TAG = re.compile(r"(?<![\w@`])@(?!ref\b)(?:[A-Za-z]+|[{}])")


def paragraphs(text):
    """`text` as paragraphs: each squashed to one line, separated by a blank
    line, a list item ("- ") starting a line of its own, a @verbatim or
    @code block kept as written (without those commands)."""
    blocks = re.split(r"(?s)@(?:verbatim|code)\b\n?(.*?)\n?[ \t]*@end(?:verbatim|code)\b", text)
    out = []
    for number, block in enumerate(blocks):
        if number % 2:
            out.append(block.rstrip())
            continue
        for paragraph in re.split(r"\n\s*\n", block):
            items = re.split(r"(?m)^\s*(?=- )", paragraph)
            lines = [squash(item) for item in items if item.strip()]
            if lines:
                out.append("\n".join(lines))
    return "\n\n".join(out)


def parse_doc(comment):
    """@brief (or, without one, the first paragraph), the details (the rest
    of that part, then each @par but "Thread safety" as "Title: text"),
    @param (name, direction, text), @return, @see, and the "Thread safety"
    paragraph."""
    doc = {"brief": "", "details": "", "params": {}, "return": "", "see": [], "thread_safety": ""}
    pars = []
    # Tags start a paragraph of their own; their text runs to the next tag.
    parts = re.split(TAG, comment)
    first, _, rest = parts[0].strip().partition("\n\n")
    details = [parts[0]]
    for tag, text in zip(parts[1::2], parts[2::2]):
        if tag == "@brief":
            brief, _, more = text.strip().partition("\n\n")
            doc["brief"] = squash(brief)
            details = [more] + details
        elif tag.startswith("@param"):
            match = re.match(r"\s*(" + IDENT + r")\s*(.*)", text, re.S)
            if match:
                direction = re.search(r"\[([a-z, ]+)\]", tag)
                doc["params"][match.group(1)] = (direction.group(1).replace(" ", "") if direction else None,
                                                 squash(match.group(2)))
        elif tag in ("@return", "@returns", "@retval"):
            doc["return"] = squash(text)
        elif tag in ("@see", "@sa"):
            doc["see"].append(squash(text))
        elif tag == "@par":
            title, _, body = text.partition("\n")
            if title.strip() == "Thread safety":
                doc["thread_safety"] = squash(body)
            else:
                pars.append(f"{squash(title)}: {squash(body)}" if title.strip() else squash(body))
    if not doc["brief"] and not re.search(r"@(?:defgroup|file|mainpage|name)\b", comment):
        doc["brief"] = squash(first)
        details = [rest]
    doc["details"] = "\n\n".join(part for part in [paragraphs("\n\n".join(details))] + pars if part)
    return doc


def direction_of(name, tagged):
    """A parameter's direction: its @param[...] tag's, else out for an `out`
    or `out_` name, else in."""
    if tagged:
        return {"in,out": "inout", "out,in": "inout"}.get(tagged, tagged)
    if name and (name == "out" or name.startswith("out_")):
        return "out"
    return "in"


def doc_comments(text):
    """Every /** */ comment: (start, end, body)."""
    return [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"/\*\*(?!/).*?\*/", text, re.S)]


def doc_before(text, comments, start):
    """The doc comment that ends right before `start` (only blanks between):
    not a trailing /**< ... */ (the item's before), nor one that only opens
    or closes a group."""
    best = None
    for c_start, c_end, comment in comments:
        if c_end <= start and text[c_end:start].strip() == "":
            best = comment
    if best is None or best.startswith("/**<") or comment_body(best) in ("@{", "@}"):
        return ""
    return comment_body(best)


def doc_after(text, comments, end):
    """A trailing /**< ... */ comment on the same line after `end`."""
    for c_start, c_end, comment in comments:
        if c_start >= end and text[end:c_start].strip() in ("", ",", ";") and comment.startswith("/**<"):
            return squash(comment_body("/**" + comment[4:]))
    return ""


def brief_of(text, comments, start, end):
    """The brief of a value, field or handle: its trailing /**< ... */
    comment's, else the doc comment before it."""
    return doc_after(text, comments, end).replace("@brief ", "") or \
        parse_doc(doc_before(text, comments, start))["brief"]


def main_page_sections(text, header):
    """The sections of a header's @mainpage comment (signalkit.h's
    "conventions", the rules every function follows, which the other texts
    name with @ref): name, title, header and text (its paragraphs and list
    items, as a function's details)."""
    sections = []
    for match in re.finditer(r"/\*\*(?!/).*?\*/", text, re.S):
        body = comment_body(match.group(0))
        if "@mainpage" not in body:
            continue
        for part in re.split(r"(?m)^@section\s+", body)[1:]:
            name, _, rest = part.partition(" ")
            title, _, content = rest.partition("\n")
            sections.append({"name": name.strip(), "title": title.strip(), "header": header,
                             "text": paragraphs(content)})
    return sections


def groups_by_line(text, header):
    """(groups, group of each line): @defgroup NAME Title ... @{ opens,
    /** @} */ closes."""
    groups, stack, events = [], [], []
    for match in re.finditer(r"/\*\*(?!/).*?\*/", text, re.S):
        body = comment_body(match.group(0))
        defined = re.search(r"@defgroup\s+(" + IDENT + r")\s+(.*)", body)
        if defined and "@{" in body:
            brief = re.search(r"@brief\s+(.*?)(?:\n\s*\n|\n\s*@|$)", body, re.S)
            errors = re.search(r"@par Errors[^\n]*\n(.*?)(?:\n\s*\n|@par|$)", body, re.S)
            # The details as a function's: the @defgroup line is no text.
            doc = parse_doc(re.sub(r"@defgroup[^\n]*", "", body))
            groups.append({"name": defined.group(1), "title": defined.group(2).strip(), "header": header,
                           "brief": squash(brief.group(1)) if brief else "", "details": doc["details"],
                           "errors": codes(errors.group(1)) if errors else []})
            events.append((line_of(text, match.start()), "open", defined.group(1)))
        elif body.strip() == "@}":
            events.append((line_of(text, match.start()), "close", None))
    lines = text.count("\n") + 2
    current = [None] * lines
    events.sort(key=lambda event: event[0])
    index = 0
    for number in range(1, lines):
        while index < len(events) and events[index][0] == number:
            kind, name = events[index][1:]
            if kind == "open":
                stack.append(name)
            elif stack:
                stack.pop()
            index += 1
        current[number] = stack[-1] if stack else None
    return groups, current


def codes(text):
    """The SK_ERR_* names in `text`, each once, in order."""
    found = []
    for code in re.findall(r"\bSK_ERR_[A-Z_]+\b", text):
        if code not in found:
            found.append(code)
    return found


def split_params(text):
    """Top-level comma split of a parameter list."""
    params, depth, piece = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            params.append(piece.strip())
            piece = ""
        else:
            piece += char
    if piece.strip():
        params.append(piece.strip())
    return [] if params == ["void"] else params


def normalize_type(text):
    text = squash(text)
    text = re.sub(r"\s*\*\s*", " *", text).replace("* *", "**").replace("* *", "**")
    text = re.sub(r"\bunsigned int\b", "unsigned", re.sub(r"\b_Bool\b", "bool", text))
    text = re.sub(r"\blong int\b", "long", text)
    text = text.replace("( *)", "(*)").replace(") (", ")(")
    return text.strip()


def param_name_and_type(declaration):
    pointer = re.match(r"(.*?)\(\s*\*\s*(" + IDENT + r")\s*\)\s*(\(.*\))\s*$", declaration, re.S)
    if pointer:  # a function pointer written out: void (*action)(void *ctx)
        return pointer.group(2), normalize_type(f"{pointer.group(1)}(*){pointer.group(3)}")
    match = re.match(r"(.*?)(" + IDENT + r")\s*$", declaration, re.S)
    if not match or not match.group(1).strip():
        return None, normalize_type(declaration)
    return match.group(2), normalize_type(match.group(1))


def aux_prototypes(cc, workdir):
    """name -> (header, line, return type, [parameter types]) from gcc -aux-info."""
    aux = os.path.join(workdir, "api.aux")
    source = "#define SK_NO_INLINE_ACCESSORS\n" + "".join(f'#include "{h}"\n' for h, _ in HEADERS)
    subprocess.run([cc, "-std=c99", "-Iinclude", "-fsyntax-only", "-aux-info", aux, "-x", "c", "-"],
                   input=source.encode(), check=True)
    found = {}
    pattern = re.compile(r"^/\* include/(" + "|".join(re.escape(h) for h, _ in HEADERS) +
                         r"):(\d+):NC \*/ extern (.*?)\b(sk_[a-z0-9_]+) \((.*)\);$")
    for line in read(aux).splitlines():
        match = pattern.match(line)
        if match:
            header, number, result, name, params = match.groups()
            found[name] = (header, int(number), normalize_type(result), [normalize_type(p) for p in split_params(params)])
        elif re.match(r"^/\* include/", line) and " extern " in line:
            fail(f"a prototype that this script cannot read: {line}")
    return found


def declaration_at(text, line):
    """The text of the declaration starting at `line`, to its ';'."""
    start = sum(len(l) + 1 for l in text.split("\n")[:line - 1])
    end = text.index(";", start)
    return start, text[start:end]


def describe(cc):
    texts = {header: read(os.path.join("include", header)) for header, _ in HEADERS}
    library_of = dict(HEADERS)
    api = {"format": FORMAT, "version": None, "headers": [], "sections": [], "groups": [], "constants": [],
           "enums": [], "handles": [], "structs": [], "callbacks": [], "functions": []}
    group_lines = {}
    for header, library in HEADERS:
        api["sections"].extend(main_page_sections(texts[header], header))
        groups, current = groups_by_line(texts[header], header)
        api["groups"].extend(groups)
        group_lines[header] = current
        api["headers"].append({"name": header, "library": library, "soname": soname(library),
                               "last_error": LIBRARIES[library][2]})

    with tempfile.TemporaryDirectory() as workdir:
        prototypes = aux_prototypes(cc, workdir)
        for header, _ in HEADERS:
            text = texts[header]
            comments = doc_comments(text)
            group_at = group_lines[header]

            def where(offset, header=header, text=text, group_at=group_at):
                line = line_of(text, offset)
                return {"header": header, "line": line, "group": group_at[line]}

            for match in re.finditer(r"(?m)^#define (SK_[A-Z0-9_]+) +([^\n]+)$", text):
                if "(" in match.group(1) or match.group(0).startswith("#define SK_VERSION_AT_LEAST"):
                    continue
                api["constants"].append({"name": match.group(1), **where(match.start()),
                                         "brief": parse_doc(doc_before(text, comments, match.start()))["brief"]})
            for match in re.finditer(r"(?m)^typedef struct (" + IDENT + r") (" + IDENT + r");", text):
                api["handles"].append({"name": match.group(2), **where(match.start()),
                                       "brief": brief_of(text, comments, match.start(), match.end()),
                                       "details": parse_doc(doc_before(text, comments, match.start()))["details"]})
            for match in re.finditer(r"(?m)^typedef enum (" + IDENT + r") \{(.*?)\} (" + IDENT + r");", text, re.S):
                values = []
                body_start = match.start(2)
                for item in re.finditer(r"(SK_[A-Z0-9_]+)\s*=\s*(-?\d+)\s*,?", match.group(2)):
                    values.append({"name": item.group(1), "brief": brief_of(text, comments, body_start + item.start(),
                                                                            body_start + item.end(2))})
                doc = parse_doc(doc_before(text, comments, match.start()))
                api["enums"].append({"name": match.group(3), **where(match.start()),
                                     "brief": doc["brief"], "details": doc["details"], "values": values})
            for match in re.finditer(r"(?m)^typedef struct (" + IDENT + r") \{(.*?)\n\} (" + IDENT + r");", text, re.S):
                doc = parse_doc(doc_before(text, comments, match.start()))
                api["structs"].append({"name": match.group(3), **where(match.start()),
                                       "brief": doc["brief"], "details": doc["details"],
                                       "fields": struct_fields(match.group(2), text, comments, match.start(2))})
            for match in re.finditer(r"(?m)^typedef ([^;(]*?)\(\*(" + IDENT + r")\)\((.*?)\);", text, re.S):
                doc = parse_doc(doc_before(text, comments, match.start()))
                params = []
                for declaration in split_params(match.group(3)):
                    name, type_ = param_name_and_type(declaration)
                    tagged, text_of = doc["params"].get(name, (None, ""))
                    params.append({"name": name, "type": type_, "direction": direction_of(name, tagged),
                                   "doc": text_of})
                api["callbacks"].append({"name": match.group(2), **where(match.start()), "brief": doc["brief"],
                                         "details": doc["details"], "returns": normalize_type(match.group(1)),
                                         "params": params, "return_doc": doc["return"]})

        for name, (header, line, result, types) in prototypes.items():
            text = texts[header]
            start, declaration = declaration_at(text, line)
            if name not in declaration:
                fail(f"include/{header}:{line}: expected the declaration of {name} there")
            inner = declaration[declaration.index("(", declaration.index(name)) + 1:declaration.rindex(")")]
            pieces = split_params(inner)
            if len(pieces) != len(types):
                fail(f"include/{header}:{line}: {name}: {len(pieces)} parameters in the text, {len(types)} for gcc")
            comment = doc_before(text, doc_comments(text), start)
            doc = parse_doc(comment)
            # A function declared inside another group's block (after the
            # types it takes) names its own with @ingroup, as Doxygen reads it.
            ingroup = re.search(r"@ingroup\s+(" + IDENT + ")", comment)
            params = []
            for piece, type_ in zip(pieces, types):
                param_name, _ = param_name_and_type(piece)
                tagged, text_of = doc["params"].get(param_name, (None, ""))
                params.append({"name": param_name, "type": type_, "direction": direction_of(param_name, tagged),
                               "doc": text_of})
            errors = codes(doc["return"])
            api["functions"].append({"name": name, "header": header, "library": library_of[header], "line": line,
                                     "group": ingroup.group(1) if ingroup else group_lines[header][line],
                                     "brief": doc["brief"], "details": doc["details"], "returns": result,
                                     "params": params, "errors": errors, "return_doc": doc["return"],
                                     "see": doc["see"], "thread_safety": doc["thread_safety"]})
        resolve_errors(api)
        pointer_fields(api)
        length_links(api)
        handle_lifetimes(api)
        context_links(api)
        descriptors(api)
        kept_alive(api)
        layout(cc, workdir, api)
    majors = {c["name"]: c.get("value") for c in api["constants"]}
    api["version"] = f'{majors["SK_VERSION_MAJOR"]}.{majors["SK_VERSION_MINOR"]}.{majors["SK_VERSION_PATCH"]}'
    check_text(api)
    return api


# Ownership and nullability of pointers (docs/api-json.md, "Ownership and NULL"),
# read from the standard phrases of the @param and @return texts. Each
# phrase gives one word of the closed set OWNERSHIP; a phrase matched
# blanks its words for the ones after it (so "Borrowed (copied)" is copied,
# not also borrowed). "borrowed" said of what an out parameter receives, or
# of what a function returns, is lent.
OWNERSHIP = ("borrowed", "copied", "consumed", "returned", "lent", "written", "context", "none")
OWNERSHIP_PHRASES = (
    ("copied", r"\bborrowed \(copied\b|\bcopied\b"),
    ("consumed", r"\bconsumed\b"),
    ("returned", r"\+1\b|\brelease it with\b"),
    ("context", r"\bpassed to\b|`ctx`|\bcontext\b|\buser pointer\b"),
    ("lent", r"\bowned by the library\b"),
    ("borrowed", r"\bborrowed\b"),
    ("written", r"\bnothing to release\b"),
)
OWNERSHIP_HINT = ("borrowed \"Borrowed\"; copied \"Borrowed (copied)\" or \"Copied\"; consumed \"consumed\"; "
                  "returned \"(+1)\" or \"release it with\"; lent \"borrowed\" (of what an out parameter "
                  "receives) or \"owned by the library\"; written \"nothing to release\" (or \"Receives\" of plain "
                  "data); context \"Passed to `fn` and `release`\"")
# What an out parameter receives when its text says only "Receives ...": plain
# data written into the caller's memory (a count, a flag, a descriptor's
# number, characters, a user pointer); never a handle or a value, whose text
# must say who owns them.
PLAIN_RECEIVED = r"(?:const )?(?:bool|char|int|unsigned|size_t|u?int(?:8|16|32|64)_t|double|float|void \*)"
NULLABLE_PHRASES = (
    (True, r"\bmay be NULL\b|\bNULL is (?:a no-op|ignored)\b|\bNULL(?: \([^)]*\))? is accepted\b|"
           r"\bNULL and nil are no-ops\b|\bpass NULL\b"),
    (False, r"\brequired\b"),
)
assert {word for word, _ in OWNERSHIP_PHRASES} <= set(OWNERSHIP)
# Where a text refers to another function's parameter of the same name.
AS_FOR = r"\bas for (sk_[a-z0-9_]+)\(\)"
# Whether a pointer result may be NULL, from its @return: "never NULL", or
# NULL as one of the results ("or NULL", "NULL when ...", "; NULL for ...",
# "NULL means ...").
RETURN_NULL_PHRASES = (
    (False, r"\bnever NULL\b"),
    (True, r"\bor NULL\b|\bNULL (?:when|for|if|on|means)\b|(?:^|[;:,.] )NULL\b"),
)


def said(text, phrases):
    """The values whose phrases `text` holds (each match blanked for the next)."""
    found = []
    for value, pattern in phrases:
        text, count = re.subn(pattern, lambda m: " " * len(m.group(0)), text, flags=re.I)
        if count and value not in found:
            found.append(value)
    return found


def is_function_pointer(type_, callbacks):
    return type_ in callbacks or "(*)" in type_


def pointer_fields(api):
    """Each parameter's `nullable` and `ownership`, each function's and
    callback's `return_ownership` and `return_nullable` (see
    OWNERSHIP_PHRASES, RETURN_NULL_PHRASES); fails, naming them, on a data
    pointer whose text says no ownership, or two, and on a pointer result
    whose @return says not whether it may be NULL."""
    callbacks = {callback["name"] for callback in api["callbacks"]}
    functions = {function["name"]: function for function in api["functions"]}
    problems = []

    def where(item):
        kind = "the callback" if item["name"] in callbacks else "the function"
        return f"include/{item['header']}:{item['line']}: {kind} {item['name']}()"

    def own(item, param, seen=()):
        """(ownership, nullable, problem) of one parameter."""
        type_, text, name = param["type"], param["doc"], param["name"]
        if "*" not in type_ and type_ not in callbacks:
            return "none", None, None
        nullable = said(text, NULLABLE_PHRASES)
        words = said(text, OWNERSHIP_PHRASES)
        referred = re.search(AS_FOR, text, re.I)
        other = functions.get(referred.group(1)) if referred else None
        if other and other["name"] not in seen:
            twin = next((p for p in other["params"] if p["name"] == name), None)
            if twin and not words:
                words = [own(other, twin, seen + (item["name"],))[0]]
            if twin and not nullable:
                nullable = [own(other, twin, seen + (item["name"],))[1]]
        if len(nullable) > 1:
            return None, None, "says it may be NULL and that it is required: keep one"
        if nullable:
            nullable = nullable[0]
        else:  # the conventions: a NULL handle, value or function is refused,
            # but by a _release function; `ctx` is never dereferenced; `release` is optional
            nullable = (item["name"].endswith("_release") and param is item["params"][0]) or \
                (type_ == "sk_release_fn") or "context" in words
        if is_function_pointer(type_, callbacks):
            return "none", nullable, None  # code, not data: nothing is owned
        if param["direction"] == "out" and "borrowed" in words:
            words = ["lent" if word == "borrowed" else word for word in words]
        if not words and param["direction"] == "out" and re.search(r"\breceives\b", text, re.I) and \
                re.fullmatch(PLAIN_RECEIVED, type_[:-1].strip()):
            words = ["written"]
        if not words:
            return None, nullable, (f"says no ownership ({text[:60]!r}): say who owns it with a standard "
                                    f"phrase: {OWNERSHIP_HINT} (docs/api-json.md, \"Ownership and NULL\")")
        if len(words) > 1:
            return None, nullable, f"says both {words[0]} and {words[1]} ({text[:80]!r}): keep one"
        if words[0] in ("returned", "lent", "written") and param["direction"] == "in":
            return None, nullable, f"is an in parameter, but its text says {words[0]}: tag it @param[out]"
        if words[0] in ("copied", "consumed", "context") and param["direction"] == "out":
            return None, nullable, f"is an out parameter, but its text says {words[0]}"
        return words[0], nullable, None

    for item in api["callbacks"] + api["functions"]:
        for param in item["params"]:
            ownership, nullable, problem = own(item, param)
            if problem:
                problems.append(f"{where(item)}: the parameter {param['name']} ({param['type']}) {problem}")
            param["nullable"], param["ownership"] = nullable, ownership
        # A function pointer result (sk_ffi_trampoline_function's) is lent
        # code: valid while what made it lives, as its @return says.
        if "*" in item["returns"] or is_function_pointer(item["returns"], callbacks):
            words = ["lent" if word == "borrowed" else word for word in said(item["return_doc"], OWNERSHIP_PHRASES)]
            if len(words) != 1 or words[0] not in ("returned", "lent"):
                problems.append(f"{where(item)}: its result ({item['returns']}) "
                                f"{'says ' + ' and '.join(words) if words else 'has no ownership'} in its @return "
                                f"({item['return_doc'][:60]!r}): say returned (+1) or lent (owned by the library, "
                                f"or borrowed)")
            item["return_ownership"] = words[0] if len(words) == 1 else None
            nulls = said(item["return_doc"], RETURN_NULL_PHRASES)
            if len(nulls) != 1:
                problems.append(f"{where(item)}: its result ({item['returns']}) "
                                f"{'says both never NULL and NULL' if nulls else 'says not whether it may be NULL'} "
                                f"in its @return ({item['return_doc'][:60]!r}): say \"never NULL\", or when it is "
                                f"NULL (\"NULL when ...\", \"NULL for ...\", \"or NULL\")")
            item["return_nullable"] = nulls[0] if len(nulls) == 1 else None
        else:
            item["return_ownership"] = "none"
            item["return_nullable"] = None
    if problems:
        fail("pointers whose ownership the headers do not say:\n" + "\n".join(problems))


# Length links (docs/api-json.md, "Lengths"). A `size_t` parameter (or a
# `size_t *` out parameter) says which pointer parameter it counts the
# elements of: "The number of bytes of `text`", "The size of `buffer` in
# bytes", "receives the number of items of `*out`"; one that receives the
# full length of what a buffer was given truncated says "full length" and
# names the buffer after it. A parameter named as a length (LENGTH_NAME)
# beside a pointer that may be an array (not a handle, a context, a
# function, nor a number written out) must say which it counts.
LENGTH_OF = r"\b(?:number|size) of (?:[\w ]+? )?of `\*?(" + IDENT + r")`|\bsize of `\*?(" + IDENT + r")`"
FULL_LENGTH_OF = r"\bfull length\b.*?`\*?(" + IDENT + r")`"
LENGTH_NAME = r"(?:\w+_)?(?:count|length|size)"
LENGTH_TYPES = ("size_t", "size_t *")
PLAIN_POINTEE = r"(?:const )?(?:bool|int|unsigned|size_t|u?int(?:8|16|32|64)_t|double|float)"


def length_links(api):
    """Each parameter's `length_param` and `length_of` (a pointer and the
    parameter counting its elements), `full_length_param` and
    `full_length_of` (an out buffer and the out parameter receiving the
    full length of what it was given truncated); fails, naming them, on a
    length parameter that names no pointer of its function, or that says
    nothing of which it counts."""
    handles = {handle["name"] for handle in api["handles"]}
    callbacks = {callback["name"] for callback in api["callbacks"]}
    problems = []
    for item in api["functions"] + api["callbacks"]:
        kind = "the callback" if item["name"] in callbacks else "the function"
        where = f"include/{item['header']}:{item['line']}: {kind} {item['name']}()"
        params = {param["name"]: param for param in item["params"]}
        for param in item["params"]:
            param.update(length_param=None, length_of=None, full_length_param=None, full_length_of=None)

        def array_like(param):
            """A pointer that may point at several elements: no handle (an
            array of handles is one: `sk_signal *const *`), no handle
            received, no context, no function, no number written out."""
            type_ = param["type"]
            pointee = type_[:-1].strip() if type_.endswith("*") else None
            if pointee is None or param["ownership"] in ("context", "none") or re.fullmatch(PLAIN_POINTEE, pointee):
                return False
            if re.sub(r"^const ", "", pointee) in handles:
                return False
            return not (param["direction"] != "in" and re.sub(r"^const |\s*\*$", "", pointee) in handles)

        for param in item["params"]:
            if param["type"] not in LENGTH_TYPES:
                continue
            full = re.search(FULL_LENGTH_OF, param["doc"])
            counted = re.search(LENGTH_OF, param["doc"])
            key, link = ("full_length", full) if full else ("length", counted)
            if link:
                target = params.get(link.group(1) or link.group(2))
                if target is None or not array_like(target):
                    problems.append(f"{where}: the parameter {param['name']} counts `{link.group(1) or link.group(2)}`"
                                    f", which is no pointer parameter of it that may point at elements")
                    continue
                if param["type"] == "size_t *" and param["direction"] == "in":
                    problems.append(f"{where}: the parameter {param['name']} ({param['type']}) receives a length: "
                                    f"tag it @param[out]")
                    continue
                param[f"{key}_of"], target[f"{key}_param"] = target["name"], param["name"]
            elif re.fullmatch(LENGTH_NAME, param["name"] or "") and \
                    any(array_like(other) for other in item["params"] if other is not param):
                problems.append(f"{where}: the parameter {param['name']} ({param['type']}) says not what it counts "
                                f"({param['doc'][:60]!r}): say \"The number of ... of `POINTER`\" or \"The size of "
                                f"`POINTER` ...\" (or, of an out buffer's full length, \"full length ... `BUFFER`\") "
                                f"(docs/api-json.md, \"Lengths\")")
    if problems:
        fail("length parameters whose texts do not say what they count:\n" + "\n".join(problems))


def handle_lifetimes(api):
    """Each handle's `release` (the function dropping a reference: its one
    parameter the handle, consumed, returning nothing) and `retain` (one
    adding a reference: its one parameter the handle, returning it +1;
    `null` when there is none); fails on a handle without a release
    function, or with two."""
    problems = []
    for handle in api["handles"]:
        pointer = f"{handle['name']} *"

        def only(function):
            return len(function["params"]) == 1 and function["params"][0]["type"] == pointer

        releases = [f["name"] for f in api["functions"]
                    if only(f) and f["returns"] == "void" and f["params"][0]["ownership"] == "consumed"]
        retains = [f["name"] for f in api["functions"]
                   if only(f) and f["returns"] == pointer and f["return_ownership"] == "returned"]
        where = f"include/{handle['header']}:{handle['line']}: the handle {handle['name']}"
        if len(releases) != 1:
            found = "two release functions, " + ", ".join(releases) if releases else "no release function"
            problems.append(f"{where} has {found}: declare one, `void {handle['name']}_release({pointer}handle)`, "
                            f"its @param saying \"consumed\"")
        if len(retains) > 1:
            problems.append(f"{where} has two retain functions, {', '.join(retains)}: keep one")
        handle["release"] = releases[0] if len(releases) == 1 else None
        handle["retain"] = retains[0] if len(retains) == 1 else None
    if problems:
        fail("handles whose release the headers do not give:\n" + "\n".join(problems))


def context_links(api):
    """The callbacks each context goes to (docs/api-json.md, "Contexts"):
    a function's `ctx` parameter (ownership `context`) names them in its
    text ("Passed to `fn` and `release`"); each of them gets `context`, the
    ctx's name, and the ctx gets `context_release`, the one of them of type
    sk_release_fn (`null` when there is none). A struct's `ctx` field does
    the same in its brief ("Passed to every callback and to `release`":
    every function pointer field). Fails, naming them, on a function
    pointer that no ctx names, a ctx that names none, and a function that
    takes a function pointer but no ctx."""
    callbacks = {callback["name"] for callback in api["callbacks"]}
    problems = []

    def link(where, owner, items, contexts, names_of):
        """Links the function pointers of `items` to the contexts naming them."""
        functions = [item for item in items if is_function_pointer(item["type"], callbacks)]
        for item in items:
            item.update(context=None, context_release=None)
        if functions and not contexts:
            problems.append(f"{where}: {owner} takes {', '.join(f['name'] for f in functions)} but no ctx to "
                            f"pass them: add a `void *ctx` (and an sk_release_fn `release`)")
        for context in contexts:
            named = [item for item in functions if item["name"] in names_of(context)]
            if not named:
                problems.append(f"{where}: the ctx {context['name']} of {owner} names no function pointer it is "
                                f"passed to ({(context.get('doc') or context['brief'])[:60]!r}): say \"Passed to "
                                f"`fn` and `release`\"")
            for item in named:
                item["context"] = context["name"]
                if item["type"] == "sk_release_fn":
                    context["context_release"] = item["name"]
        for item in functions:
            if item["context"] is None and contexts:
                problems.append(f"{where}: {owner}'s {item['name']} ({item['type']}) is passed no ctx its texts name: "
                                f"name it in the ctx's (\"Passed to `{item['name']}` and `release`\")")

    for function in api["functions"]:
        link(f"include/{function['header']}:{function['line']}", f"the function {function['name']}()",
             function["params"], [p for p in function["params"] if p["ownership"] == "context"],
             lambda context: re.findall(r"`(" + IDENT + r")`", context["doc"]))
    for callback in api["callbacks"]:
        for param in callback["params"]:  # the ctx a callback receives: nothing to link
            param.update(context=None, context_release=None)
    for struct in api["structs"]:
        fields = struct["fields"]
        every = [f["name"] for f in fields if is_function_pointer(f["type"], callbacks) and f["type"] != "sk_release_fn"]
        link(f"include/{struct['header']}:{struct['line']}", f"the struct {struct['name']}", fields,
             [f for f in fields if f["name"] == "ctx" and f["type"] == "void *"],
             lambda context: re.findall(r"`(" + IDENT + r")`", context["brief"]) +
             (every if re.search(r"\bevery callback\b", context["brief"]) else []))
    if problems:
        fail("callbacks whose ctx the headers do not say:\n" + "\n".join(problems))


# Who closes a file descriptor a parameter carries (docs/api-json.md,
# "Descriptors"): "owned by the queue", "do not close it" (lent), "close
# it" (returned).
FD_PHRASES = (
    ("lent", r"\bowned by the (?:library|queue)\b|\bdo not close(?: it)?\b"),
    ("returned", r"\bclose it\b|\bthe caller closes\b"),
)


def descriptors(api):
    """Each parameter's `fd_ownership`: of an `int` or `int *` parameter
    named `fd` or `..._fd` (a file descriptor), `lent` when the library
    keeps it (the caller must not close it), `returned` when the caller
    closes it; `null` on every other parameter. Fails, naming it, on a
    descriptor whose text says neither, or both."""
    callbacks = {callback["name"] for callback in api["callbacks"]}
    problems = []
    for item in api["functions"] + api["callbacks"]:
        kind = "the callback" if item["name"] in callbacks else "the function"
        for param in item["params"]:
            param["fd_ownership"] = None
            if param["type"] not in ("int", "int *") or not re.fullmatch(r"(?:\w+_)?fd", param["name"] or ""):
                continue
            words = said(param["doc"], FD_PHRASES)
            if len(words) != 1:
                problems.append(f"include/{item['header']}:{item['line']}: {kind} {item['name']}(): the descriptor "
                                f"{param['name']} says {'both ' + ' and '.join(words) if words else 'not who closes it'}"
                                f" ({param['doc'][:60]!r}): say \"owned by the library (do not close it)\" or \"close "
                                f"it\" (docs/api-json.md, \"Descriptors\")")
            param["fd_ownership"] = words[0] if len(words) == 1 else None
    if problems:
        fail("descriptors whose owner the headers do not say:\n" + "\n".join(problems))


# Whether the handle a function hands back keeps a handle argument alive
# (docs/api-json.md, "Handles"): "not kept alive by the signal" (false),
# "kept alive by the signal" (true).
KEPT_ALIVE_PHRASES = (
    (False, r"\bnot kept alive by\b"),
    (True, r"\bkept alive by\b"),
)


def kept_alive(api):
    """Each parameter's `kept_alive_by_out`: of a handle argument of a
    function handing back a handle through `out`, whether that handle keeps
    it alive as long as it lives, as its text says (`null` where it says
    nothing, and on every other parameter). Fails, naming it, where a
    function hands back a handle made from one handle of another type (a
    subject's signal: sk_pipe_signal) and its text says neither."""
    handles = {handle["name"] for handle in api["handles"]}
    problems = []
    for function in api["functions"]:
        params = function["params"]
        for param in params:
            param["kept_alive_by_out"] = None
        out = params[0] if params and params[0]["ownership"] == "returned" else None
        if out is None or out["type"][:-2].strip() not in handles or not out["type"].endswith("**"):
            continue
        others = [param for param in params[1:] if param["type"].endswith("*") and
                  re.sub(r"^const |\s*\*$", "", param["type"]) in handles and param["direction"] == "in"]
        for param in others:
            words = said(param["doc"], KEPT_ALIVE_PHRASES)
            param["kept_alive_by_out"] = words[0] if len(words) == 1 else None
            if len(params) == 2 and param["type"] != out["type"][:-1] and len(words) != 1:
                problems.append(f"include/{function['header']}:{function['line']}: the function {function['name']}"
                                f"(): the handle {param['name']} says not whether the {out['type'][:-2].strip()} it "
                                f"hands back keeps it alive ({param['doc'][:60]!r}): say \"kept alive by the ...\" or "
                                f"\"not kept alive by the ...\"")
    if problems:
        fail("handles whose lifetime the headers do not say:\n" + "\n".join(problems))


def soname(library):
    """LIBRARY.so.MAJOR, the major as the build sets it."""
    path, variable, _ = LIBRARIES[library]
    major = re.search(r"(?m)^" + variable + r"\s*:?=\s*(\d+)\s*$", read(path))
    if not major:
        fail(f"{path}: no `{variable} := N` line, where the soname of {library} is set")
    return f"{library}.so.{major.group(1)}"


def check_text(api):
    """Every last-error function is a function of its library returning a
    string, and no text keeps a Doxygen command but @ref (a tag whose text
    ran into another's). (check.py, in make test-api, checks the briefs.)"""
    functions = {function["name"]: function for function in api["functions"]}
    for header in api["headers"]:
        function = functions.get(header["last_error"])
        if not function or function["library"] != header["library"] or function["returns"] != "const char *":
            fail(f"{header['name']}: its last-error function {header['last_error']}() is not a function of "
                 f"{header['library']} returning const char *: update LIBRARIES")

    def texts(item, where):
        if isinstance(item, str):
            stray = STRAY_TAG.search(item)
            if stray:
                fail(f"{where}: the text keeps the Doxygen command {stray.group(0)} ({item[:80]!r}...): teach "
                     f"parse_doc() the tag, or reword the comment")
        elif isinstance(item, dict):
            for key, value in item.items():
                texts(value, f"{where}.{key}" if key != "name" else where)
        elif isinstance(item, list):
            for number, value in enumerate(item):
                texts(value, f"{where}[{value['name'] if isinstance(value, dict) and 'name' in value else number}]")
    texts(api, "api.json")


def resolve_errors(api):
    """A @return that says "an error of @ref GROUP" takes the group's
    "@par Errors"; one that says "as sk_other()" takes sk_other's errors."""
    groups = {group["name"]: group for group in api["groups"]}
    functions = {function["name"]: function for function in api["functions"]}
    for function in api["functions"]:
        for group in re.findall(r"@ref (" + IDENT + ")", function["return_doc"]):
            if group in groups:
                function["errors"] += [c for c in groups[group]["errors"] if c not in function["errors"]]
        for other in re.findall(r"\b[Aa]s (sk_[a-z0-9_]+)\(\)", function["return_doc"]):
            if other in functions:
                function["errors"] += [c for c in functions[other]["errors"] if c not in function["errors"]]


def struct_fields(body, text, comments, offset):
    """The fields of a struct body: name, type, and for a union its members."""
    fields = []
    position = 0
    body = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), body, flags=re.S)
    while True:
        union = re.compile(r"union\s*\{(.*?)\}\s*(" + IDENT + r")\s*;", re.S).search(body, position)
        plain = re.compile(r"(?m)^\s*([^;{}]+?)\b(" + IDENT + r")\s*;").search(body, position)
        if union and (not plain or union.start() < plain.start()):
            inner = offset + union.start(1)
            members = [{"name": m.group(2), "type": normalize_type(m.group(1)),
                        "brief": brief_of(text, comments, inner + m.start(1), inner + m.end())}
                       for m in re.finditer(r"(?<![^\s;{])([^;{}\s][^;{}\n]*?)\b(" + IDENT + r")\s*;",
                                            union.group(1))]
            fields.append({"name": union.group(2), "type": "union", "members": members,
                           "brief": brief_of(text, comments, offset + union.start(), offset + union.end())})
            position = union.end()
        elif plain:
            fields.append({"name": plain.group(2), "type": normalize_type(plain.group(1)),
                           "brief": brief_of(text, comments, offset + plain.start(1), offset + plain.end())})
            position = plain.end()
        else:
            return fields


def layout(cc, workdir, api):
    """Sizes, offsets, enumerator and constant values, from a compiled program."""
    lines = ["#define SK_NO_INLINE_ACCESSORS"] + [f'#include "{h}"' for h, _ in HEADERS]
    lines += ["#include <stdio.h>", "#include <stddef.h>", "#include <stdalign.h>", "int main(void) {"]

    def emit(key, expression, fmt="%lld", cast="(long long)"):
        lines.append(f'    printf("{key} {fmt}\\n", {cast}({expression}));')

    for struct in api["structs"]:
        name = struct["name"]
        emit(f"{name}", f"sizeof({name})")
        emit(f"{name}@align", f"alignof({name})")
        for field in struct["fields"]:
            emit(f"{name}.{field['name']}", f"offsetof({name}, {field['name']})")
            emit(f"{name}.{field['name']}@size", f"sizeof((({name} *)0)->{field['name']})")
            for member in field.get("members", []):
                path = f"{field['name']}.{member['name']}"
                emit(f"{name}.{path}", f"offsetof({name}, {path})")
                emit(f"{name}.{path}@size", f"sizeof((({name} *)0)->{path})")
    for enum in api["enums"]:
        emit(enum["name"], f"sizeof({enum['name']})")
        for value in enum["values"]:
            emit(value["name"], value["name"])
    for constant in api["constants"]:
        emit(constant["name"], constant["name"])
    lines += ["    return 0;", "}"]
    source, program = os.path.join(workdir, "layout.c"), os.path.join(workdir, "layout")
    with open(source, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", "-Iinclude", source, "-o", program], check=True)
    values = dict(line.split(" ", 1) for line in subprocess.run([program], check=True, capture_output=True,
                                                                 text=True).stdout.splitlines())
    number = lambda key: int(values[key])  # noqa: E731
    for struct in api["structs"]:
        name = struct["name"]
        struct["size"], struct["align"] = number(name), number(f"{name}@align")
        for field in struct["fields"]:
            field["offset"], field["size"] = number(f"{name}.{field['name']}"), number(f"{name}.{field['name']}@size")
            for member in field.get("members", []):
                path = f"{name}.{field['name']}.{member['name']}"
                member["offset"], member["size"] = number(path), number(f"{path}@size")
    for enum in api["enums"]:
        enum["size"] = number(enum["name"])
        for value in enum["values"]:
            value["value"] = number(value["name"])
    for constant in api["constants"]:
        constant["value"] = number(constant["name"])


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    api = describe(sys.argv[2] if len(sys.argv) == 3 else "gcc")
    output = json.dumps(api, indent=1, ensure_ascii=False) + "\n"
    with open(sys.argv[1] + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(output)
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])


if __name__ == "__main__":
    main()
