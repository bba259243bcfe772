"""lab_folder(): every target of one lab's folder, from its manifest (labs/NN_topic/lab.json,
which //third_party:lab_catalog.bzl reads and checks into @lab_catalog//:labs.bzl's
LAB_MANIFESTS).

    lab_folder("04_priorities", LAB_MANIFESTS["04_priorities"])   # labs/BUILD, for each lab

gives
    :04_priorities (_sim, _gpu, _run)  the lab on the student's file, 04_priorities/lab.c
    :04_priorities_VARIANT             each variant of 04_priorities/testdata/variants.c,
                                       built with -DLAB_VARIANT_<VARIANT> (the manifest's
                                       "variants"); its lab binary is the lab's own, copied
                                       (lab()'s binary_of): only its student program differs
    :04_priorities_BUILD               each of the manifest's "builds": the skeleton or the
                                       reference against the spec built with spec_defines
    :04_priorities_lesson_test         the spec against its skeleton and lesson (when the
                                       manifest's "steps" is true; labs/lesson_test.cc)
    :lab04_test                        the lab's tests: every 04_priorities/*_test.cc, and
                                       labs/manifest_verdicts_test.cc (each build the GPU
                                       bundle runs exits with its manifest's verdict), with the lab, its reference
                                       and every build above as data
    :lab04_reference_test              the same tests less the manifest's, only those of the
                                       reference (*.TheReference*), with the reference as the
                                       only build among their data; tagged manual (outside
                                       //...): what .ci/run's ASan stage runs of each lab
each with lab()'s targets (labs/lab.bzl). Nothing of a lab is written outside its folder,
its solution, its catalog entry and its rubric points (docs/labs.md, "Adding a lab").
"""

load("//labs:lab.bzl", "lab")

def lab_folder(lab_id, manifest):
    """The targets of the lab labs/<lab_id>/, as its manifest declares them."""
    spec = lab_id + "/spec.c"
    lab(name = lab_id, src = lab_id + "/lab.c", spec = spec)

    for variant in manifest["variants"]:
        lab(
            name = "%s_%s" % (lab_id, variant),
            src = lab_id + "/testdata/variants.c",
            spec = spec,
            copts = ["-DLAB_VARIANT_" + variant.upper()],
            binary_of = lab_id,
        )

    for build in manifest["builds"]:
        lab(
            name = "%s_%s" % (lab_id, build["name"]),
            src = "//solutions:%s.c" % lab_id if build["file"] == "reference" else lab_id + "/lab.c",
            spec = spec,
            spec_copts = ["-D" + define for define in build["spec_defines"]],
        )

    if manifest["steps"]:
        # Every step of the spec a TODO of the skeleton, every hint in the lesson.
        native.cc_test(
            name = lab_id + "_lesson_test",
            size = "small",
            srcs = ["lesson_test.cc"],
            data = [
                lab_id + "/README.md",
                lab_id + "/lab.c",
            ],
            deps = [
                ":%s_spec_sim" % lab_id,
                "//labs/harness:harness_sim",
                "//third_party:gtest_main",
            ],
        )

    tests = native.glob([lab_id + "/*_test.cc"])
    if not tests:
        fail("\n\nstreamlab: labs/%s has no tests: its folder needs a lab_test.cc (docs/labs.md, \"Adding a lab\")\n" % lab_id)
    builds = manifest["variants"] + [b["name"] for b in manifest["builds"]]
    native.cc_test(
        name = "lab%s_test" % lab_id[:2],
        size = "medium",
        # labs/manifest_verdicts_test.cc: every build the GPU bundle runs exits with its
        # manifest's verdict.
        srcs = tests + ["manifest_verdicts_test.cc"],
        data = [
            ":%s_sim" % lab_id,
            lab_id + "/lab.c",
            lab_id + "/lab.json",
            "//solutions:%s_sim" % lab_id,
        ] + ([lab_id + "/testdata/variants.c"] if manifest["variants"] else []) +
        [":%s_%s_sim" % (lab_id, name) for name in builds] + manifest["test_data"],
        deps = [
            ":lab_test_support",
            "//labs/harness:result_schema",
            "//labs/harness:wrap",
        ],
    )

    # The suite's tests of the reference alone, built with no variant: under ASan
    # (.ci/run) every lab binary is a link of its own, and one run of each lab is what that
    # stage needs. The filter is the stage's own (--test_filter); here it makes the target
    # mean the same when it is run by hand.
    native.cc_test(
        name = "lab%s_reference_test" % lab_id[:2],
        size = "medium",
        srcs = tests,
        args = ["--gtest_filter=*.TheReference*"],
        data = [
            lab_id + "/lab.c",
            lab_id + "/lab.json",
            "//solutions:%s_sim" % lab_id,
        ] + ([lab_id + "/testdata/variants.c"] if manifest["variants"] else []) + manifest["test_data"],
        deps = [
            ":lab_test_support",
            "//labs/harness:result_schema",
            "//labs/harness:wrap",
        ],
        tags = ["manual"],
    )
