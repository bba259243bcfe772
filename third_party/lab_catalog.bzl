"""lab_catalog: labs/catalog.json and each lab's labs/NN_topic/lab.json as Starlark, so that
BUILD files build every lab it lists, with everything its folder declares.

    lab_catalog(name = "lab_catalog")   # in WORKSPACE

gives @lab_catalog//:labs.bzl with

    LABS = ["00_default_stream", "03_double_buffer", ...]   # the catalog's ids, in its order
    LAB_MANIFESTS = {"04_priorities": {                      # what the build needs of lab.json
        "variants": ["background_high", ...],                # testdata/variants.c's builds
        "builds": [{"name": "single_wave", "file": "reference", "spec_defines": [...]}],
        "steps": True,                                       # a lesson test
        "test_data": [],                                     # more runfiles for its tests
    }, ...}

and, for each lab, @lab_catalog//:NN_topic_identity, a library whose header
"lab_catalog/lab_identity.h" defines LAB_ID, LAB_TITLE and LAB_LESSON from the catalog
entry, for the lab's spec.c (labs/lab.bzl links it with the spec).

labs/BUILD makes each lab's targets from these (labs/lab_folder.bzl), solutions/BUILD
each reference, the live timeline bundles them and the grader builds a grading kit for
each: adding an entry to the catalog (with the lab's folder and solution) is all a new lab
needs from the build. Bazel reads the catalog and every manifest again whenever one
changes (each is read through its label). A malformed catalog or manifest stops the build
with a message that names the file, the entry or field, and what is wrong with it.
lab.json's fields are described in docs/labs.md, "The lab's manifest".
"""

_CATALOG = "//labs:catalog.json"

# The verdicts a lab binary exits with (labs/harness/result.c): 0 pass, 1 below target,
# 2 wrong, racy, crashed or failed, 3 the host's problem.
_VERDICTS = (0, 1, 2, 3)

# Names a variant or build cannot take: lab() makes NAME_impl_sim, NAME_spec_sim,
# NAME_sim_student, NAME_run and so on, which a variant of the same name would repeat.
_RESERVED = ("impl", "spec", "student", "sim", "gpu", "run", "one_process", "lesson")

_GRADE_POINTS = ("full", "none", "part")

def _bad(what):
    fail("\n\nstreamlab: labs/catalog.json: %s\n" % what)

def _multiline(text):
    return [c for c in ("\n", "\r", "\t") if c in text] != []

def _check_id(i, lab_id):
    if type(lab_id) != "string" or len(lab_id) < 4:
        _bad("entry %d has no \"id\" (like \"03_double_buffer\")" % i)
    if not (lab_id[0].isdigit() and lab_id[1].isdigit() and lab_id[2] == "_"):
        _bad("entry %d: id \"%s\" must start with two digits and _ (like \"03_double_buffer\")" % (i, lab_id))
    for c in lab_id.elems():
        if not (c.isdigit() or c == "_" or (c.isalpha() and c.islower())):
            _bad("entry %d: id \"%s\" may hold only lower-case letters, digits and _" % (i, lab_id))

def _check_text(lab_id, key, value):
    if type(value) != "string" or not value:
        _bad("entry \"%s\": \"%s\" must be a non-empty string" % (lab_id, key))
    if _multiline(value):
        _bad("entry \"%s\": \"%s\" must be one line of text" % (lab_id, key))

# ---- the manifest, labs/NN_topic/lab.json ------------------------------------------------

def _manifest_bad(path, field, what):
    fail("\n\nstreamlab: %s: %s %s\n" % (path, field, what))

def _check_keys(path, field, obj, allowed):
    for key in obj:
        if key not in allowed:
            _manifest_bad(path, field + "." + key if field else key, "is not a field of a lab's manifest here (it has: %s)" % ", ".join(allowed))

def _check_name(path, field, name):
    if type(name) != "string" or not name:
        _manifest_bad(path, field, "must be a non-empty string (like \"two_streams\")")
    for c in name.elems():
        if not (c.isdigit() or c == "_" or (c.isalpha() and c.islower())):
            _manifest_bad(path, field, "\"%s\" may hold only lower-case letters, digits and _" % name)
    if name in _RESERVED or name.endswith("_run") or name.endswith("_sim") or name.endswith("_gpu"):
        _manifest_bad(path, field, "\"%s\" would name a target lab() already makes (none of %s, nor ending in _run, _sim or _gpu)" % (name, ", ".join(_RESERVED)))

def _check_verdict(path, field, value):
    if type(value) != "int" or value not in _VERDICTS:
        _manifest_bad(path, field, "must be an exit status 0 (pass), 1 (below target), 2 (wrong, racy or failed) or 3, not %r" % (value,))

def _check_does(path, field, value):
    if type(value) != "string" or not value.strip():
        _manifest_bad(path, field, "must say in one line what it does")
    if _multiline(value):
        _manifest_bad(path, field, "must be one line of text")

