"""lab_catalog: labs/catalog.json as Starlark, so that BUILD files build every lab it lists.

    lab_catalog(name = "lab_catalog")   # in WORKSPACE

gives @lab_catalog//:labs.bzl with

    LABS = ["00_default_stream", "03_double_buffer", ...]   # the catalog's ids, in its order

labs/BUILD makes each lab's targets from it, solutions/BUILD each reference, the live
timeline bundles them and the grader builds a grading kit for each: adding an entry to the
catalog (with the lab's folder and solution) is all a new lab needs from the build. Bazel
reads the catalog again whenever it changes. A malformed catalog stops the build with a
message that names the entry and what is wrong with it.
"""

_CATALOG = "//labs:catalog.json"

def _bad(what):
    fail("\n\nstreamlab: labs/catalog.json: %s\n" % what)

def _check_id(i, lab_id):
    if type(lab_id) != "string" or len(lab_id) < 4:
        _bad("entry %d has no \"id\" (like \"03_double_buffer\")" % i)
    if not (lab_id[0].isdigit() and lab_id[1].isdigit() and lab_id[2] == "_"):
        _bad("entry %d: id \"%s\" must start with two digits and _ (like \"03_double_buffer\")" % (i, lab_id))
    for c in lab_id.elems():
        if not (c.isdigit() or c == "_" or (c.isalpha() and c.islower())):
            _bad("entry %d: id \"%s\" may hold only lower-case letters, digits and _" % (i, lab_id))

def _lab_catalog_impl(rctx):
    text = rctx.read(rctx.path(Label(_CATALOG)))
    catalog = json.decode(text)
    if type(catalog) != "dict" or type(catalog.get("labs")) != "list":
        _bad("no \"labs\" array")
    ids = []
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
        ids.append(lab_id)
    rctx.file("BUILD", "# Generated from labs/catalog.json by //third_party:lab_catalog.bzl.\n")
    rctx.file("labs.bzl", "\"\"\"Generated from labs/catalog.json: the ids of the labs, in the catalog's order.\"\"\"\n\nLABS = %r\n" % ids)

lab_catalog = repository_rule(
    implementation = _lab_catalog_impl,
    doc = "Exposes the ids in labs/catalog.json as LABS in @<name>//:labs.bzl.",
)