# A grade the grader's test expects (grading/grade_test.cc): per check of the rubric,
# "full", "none", "part", or {"points": one of those, a fraction of the check's points, or
# [low, high] fractions it lies strictly between; "says": texts its feedback contains}.
def _check_points(path, field, points):
    if type(points) == "string":
        if points not in _GRADE_POINTS:
            _manifest_bad(path, field, "must be \"full\", \"none\" or \"part\", not \"%s\"" % points)
    elif type(points) == "list":
        if len(points) != 2 or [p for p in points if type(p) not in ("int", "float") or p < 0 or p > 1] or points[0] >= points[1]:
            _manifest_bad(path, field, "as a range must be [low, high], fractions of the check's points with 0 <= low < high <= 1")
    elif type(points) in ("int", "float"):
        if points < 0 or points > 1:
            _manifest_bad(path, field, "as a number must be a fraction of the check's points, from 0 to 1")
    else:
        _manifest_bad(path, field, "must be \"full\", \"none\", \"part\", a fraction or [low, high]")

def _check_grade(path, field, grade):
    if type(grade) != "dict" or not grade:
        _manifest_bad(path, field, "must be an object with what each check of the rubric earns (\"correct\": \"full\", ...)")
    for check, want in grade.items():
        where = "%s.%s" % (field, check)
        if type(want) == "dict":
            _check_keys(path, where, want, ("points", "says"))
            if "points" not in want:
                _manifest_bad(path, where, "needs \"points\"")
            _check_points(path, where + ".points", want["points"])
            says = want.get("says", [])
            if type(says) != "list" or [s for s in says if type(s) != "string" or not s]:
                _manifest_bad(path, where + ".says", "must be a list of non-empty texts the check's feedback contains")
        else:
            _check_points(path, where, want)

def _check_build(path, field, entry, keys):
    if type(entry) != "dict":
        _manifest_bad(path, field, "must be an object")
    _check_keys(path, field, entry, keys)
    if "verdict" not in entry:
        _manifest_bad(path, field + ".verdict", "is missing: the exit status it gets on the simulator")
    _check_verdict(path, field + ".verdict", entry["verdict"])
    if "gpu_verdict" in entry:
        _check_verdict(path, field + ".gpu_verdict", entry["gpu_verdict"])
    if type(entry.get("on_gpu", True)) != "bool":
        _manifest_bad(path, field + ".on_gpu", "must be true or false")
    if "grade" in entry:
        _check_grade(path, field + ".grade", entry["grade"])

def _read_manifest(rctx, lab_id):
    """labs/LAB/lab.json, checked; what the build needs of it."""
    path = "labs/%s/lab.json" % lab_id
    catalog = rctx.path(Label(_CATALOG))
    if not catalog.dirname.get_child(lab_id).get_child("lab.json").exists:
        fail("\n\nstreamlab: labs/catalog.json lists \"%s\", but %s is missing: every lab's folder has its manifest (docs/labs.md, \"The lab's manifest\")\n" % (lab_id, path))

    # Read through its label, so that Bazel runs this rule again when the file changes.
    m = _decode(rctx, rctx.path(Label("//labs:%s/lab.json" % lab_id)), path)
    if type(m) != "dict":
        _manifest_bad(path, "the file", "must hold one JSON object")
    _check_keys(path, "", m, ("skeleton", "reference", "variants", "builds", "steps", "test_data"))

    if type(m.get("skeleton")) != "dict":
        _manifest_bad(path, "skeleton", "is missing: {\"verdict\": the skeleton's exit status}")
    _check_build(path, "skeleton", m["skeleton"], ("verdict", "gpu_verdict", "on_gpu", "grade"))
    reference = m.get("reference", {})
    if type(reference) != "dict":
        _manifest_bad(path, "reference", "must be an object")
    _check_keys(path, "reference", reference, ("on_gpu", "grade"))
    if type(reference.get("on_gpu", True)) != "bool":
        _manifest_bad(path, "reference.on_gpu", "must be true or false")
    if "grade" in reference:
        _check_grade(path, "reference.grade", reference["grade"])

    names = []
    variants = m.get("variants")
    if type(variants) != "list":
        _manifest_bad(path, "variants", "is missing: a list of testdata/variants.c's builds ([] for none)")
    for i, v in enumerate(variants):
        field = "variants[%d]" % i
        _check_build(path, field, v, ("name", "verdict", "gpu_verdict", "on_gpu", "does", "grade"))
        _check_name(path, field + ".name", v.get("name"))
        _check_does(path, field + ".does", v.get("does"))
        if v["name"] in names:
            _manifest_bad(path, field + ".name", "\"%s\" is listed twice" % v["name"])
        names.append(v["name"])

    builds = m.get("builds", [])
    if type(builds) != "list":
        _manifest_bad(path, "builds", "must be a list")
    out_builds = []
    for i, b in enumerate(builds):
        field = "builds[%d]" % i
        _check_build(path, field, b, ("name", "file", "spec_defines", "verdict", "gpu_verdict", "on_gpu", "does"))
        _check_name(path, field + ".name", b.get("name"))
        _check_does(path, field + ".does", b.get("does"))
        if b["name"] in names:
            _manifest_bad(path, field + ".name", "\"%s\" is listed twice" % b["name"])
        names.append(b["name"])
        if b.get("file") not in ("skeleton", "reference"):
            _manifest_bad(path, field + ".file", "must be \"skeleton\" (labs/%s/lab.c) or \"reference\" (solutions/%s.c)" % (lab_id, lab_id))
        defines = b.get("spec_defines", [])
        if type(defines) != "list":
            _manifest_bad(path, field + ".spec_defines", "must be a list of macro names")
        for d in defines:
            if type(d) != "string" or not d or d[0].isdigit() or [c for c in d.elems() if not (c.isdigit() or c == "_" or (c.isalpha() and c.isupper()))]:
                _manifest_bad(path, field + ".spec_defines", "must hold macro names in capitals (like \"LAB04_SINGLE_WAVE\"), not %r" % (d,))
        out_builds.append({"name": b["name"], "file": b["file"], "spec_defines": defines})

    if type(m.get("steps")) != "bool":
        _manifest_bad(path, "steps", "must be true (the lab's spec has steps, checked against its lesson) or false")
    test_data = m.get("test_data", [])
    if type(test_data) != "list" or [d for d in test_data if type(d) != "string" or not d.startswith("//")]:
        _manifest_bad(path, "test_data", "must be a list of labels (like \"//sim:profiles/h100.json\")")
    return {"variants": names[:len(variants)], "builds": out_builds, "steps": m["steps"], "test_data": test_data}

def _decode(rctx, file, name):
    """The JSON in file, whose repository path is name. json.decode's message for text that
    is not JSON names no file; jq's names the line, so jq (./setup.sh installs it) reads it
    first where it is installed."""
    jq = rctx.which("jq")
    if jq:
        checked = rctx.execute([jq, "empty", str(file)])
        if checked.return_code != 0:
            fail("\n\nstreamlab: %s is not JSON: %s\n" % (name, checked.stderr.strip()))
    return json.decode(rctx.read(file))

def _c_string(text):
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\""

def _identity_header(entry):
    return "\n".join([
        "/* Generated from labs/catalog.json by //third_party:lab_catalog.bzl: the catalog's",
        " * entry for this lab, for its spec.c (LAB_SPEC's id, title and lesson). */",
        "#ifndef STREAMLAB_LAB_IDENTITY_H",
        "#define STREAMLAB_LAB_IDENTITY_H",
        "#define LAB_ID " + _c_string(entry["id"]),
        "#define LAB_TITLE " + _c_string(entry["title"]),
        "#define LAB_LESSON " + _c_string(entry["lesson"]),
        "#endif",
        "",
    ])

def _lab_catalog_impl(rctx):
    catalog = _decode(rctx, rctx.path(Label(_CATALOG)), "labs/catalog.json")
    if type(catalog) != "dict" or type(catalog.get("labs")) != "list":
        _bad("no \"labs\" array")
    ids = []
    manifests = {}
    build = ["# Generated from labs/catalog.json by //third_party:lab_catalog.bzl.", ""]
    for i, entry in enumerate(catalog["labs"]):
        if type(entry) != "dict":
            _bad("entry %d is not an object" % i)
        lab_id = entry.get("id")
        _check_id(i, lab_id)
        if lab_id in ids:
            _bad("the id \"%s\" is listed twice" % lab_id)
        for key, want in (("lab", "//labs:" + lab_id), ("reference", "//solutions:" + lab_id)):
            if entry.get(key) != want:
                _bad("entry \"%s\": \"%s\" must be \"%s\"" % (lab_id, key, want))
        for key in ("lesson", "student_file"):
            if type(entry.get(key)) != "string" or not entry[key].startswith("labs/" + lab_id + "/"):
                _bad("entry \"%s\": \"%s\" must be a path under labs/%s/" % (lab_id, key, lab_id))
        _check_text(lab_id, "title", entry.get("title"))
        _check_text(lab_id, "lesson", entry.get("lesson"))
        ids.append(lab_id)
        manifests[lab_id] = _read_manifest(rctx, lab_id)
        rctx.file("identity/%s/lab_identity.h" % lab_id, _identity_header(entry))
        build += [
            "cc_library(",
            "    name = %r," % (lab_id + "_identity"),
            "    hdrs = [%r]," % ("identity/%s/lab_identity.h" % lab_id),
            "    include_prefix = \"lab_catalog\",",
            "    strip_include_prefix = %r," % ("identity/" + lab_id),
            "    visibility = [\"//visibility:public\"],",
            ")",
            "",
        ]
    rctx.file("BUILD", "\n".join(build))
    rctx.file("labs.bzl", "\n".join([
        "\"\"\"Generated from labs/catalog.json and each lab's lab.json by //third_party:lab_catalog.bzl:",
        "the ids of the labs, in the catalog's order, and what the build needs of each manifest.\"\"\"",
        "",
        "LABS = %r" % ids,
        "",
        "LAB_MANIFESTS = %r" % manifests,
        "",
    ]))

lab_catalog = repository_rule(
    implementation = _lab_catalog_impl,
    doc = "Exposes the ids in labs/catalog.json as LABS, and each lab's manifest as LAB_MANIFESTS, in @<name>//:labs.bzl.",
)
